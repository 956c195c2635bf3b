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

  it('fromAnswer: a send holds its slot until answered and counts from the answer', async () => {
    const pace = new SendPace({ lane: [{ limit: 2, windowMs: 1000 }], fromAnswer: true });
    const granted: string[] = [];
    const releases = new Map<string, () => void>();
    const send = (lane: string, label: string) =>
      void pace.acquire(lane).then((release) => {
        granted.push(label);
        releases.set(label, release);
      });
    for (const label of ['a1', 'a2', 'a3']) send('a', label);
    send('b', 'b1');
    await vi.advanceTimersByTimeAsync(0);
    expect(granted).toEqual(['a1', 'a2', 'b1']);
    // a1 and a2 are still on their way a full window later: a3 waits (counted from the grant it
    // would have gone now, and could reach the platform inside the window of a1's arrival).
    await vi.advanceTimersByTimeAsync(1000);
    expect(granted).toEqual(['a1', 'a2', 'b1']);
    releases.get('a1')!();
    releases.get('a1')!(); // a second release changes nothing
    await vi.advanceTimersByTimeAsync(999);
    expect(granted).toEqual(['a1', 'a2', 'b1']);
    await vi.advanceTimersByTimeAsync(1);
    expect(granted).toEqual(['a1', 'a2', 'b1', 'a3']);
    pace.close();
  });

  it('fromAnswer: run() releases the slot when the send fails too', async () => {
    const pace = new SendPace({ lane: [{ limit: 1, windowMs: 100 }], fromAnswer: true });
    await expect(pace.run('a', async () => Promise.reject(new Error('429')))).rejects.toThrow();
    const second = pace.run('a', async () => 'sent');
    await vi.advanceTimersByTimeAsync(100);
    await expect(second).resolves.toBe('sent');
    pace.close();
  });
});
