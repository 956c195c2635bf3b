/**
 * How submits are sent: a bounded number at a time per service origin, the rest waiting in a
 * bounded queue. The submit deadline starts only when a request gets its slot, so time spent
 * waiting for a connection never turns into a timeout and a second POST. When the queue is long
 * the person is told at once and nothing is sent: a tap whose expected wait (its place in the
 * queue times how long this service has recently taken per submit) passes maxWaitMs is refused
 * on arrival, not after waiting; one that waits and still gets no slot in maxWaitMs is refused
 * then. Either way every tap ends in exactly one POST or in "busy, nothing sent, tap again".
 */
import { SUBMIT_GATE_DEFAULTS } from '../config/config.ts';

/** Limits of the submit queue. */
export interface SubmitGateOptions {
  /** Submits in flight per origin (the submit dispatcher keeps as many connections). */
  perOrigin?: number;
  /** Submits waiting per origin before new ones are refused. */
  maxQueue?: number;
  /** Longest wait for a slot (kept well inside the tap's claim, so a queued tap never outlives it). */
  maxWaitMs?: number;
  /** The clock for measuring how long submits take (tests pass a fake one). */
  now?: () => number;
}

interface Lane {
  active: number;
  waiting: Array<{ go: () => void }>;
}

/** Recent time per submit of an origin (moving average, ms); kept while the origin is idle too. */
const SMOOTHING = 0.2;

/** Per-origin concurrency with a queue. */
export class SubmitGate {
  readonly perOrigin: number;
  private readonly maxQueue: number;
  private readonly maxWaitMs: number;
  private readonly now: () => number;
  private readonly lanes = new Map<string, Lane>();
  /** Recent time per submit by origin (bounded: the oldest origin goes past 10,000). */
  private readonly pace = new Map<string, number>();

  constructor(o: SubmitGateOptions = {}) {
    this.perOrigin = Math.max(1, o.perOrigin ?? SUBMIT_GATE_DEFAULTS.perOrigin);
    this.maxQueue = Math.max(0, o.maxQueue ?? SUBMIT_GATE_DEFAULTS.maxQueue);
    this.maxWaitMs = o.maxWaitMs ?? SUBMIT_GATE_DEFAULTS.maxWaitMs;
    this.now = o.now ?? Date.now;
  }

  /**
   * How long a submit arriving now would wait for a slot on `origin`: whole rounds of the slots
   * ahead of it, each as long as a recent submit took. 0 with a free slot; undefined before any
   * submit to the origin finished (nothing is known yet, so the tap waits at most maxWaitMs).
   */
  expectedWaitMs(origin: string): number | undefined {
    const lane = this.lanes.get(origin);
    if (!lane || lane.active < this.perOrigin) return 0;
    const per = this.pace.get(origin);
    if (per === undefined) return undefined;
    return (Math.floor(lane.waiting.length / this.perOrigin) + 1) * per;
  }

  private record(origin: string, ms: number): void {
    const before = this.pace.get(origin);
    this.pace.delete(origin);
    this.pace.set(origin, before === undefined ? ms : before + SMOOTHING * (ms - before));
    if (this.pace.size > 10_000) this.pace.delete(this.pace.keys().next().value!);
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
    const slot = () => {
      l.active++;
      const since = this.now();
      return once(() => {
        this.record(origin, this.now() - since);
        l.active--;
        const next = l.waiting.shift();
        if (next) next.go();
        else if (l.active === 0) this.lanes.delete(origin);
      });
    };
    if (l.active < this.perOrigin) return slot();
    if (l.waiting.length >= this.maxQueue) return null;
    // The queue is long for how slow this service is now: refused on arrival, nothing sent.
    if ((this.expectedWaitMs(origin) ?? 0) > this.maxWaitMs) return null;
    return new Promise((resolve) => {
      const entry = {
        go: () => {
          clearTimeout(timer);
          resolve(slot());
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
