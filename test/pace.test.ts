/** The shared send pace (src/pace.ts): windows per lane, group and global windows, 429 holds. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SendPace } from '../src/pace.ts';

describe('SendPace', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  function track(pace: SendPace) {
    const done: string[] = [];
    const send = (lane: string, label: string) =>
      pace.acquire(lane).then(
        () => void done.push(label),
        () => void done.push(`${label}:rejected`),
      );
    return { done, send };
  }

  it('applies group windows only to the lanes they pick', async () => {
    const pace = new SendPace({
      lane: [],
      group: { windows: [{ limit: 1, windowMs: 1000 }], applies: (lane) => lane.startsWith('-') },
    });
    const { done, send } = track(pace);
    for (const label of ['g1', 'g2']) void send('-1', label);
    for (const label of ['p1', 'p2']) void send('1', label);
    await vi.advanceTimersByTimeAsync(0);
    expect(done).toEqual(['g1', 'p1', 'p2']);
    await vi.advanceTimersByTimeAsync(1000);
    expect(done).toEqual(['g1', 'p1', 'p2', 'g2']);
    pace.close();
  });

  it('shares a global window fairly: the longest waiting send goes first', async () => {
    const pace = new SendPace({ lane: [], global: [{ limit: 2, windowMs: 1000 }] });
    const { done, send } = track(pace);
    void send('a', 'a1');
    void send('a', 'a2');
    void send('a', 'a3');
    void send('b', 'b1');
    await vi.advanceTimersByTimeAsync(0);
    expect(done).toEqual(['a1', 'a2']);
    await vi.advanceTimersByTimeAsync(1000);
    expect(done).toEqual(['a1', 'a2', 'a3', 'b1']);
    pace.close();
  });

  it('hold() quiets one lane, holdAll() every lane', async () => {
    const pace = new SendPace({ lane: [] });
    const { done, send } = track(pace);
    pace.hold('a', 500);
    void send('a', 'a1');
    void send('b', 'b1');
    await vi.advanceTimersByTimeAsync(0);
    expect(done).toEqual(['b1']);
    await vi.advanceTimersByTimeAsync(500);
    expect(done).toEqual(['b1', 'a1']);
    pace.holdAll(300);
    void send('c', 'c1');
    await vi.advanceTimersByTimeAsync(299);
    expect(done).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(done).toEqual(['b1', 'a1', 'c1']);
    pace.close();
  });

  it('close() rejects what still waits', async () => {
    const pace = new SendPace({ lane: [{ limit: 1, windowMs: 1000 }] });
    const { done, send } = track(pace);
    void send('a', 'a1');
    void send('a', 'a2');
    await vi.advanceTimersByTimeAsync(0);
    pace.close();
    await vi.advanceTimersByTimeAsync(0);
    expect(done).toEqual(['a1', 'a2:rejected']);
    await expect(pace.acquire('a')).rejects.toThrow(/closed/);
  });
});
