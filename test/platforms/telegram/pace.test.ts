import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TelegramSendPace } from '../../../platforms/telegram/pace.ts';

/** Records which sends have been let through, in order. */
function track(pace: TelegramSendPace) {
  const done: string[] = [];
  const send = (chat: string, label: string) =>
    pace.acquire(chat).then(
      () => {
        done.push(label);
      },
      () => {
        done.push(`${label}:rejected`);
      },
    );
  return { done, send };
}

describe('telegram send pace', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  const options = {
    perChatIntervalMs: 1000,
    groupLimit: 3,
    groupWindowMs: 60_000,
    globalLimit: 4,
    globalWindowMs: 1000,
  };

  it('lets the first send of a chat through and spaces the next one', async () => {
    const pace = new TelegramSendPace(options, () => Date.now());
    const { done, send } = track(pace);
    void send('42', 'a1');
    void send('42', 'a2');
    await vi.advanceTimersByTimeAsync(0);
    expect(done).toEqual(['a1']);
    await vi.advanceTimersByTimeAsync(1000);
    expect(done).toEqual(['a1', 'a2']);
    pace.close();
  });

  it('does not make one chat wait for another', async () => {
    const pace = new TelegramSendPace(options, () => Date.now());
    const { done, send } = track(pace);
    void send('1', 'a1');
    void send('1', 'a2');
    void send('2', 'b1');
    await vi.advanceTimersByTimeAsync(0);
    expect(done).toEqual(['a1', 'b1']);
    pace.close();
  });

  it('holds a group to its per-minute limit', async () => {
    const pace = new TelegramSendPace(options, () => Date.now());
    const { done, send } = track(pace);
    for (const label of ['g1', 'g2', 'g3', 'g4']) void send('-100', label);
    await vi.advanceTimersByTimeAsync(5000);
    expect(done).toEqual(['g1', 'g2', 'g3']);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(done).toEqual(['g1', 'g2', 'g3', 'g4']);
    pace.close();
  });

  it('holds everything to the global limit', async () => {
    const pace = new TelegramSendPace(options, () => Date.now());
    const { done, send } = track(pace);
    for (const chat of ['1', '2', '3', '4', '5', '6']) void send(chat, chat);
    await vi.advanceTimersByTimeAsync(0);
    expect(done).toEqual(['1', '2', '3', '4']);
    await vi.advanceTimersByTimeAsync(1000);
    expect(done).toEqual(['1', '2', '3', '4', '5', '6']);
    pace.close();
  });

  it('keeps a chat quiet after a 429 and rejects waiting sends on close', async () => {
    const pace = new TelegramSendPace(options, () => Date.now());
    const { done, send } = track(pace);
    pace.hold('7', 5000);
    void send('7', 'late');
    await vi.advanceTimersByTimeAsync(4000);
    expect(done).toEqual([]);
    await vi.advanceTimersByTimeAsync(1000);
    expect(done).toEqual(['late']);
    const stuck = pace.acquire('7');
    pace.close();
    await expect(stuck).rejects.toThrow(/closed/);
    await expect(pace.acquire('8')).rejects.toThrow(/closed/);
  });

  it('serves the send that has waited longest first while the global limit binds', async () => {
    const pace = new TelegramSendPace(
      { ...options, perChatIntervalMs: 0, globalLimit: 1, globalWindowMs: 100 },
      () => Date.now(),
    );
    const { done, send } = track(pace);
    void send('1', 'c1-first');
    await vi.advanceTimersByTimeAsync(0);
    // Chat 2 asks before chat 1's second send; chat 1 comes first in the pace's map of chats.
    void send('2', 'c2');
    void send('1', 'c1-second');
    await vi.advanceTimersByTimeAsync(250);
    expect(done).toEqual(['c1-first', 'c2', 'c1-second']);
    pace.close();
  });
});
