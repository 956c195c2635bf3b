/**
 * The retention timer (src/hitl-service/retention.ts) with fake interval timers and a hand-moved clock on a
 * real in-memory store: a pass at start and one every interval, none after stop().
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { startServiceRetention } from '../../src/hitl-service/retention.ts';
import { SqliteServiceStore } from '../../src/hitl-service/service-store.ts';
import type { ReviewCase } from '../../src/hitl-service/types.ts';
import { createLogger } from '../../src/log.ts';
import { manualClock } from '../demo/helpers.ts';

const DAY = 86_400_000;
const HOUR = 3_600_000;

/** Stores a case that ended at `endedMs`. */
const ended = (store: SqliteServiceStore, id: string, endedMs: number) =>
  store.insert(
    {
      case_id: id,
      status: 'cancelled',
      cancelled_at: new Date(endedMs).toISOString(),
      expires_at: new Date(endedMs).toISOString(),
      reminders_done: 0,
    } as ReviewCase,
    Buffer.alloc(32),
    null,
  );

describe('the service retention timer', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('passes at start and every interval; stop() ends the passes', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const clock = manualClock();
    const store = new SqliteServiceStore(':memory:');
    await ended(store, 'a', clock.now() - 2 * DAY);
    const log = createLogger({ level: 'silent' });
    const r = startServiceRetention(store, { retentionMs: DAY, intervalMs: HOUR }, clock.now, log);
    // Only the timer's passes run here: waitFor watches, it deletes nothing.
    const gone = (id: string) =>
      vi.waitFor(async () => expect(await store.get(id)).toBeUndefined());
    await gone('a');

    // Ends now: due a day later, deleted by the first timed pass after that.
    await ended(store, 'b', clock.now());
    clock.advance(DAY + 1);
    expect(await store.get('b')).toBeDefined();
    await vi.advanceTimersByTimeAsync(HOUR);
    await gone('b');

    await r.stop();
    await ended(store, 'c', clock.now() - 2 * DAY);
    await vi.advanceTimersByTimeAsync(10 * HOUR);
    expect(await store.get('c')).toBeDefined();
    await store.close();
  });
});
