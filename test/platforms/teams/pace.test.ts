import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConversationPace, TEAMS_CONVERSATION_PACE } from '../../../platforms/teams/pace.ts';

describe('ConversationPace (the shared send pace with Teams limits)', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('lets 7 sends through at once, then holds the 8th until the window has room', async () => {
    const pace = new ConversationPace([{ limit: 7, windowMs: 1000 }]);
    const order: number[] = [];
    const all = Promise.all(
      Array.from({ length: 8 }, (_, i) => pace.run('c1', async () => void order.push(i))),
    );
    await vi.advanceTimersByTimeAsync(0);
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6]);
    await vi.advanceTimersByTimeAsync(999);
    expect(order).toHaveLength(7);
    await vi.advanceTimersByTimeAsync(1);
    await all;
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it('keeps conversations apart', async () => {
    const pace = new ConversationPace([{ limit: 1, windowMs: 1000 }]);
    const done: string[] = [];
    void pace.run('a', async () => done.push('a'));
    void pace.run('b', async () => done.push('b'));
    await vi.advanceTimersByTimeAsync(0);
    expect(done).toEqual(['a', 'b']);
  });

  it('honours the stricter of several windows (Teams: 8 in 2 s)', async () => {
    const pace = new ConversationPace(TEAMS_CONVERSATION_PACE);
    const at: number[] = [];
    const start = Date.now();
    const all = Promise.all(
      Array.from({ length: 9 }, () => pace.run('c', async () => void at.push(Date.now() - start))),
    );
    await vi.advanceTimersByTimeAsync(3000);
    await all;
    // 7 at once; the 8th waits for the 1 s window; the 9th for the 2 s window.
    expect(at).toEqual([0, 0, 0, 0, 0, 0, 0, 1000, 2000]);
  });

  it('passes results and errors through and keeps going after an error', async () => {
    vi.useRealTimers();
    const pace = new ConversationPace([]);
    await expect(pace.run('c', async () => 42)).resolves.toBe(42);
    await expect(pace.run('c', async () => Promise.reject(new Error('no')))).rejects.toThrow('no');
    await expect(pace.run('c', async () => 'after')).resolves.toBe('after');
  });
});
