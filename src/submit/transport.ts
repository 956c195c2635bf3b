/**
 * How submits are sent: a bounded number at a time per service origin, the rest waiting in a
 * bounded queue. The submit deadline starts only when a request gets its slot, so time spent
 * waiting for a connection never turns into a timeout and a second POST; when the queue is full
 * (or a tap would wait too long) the person is told at once and nothing is sent.
 */

/** Limits of the submit queue. */
export interface SubmitGateOptions {
  /** Submits in flight per origin (the submit dispatcher keeps as many connections). */
  perOrigin?: number;
  /** Submits waiting per origin before new ones are refused. */
  maxQueue?: number;
  /** Longest wait for a slot (kept well inside the tap's claim, so a queued tap never outlives it). */
  maxWaitMs?: number;
}

/** Defaults: 64 in flight per origin, 2,000 waiting, 20 s at most in the queue. */
export const SUBMIT_GATE_DEFAULTS = { perOrigin: 64, maxQueue: 2000, maxWaitMs: 20_000 };

interface Lane {
  active: number;
  waiting: Array<{ go: () => void }>;
}

/** Per-origin concurrency with a queue. */
export class SubmitGate {
  readonly perOrigin: number;
  private readonly maxQueue: number;
  private readonly maxWaitMs: number;
  private readonly lanes = new Map<string, Lane>();

  constructor(o: SubmitGateOptions = {}) {
    this.perOrigin = Math.max(1, o.perOrigin ?? SUBMIT_GATE_DEFAULTS.perOrigin);
    this.maxQueue = Math.max(0, o.maxQueue ?? SUBMIT_GATE_DEFAULTS.maxQueue);
    this.maxWaitMs = o.maxWaitMs ?? SUBMIT_GATE_DEFAULTS.maxWaitMs;
  }

  /** Submits waiting for a slot on `origin` now. */
  queued(origin: string): number {
    return this.lanes.get(origin)?.waiting.length ?? 0;
  }

  /**
   * Waits for a slot on `origin`; resolves to a release function, or null when the queue is full
   * or no slot came within maxWaitMs (nothing may be sent then).
   */
  async acquire(origin: string): Promise<(() => void) | null> {
    let lane = this.lanes.get(origin);
    if (!lane) {
      lane = { active: 0, waiting: [] };
      this.lanes.set(origin, lane);
    }
    const l = lane;
    const release = () => {
      l.active--;
      const next = l.waiting.shift();
      if (next) next.go();
      else if (l.active === 0) this.lanes.delete(origin);
    };
    if (l.active < this.perOrigin) {
      l.active++;
      return once(release);
    }
    if (l.waiting.length >= this.maxQueue) return null;
    return new Promise((resolve) => {
      const entry = {
        go: () => {
          clearTimeout(timer);
          l.active++;
          resolve(once(release));
        },
      };
      const timer = setTimeout(() => {
        const i = l.waiting.indexOf(entry);
        if (i >= 0) l.waiting.splice(i, 1);
        resolve(null);
      }, this.maxWaitMs);
      l.waiting.push(entry);
    });
  }
}

function once(f: () => void): () => void {
  let done = false;
  return () => {
    if (!done) {
      done = true;
      f();
    }
  };
}
