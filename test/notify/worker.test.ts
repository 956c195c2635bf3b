/** The outbox worker's schedule and its give-up, against a real relay and a receiver that is always down. */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { backoffMs } from '../../src/notify/worker.ts';
import { tapWhenPosted } from '../client/helpers.ts';
import {
  type DemoHandle,
  eventually,
  logLines,
  type RelayHandle,
  startDemo,
  startRelay,
} from '../helpers/relay-env.ts';
import { startReceiver } from './receiver.ts';

describe('backoffMs', () => {
  it('doubles from the minimum up to the maximum, with jitter in the upper half', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 1, max: 10_000 }),
        fc.integer({ min: 0, max: 10_000_000 }),
        fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }),
        (attempt, min, extra, r) => {
          const max = min + extra;
          const base = Math.min(max, min * 2 ** (attempt - 1));
          const wait = backoffMs(attempt, min, max, () => r);
          expect(wait).toBeGreaterThanOrEqual(Math.floor(base / 2));
          expect(wait).toBeLessThanOrEqual(Math.ceil(base));
        },
      ),
    );
    expect(backoffMs(1, 5000, 3_600_000, () => 1)).toBe(5000);
    expect(backoffMs(3, 5000, 3_600_000, () => 1)).toBe(20_000);
    expect(backoffMs(40, 5000, 3_600_000, () => 0)).toBe(1_800_000);
  });
});

describe('giving up', () => {
  const SECRET = 'notify-secret-for-give-up-tests';
  let demo: DemoHandle;
  let relay: RelayHandle;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  beforeAll(async () => {
    demo = await startDemo();
    receiver = await startReceiver({ secret: SECRET, failFirst: 1_000 });
    relay = await startRelay({
      adapters: [createWebAdapter()],
      env: {
        RELAY_NOTIFY_SECRET: SECRET,
        NOTIFY_RETRY_MIN_SECONDS: '0.05',
        NOTIFY_RETRY_MAX_SECONDS: '0.1',
        NOTIFY_MAX_ATTEMPTS: '3',
      },
    });
  });
  afterAll(async () => {
    await relay?.stop();
    await demo?.stop();
    await receiver?.close();
  });

  it('stops after NOTIFY_MAX_ATTEMPTS, records why, and never logs the notify_url', async () => {
    const response = await demo.create('approval', true);
    const notifyUrl = `${receiver.url}?token=hook-token-must-not-be-logged`;
    const sent = await relay.send('web:give-up', response, { notify_url: notifyUrl });
    await tapWhenPosted(relay.url, 'give-up', 'reject');
    const store = relay.relay.services.store;
    const [d] = await eventually(async () => {
      const list = await store.listDeliveries(sent.body.id);
      return list[0]?.state === 'failed' ? list : undefined;
    });
    expect(d).toMatchObject({ attempts: 3, last_error: 'HTTP 503', next_attempt_at: null });
    expect(receiver.got.map((r) => r.attempt)).toEqual([1, 2, 3]);
    const c = await relay.get(sent.body.id);
    const failed = c.history.filter((h: any) => h.kind === 'notify_failed');
    expect(failed.map((h: any) => h.will_retry)).toEqual([true, true, false]);
    expect(JSON.stringify(c)).not.toContain('hook-token-must-not-be-logged');
    expect(logLines.some((l) => l.includes('notify delivery given up'))).toBe(true);
    expect(logLines.join('\n')).not.toContain('hook-token-must-not-be-logged');
  });
});
