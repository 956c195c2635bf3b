/**
 * A background pass that spaces itself by its own cost: the next run starts `everyMs` after the
 * last one ended, or `share` times that run's cost when that is longer (capped at `maxMs`). The
 * cost is what the pass answers: ms of its own work (the reconcile's store scans), not the time it
 * waited on a platform. The card reconcile scans every message; at 100k open cases a pass every
 * 5 s was 2 % of a core (docs/BENCHMARKS.md, watching at scale), so a large store is looked over
 * less often instead.
 */

/** The timers pacedLoop arms (tests pass fake ones). */
export interface PacedClock {
  setTimeout(fn: () => void, ms: number): { unref?(): unknown };
  clearTimeout(t: unknown): void;
}

const realClock: PacedClock = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (t) => clearTimeout(t as NodeJS.Timeout),
};

/** Starts the loop (first run after `everyMs`); `stop` ends it after the run under way. */
export function pacedLoop(
  everyMs: number,
  /** One pass; answers its cost in ms. */
  fn: () => Promise<number>,
  o: { share?: number; maxMs?: number; clock?: PacedClock } = {},
): { stop(): void } {
  const { share = 200, maxMs = 60_000, clock = realClock } = o;
  let timer: unknown;
  let stopped = false;
  const arm = (ms: number) => {
    const t = clock.setTimeout(run, ms);
    t.unref?.();
    timer = t;
  };
  const run = async () => {
    const cost = await fn();
    if (!stopped) arm(Math.max(everyMs, Math.min(maxMs, share * cost)));
  };
  arm(everyMs);
  return {
    stop() {
      stopped = true;
      clock.clearTimeout(timer);
    },
  };
}
