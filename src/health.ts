/**
 * What /readyz reports: the state of each configured part (every platform, the store), why, and
 * since when. The relay is ready only when every part is up.
 */

/** starting: first attempt under way; up: working; down: failing, retried by itself; failed: needs a fix by a person. */
export type PartState = 'starting' | 'up' | 'down' | 'failed';

/** One part as /readyz shows it. */
export interface PartHealth {
  state: PartState;
  /** Why the part is not up (null when up); never holds a secret. */
  reason: string | null;
  /** ISO time of the last state change. */
  since: string;
}

/** What /readyz answers. */
export interface Readiness {
  ready: boolean;
  parts: Record<string, PartHealth>;
  /** Limits of this deployment an operator must know (they do not make the relay unready). */
  notes?: Record<string, string>;
}

/** The /readyz note (and the start of the start-up warning) when the relay has no chat platform. */
export const NO_PLATFORM_NOTE =
  'no chat platform is enabled: the web chat is off and no platform is configured, so no card reaches a person';

/** The parts of one relay. */
export class Health {
  private readonly parts = new Map<string, PartHealth>();
  /** Parts that refused their credentials at start: cases for them are refused at intake. */
  private readonly refusals = new Map<string, string>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Sets a part's state; `since` moves only when the state changes. */
  set(name: string, state: PartState, reason: string | null = null): void {
    const before = this.parts.get(name);
    const since =
      before && before.state === state ? before.since : new Date(this.now()).toISOString();
    this.parts.set(name, { state, reason, since });
  }

  get(name: string): PartHealth | undefined {
    return this.parts.get(name);
  }

  /** Marks a part failed for good (a refused token): nothing sent to it can be delivered. */
  refuse(name: string, reason: string): void {
    this.set(name, 'failed', reason);
    this.refusals.set(name, reason);
  }

  /** Why a part refuses all work (set by refuse), else undefined. */
  refusal(name: string): string | undefined {
    return this.refusals.get(name);
  }

  private readonly notes = new Map<string, string>();
  /** Parts looked at again on every readiness check: null is up, else why it is down. */
  private readonly probes = new Map<string, () => string | null>();

  /** A part whose state `check` gives, looked at now and on every runProbes(). */
  probe(name: string, check: () => string | null): void {
    this.probes.set(name, check);
    this.runProbes();
  }

  /** Sets every probed part from its check (as /readyz does before it answers). */
  runProbes(): void {
    for (const [name, check] of this.probes) {
      const why = check();
      this.set(name, why === null ? 'up' : 'down', why);
    }
  }

  /** Records a limit of this deployment, shown on /readyz under `notes`. */
  note(name: string, text: string): void {
    this.notes.set(name, text);
  }

  /** Every note by name, or undefined when there is none. */
  noteSnapshot(): Record<string, string> | undefined {
    return this.notes.size ? Object.fromEntries(this.notes) : undefined;
  }

  /** Every part by name. */
  snapshot(): Record<string, PartHealth> {
    return Object.fromEntries([...this.parts].map(([k, v]) => [k, { ...v }]));
  }

  /** True when every part is up (and there is at least one). */
  allUp(): boolean {
    return this.parts.size > 0 && [...this.parts.values()].every((p) => p.state === 'up');
  }
}

/** Node network error codes: the other side could not be reached (worth retrying). */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_HEADERS_TIMEOUT',
]);

/** Whether an error (or one of its causes) is a network failure. */
export function isNetworkError(err: unknown): boolean {
  for (let e = err, i = 0; e && i < 5; i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && NETWORK_CODES.has(code)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}
