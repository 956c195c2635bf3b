/**
 * Open MCP calls waiting for a person: each one sleeps on its ask's change events (the case
 * repository's `change:<id>`, which other replicas' changes reach through the store's change feed)
 * and reads the store only when one arrives. While nothing changes, a thousand open waits read
 * nothing. History rows (posted, reminder, vote, escalated) become progress lines on the way.
 */
import type { EventEmitter } from 'node:events';
import { CHANGES_MISSED } from '../cases/repository.ts';
import { isTerminal } from '../protocol/types.ts';
import type { Store } from '../store/store.ts';
import type { StoredCase } from '../store/types.ts';

type Detail = Record<string, unknown>;

/** A progress line for a history row of an ask, or null when the row is nothing to report. */
export function progressLine(kind: string, d: Detail): string | null {
  switch (kind) {
    case 'posted':
      return `posted to ${String(d.target)}`;
    case 'reminder':
      return 'reminder sent';
    case 'escalated':
      return `escalated to ${Array.isArray(d.targets) ? d.targets.join(', ') : 'the next step'}`;
    case 'vote': {
      const tally = d.tally as Record<string, number> | number | undefined;
      const got = typeof tally === 'number' ? tally : Math.max(0, ...Object.values(tally ?? {}));
      return typeof d.required === 'number' ? `${got} of ${d.required} approvals` : 'a vote';
    }
    case 'repost':
      return 'posted again';
    default:
      return null;
  }
}

/** Whether a wait for `c` is over: answered, ended, or shown to nobody. */
export const waitIsOver = (c: StoredCase | undefined): boolean =>
  !c || isTerminal(c.status) || !!c.doc.delivery_failed;

/** What one wait hears: its case changed (with the copy when local), or a progress line. */
type Heard = { changed: StoredCase | null } | { line: string };

/** The waits of one relay process, on one set of listeners. */
export class AskWaits {
  private readonly listeners = new Map<string, Set<(h: Heard) => void>>();
  private readonly unhook: () => void;
  /** Store reads made by waits (the benchmark and the tests count them). */
  reads = 0;

  constructor(
    private readonly events: EventEmitter,
    private readonly store: Pick<Store, 'getCase'>,
  ) {
    const onHistory = (id: string, kind: string, d: Detail) => {
      const line = this.listeners.has(id) ? progressLine(kind, d) : null;
      if (line) this.dispatch(id, { line });
    };
    // The change feed reconnected: anything may have changed, each wait reads once.
    const onMissed = () => {
      for (const id of this.listeners.keys()) this.dispatch(id, { changed: null });
    };
    events.on('history', onHistory);
    events.on(CHANGES_MISSED, onMissed);
    this.unhook = () => {
      events.off('history', onHistory);
      events.off(CHANGES_MISSED, onMissed);
    };
  }

  /** How many waits are open. */
  get open(): number {
    let n = 0;
    for (const set of this.listeners.values()) n += set.size;
    return n;
  }

  /**
   * Waits until the ask is over or `signal` aborts; `onLine` hears progress on the way. Starts from
   * `known` (the copy in hand) so a wait begun right after creating the ask reads nothing; without
   * one (a copy read earlier may be stale: an ask adopted or joined later) it listens, then reads.
   */
  async until(
    id: string,
    known: StoredCase | undefined,
    signal: AbortSignal,
    onLine: (line: string) => void,
  ): Promise<StoredCase | undefined> {
    let c = known ?? (await this.readListening(id, signal, onLine));
    while (!waitIsOver(c) && !signal.aborted) {
      const heard = await this.next(id, signal, onLine);
      if (heard === 'aborted') break;
      c = heard ?? (await this.read(id));
    }
    return c;
  }

  /**
   * Reads the ask while already listening to it, so a change that lands between the read and the
   * first wait is heard, not lost: the case as it is, or as the change heard meanwhile left it.
   */
  private async readListening(
    id: string,
    signal: AbortSignal,
    onLine: (line: string) => void,
  ): Promise<StoredCase | undefined> {
    const stop = new AbortController();
    const meanwhile = this.next(id, AbortSignal.any([signal, stop.signal]), onLine);
    const c = await this.read(id);
    if (waitIsOver(c) || signal.aborted) {
      stop.abort();
      await meanwhile;
      return c;
    }
    const heard = await meanwhile;
    if (heard === 'aborted') return c;
    return heard ?? (await this.read(id));
  }

  private async read(id: string): Promise<StoredCase | undefined> {
    this.reads++;
    return this.store.getCase(id);
  }

  /** The next change of `id` (its copy, or null: read it), or 'aborted'. */
  private next(
    id: string,
    signal: AbortSignal,
    onLine: (line: string) => void,
  ): Promise<StoredCase | null | 'aborted'> {
    return new Promise((resolve) => {
      const finish = (v: StoredCase | null | 'aborted') => {
        this.remove(id, hear);
        this.events.off(`change:${id}`, onChange);
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      };
      const hear = (h: Heard) => ('line' in h ? onLine(h.line) : finish(h.changed));
      const onChange = (next?: StoredCase) => finish(next ?? null);
      const onAbort = () => finish('aborted');
      this.add(id, hear);
      this.events.on(`change:${id}`, onChange);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  private add(id: string, f: (h: Heard) => void): void {
    const set = this.listeners.get(id) ?? new Set();
    set.add(f);
    this.listeners.set(id, set);
  }

  private remove(id: string, f: (h: Heard) => void): void {
    const set = this.listeners.get(id);
    set?.delete(f);
    if (set && !set.size) this.listeners.delete(id);
  }

  private dispatch(id: string, h: Heard): void {
    for (const f of [...(this.listeners.get(id) ?? [])]) f(h);
  }

  /** Stops listening (the relay stops). */
  close(): void {
    this.unhook();
  }
}
