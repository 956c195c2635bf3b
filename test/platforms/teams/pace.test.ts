import { describe, expect, it } from 'vitest';
import {
  ConversationPace,
  type PaceClock,
  TEAMS_CONVERSATION_PACE,
} from '../../../platforms/teams/pace.ts';

/** A clock that only moves when someone sleeps: the waits are recorded, nothing really waits. */
function virtualClock(): PaceClock & { sleeps: number[] } {
  let now = 1_000_000;
  const sleeps: number[] = [];
  return {
    sleeps,
    now: () => now,
    sleep: async (ms) => {
      sleeps.push(ms);
      now += ms;
    },
  };
}

describe('ConversationPace', () => {
  it('lets 7 sends through at once, then holds the 8th until the window has room', async () => {
    const clock = virtualClock();
    const pace = new ConversationPace([{ limit: 7, windowMs: 1000 }], clock);
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 8 }, (_, i) => pace.run('c1', async () => void order.push(i))),
    );
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(clock.sleeps).toEqual([1000]);
  });

  it('keeps conversations apart', async () => {
    const clock = virtualClock();
    const pace = new ConversationPace([{ limit: 1, windowMs: 1000 }], clock);
    await Promise.all([pace.run('a', async () => 1), pace.run('b', async () => 2)]);
    expect(clock.sleeps).toEqual([]);
  });

  it('honours the stricter of several windows (Teams: 8 in 2 s)', async () => {
    const clock = virtualClock();
    const pace = new ConversationPace(TEAMS_CONVERSATION_PACE, clock);
    await Promise.all(Array.from({ length: 9 }, () => pace.run('c', async () => undefined)));
    // 7 at once; the 8th waits for the 1 s window; the 9th for the 2 s window.
    expect(clock.sleeps.reduce((a, b) => a + b, 0)).toBe(2000);
  });

  it('passes results and errors through and keeps going after an error', async () => {
    const pace = new ConversationPace([], virtualClock());
    await expect(pace.run('c', async () => 42)).resolves.toBe(42);
    await expect(pace.run('c', async () => Promise.reject(new Error('no')))).rejects.toThrow('no');
    await expect(pace.run('c', async () => 'after')).resolves.toBe('after');
  });
});
