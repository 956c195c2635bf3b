/**
 * The card reconcile spaces itself by its own cost (src/paced.ts): every `everyMs` while a pass is
 * cheap, 200 times a pass's cost (at most a minute) when that is longer, never two at once, and
 * nothing after stop. A fake clock: each pass "takes" and answers what the test says.
 */
import { expect, it } from 'vitest';
import { type PacedClock, pacedLoop } from '../../src/paced.ts';

function fakeClock() {
  let now = 0;
  const timers: Array<{ at: number; fn: () => void } | null> = [];
  const clock: PacedClock = {
    setTimeout(fn, ms) {
      timers.push({ at: now + ms, fn });
      return { unref() {} };
    },
    clearTimeout() {
      timers.length = 0;
    },
  };
  /** Runs the next timer; returns when it was due. */
  const next = () => {
    const i = timers.findIndex((t) => t !== null);
    if (i < 0) return undefined;
    const t = timers[i]!;
    timers[i] = null;
    now = Math.max(now, t.at);
    t.fn();
    return t.at;
  };
  return {
    clock,
    now: () => now,
    next,
    advance: (ms: number) => (now += ms),
    pending: () => timers.some(Boolean),
  };
}

it('runs every everyMs while passes are cheap, and 200 times a pass when that is longer', async () => {
  const f = fakeClock();
  const took = [1, 100, 1000, 1];
  const starts: number[] = [];
  const loop = pacedLoop(
    5000,
    async () => {
      starts.push(f.now());
      const ms = took[starts.length - 1] ?? 1;
      f.advance(ms);
      return ms;
    },
    { clock: f.clock },
  );
  for (let i = 0; i < 4; i++) {
    f.next();
    await Promise.resolve();
  }
  // Each next run counts from the end of the last: 1 ms -> 5 s later; 100 ms -> 20 s later;
  // 1,000 ms -> 60 s later (the cap, not 200 s); 1 ms -> 5 s again.
  expect(starts).toEqual([5000, 10_001, 30_101, 91_101]);
  f.next();
  await Promise.resolve();
  expect(starts.at(-1)).toBe(91_101 + 1 + 5000);
  loop.stop();
  expect(f.pending()).toBe(false);
});

it('after stop, the pass under way does not arm another', async () => {
  const f = fakeClock();
  let release = () => {};
  let runs = 0;
  const loop = pacedLoop(
    10,
    () => {
      runs++;
      return new Promise<number>((r) => (release = () => r(0)));
    },
    { clock: f.clock },
  );
  f.next(); // the first pass starts and waits
  loop.stop();
  release();
  await new Promise((r) => setImmediate(r));
  expect(runs).toBe(1);
  expect(f.pending()).toBe(false);
});

it('paces by the cost a pass answers (its scans), not by how long it waited', async () => {
  const f = fakeClock();
  const starts: number[] = [];
  pacedLoop(
    5000,
    async () => {
      starts.push(f.now());
      f.advance(10_000); // waited on a slow platform for 10 s
      return 2; // of which its own scans were 2 ms
    },
    { clock: f.clock },
  );
  for (let i = 0; i < 2; i++) {
    f.next();
    await Promise.resolve();
  }
  expect(starts).toEqual([5000, 20_000]); // 5 s after the end, not 60 s
});
