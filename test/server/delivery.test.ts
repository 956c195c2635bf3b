/**
 * Undeliverable cases are refused or reported at once: a target no card can reach answers 422
 * not_delivered with each target's reason (nothing stored, nothing waits); a delayed platform
 * answers 201 with the delivery state and the card arrives later; a case no target shows within
 * DELIVERY_TIMEOUT_SECONDS ends its waiters with delivery_failed; re-sending a tracked case with a
 * new target posts it there too.
 */
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { createTelegramAdapter } from '../../platforms/telegram/index.ts';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { createHitlFetch, RelayError } from '../../src/client/index.ts';
import { FakeTelegramApi } from '../fakes/telegram-api.ts';
import { gate } from '../helpers/gate.ts';
import {
  type DemoHandle,
  eventually,
  type RelayHandle,
  startDemo,
  startRelay,
} from '../helpers/relay-env.ts';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function demo(): Promise<DemoHandle> {
  const d = await startDemo();
  cleanup.push(() => d.stop());
  return d;
}

async function relayWith(
  adapters: Parameters<typeof startRelay>[0]['adapters'],
  env: Record<string, string> = {},
): Promise<RelayHandle> {
  const r = await startRelay({ adapters, env, reconcileEveryMs: 50, startRetry: { minMs: 5 } });
  cleanup.push(() => r.stop());
  return r;
}

async function list(relay: RelayHandle): Promise<unknown[]> {
  const res = await request(`${relay.url}/v1/cases`);
  return ((await res.body.json()) as { cases: unknown[] }).cases;
}

function telegram(fake: FakeTelegramApi, token = fake.token, apiRoot = fake.apiRoot) {
  return createTelegramAdapter({
    botToken: token,
    apiRoot,
    ...(token === fake.token ? { botInfo: fake.botInfo } : {}),
    pace: { perChatIntervalMs: 1, groupWindowMs: 1, globalWindowMs: 1 },
    retry: { maxRetries: 0, retryAfterUnitMs: 1 },
    pollingTimeoutSeconds: 1,
  });
}

describe('undeliverable cases', () => {
  it('a bad web room: 422 not_delivered naming the target and why, nothing stored', async () => {
    const d = await demo();
    const relay = await relayWith([createWebAdapter()]);
    const t0 = Date.now();
    const r = await relay.send('web:has space', await d.create('approval', true));
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(r.status).toBe(422);
    expect(r.body).toMatchObject({
      error: 'not_delivered',
      targets: [{ target: 'web:has space', reason: expect.stringContaining('room name') }],
    });
    expect(await list(relay)).toHaveLength(0);
  });

  it('a refused bot token: 422 naming the platform and TELEGRAM_BOT_TOKEN; createHitlFetch rejects with RelayError', async () => {
    const d = await demo();
    const fake = await FakeTelegramApi.start();
    cleanup.push(() => fake.close());
    const relay = await relayWith([telegram(fake, '1:wrong-token')]);
    const r = await relay.send('telegram:-1001', await d.create('approval', true));
    expect(r.status).toBe(422);
    expect(r.body.targets[0].target).toBe('telegram:-1001');
    expect(r.body.targets[0].reason).toContain('TELEGRAM_BOT_TOKEN');
    const hitlFetch = createHitlFetch({ relayUrl: relay.url, target: 'telegram:-1001' });
    const err = await hitlFetch(`${d.url}/api/reviews?type=approval&inline=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RelayError);
    expect(err).toMatchObject({ code: 'not_delivered', status: 422 });
    expect((err as RelayError).message).toContain('telegram:-1001');
  });

  it('a chat the platform does not know: 422 with the case id, and /wait answers at once with delivery failed', async () => {
    const d = await demo();
    const fake = await FakeTelegramApi.start();
    cleanup.push(() => fake.close());
    const relay = await relayWith([telegram(fake)]);
    const r = await relay.send('telegram:@nosuchchannel', await d.create('approval', true));
    expect(r.status).toBe(422);
    expect(r.body.targets[0].reason).toMatch(/chat not found/);
    const t0 = Date.now();
    const res = await request(`${relay.url}/v1/cases/${r.body.id}/wait?timeout=30`);
    const view = (await res.body.json()) as any;
    expect(Date.now() - t0).toBeLessThan(2000);
    expect(view.delivery).toMatchObject({ state: 'failed' });
    expect(view.final).toBe(false);
  });

  it('a rate-limited platform: 201 with delivery pending, then the card arrives', async () => {
    const d = await demo();
    const fake = await FakeTelegramApi.start();
    cleanup.push(() => fake.close());
    const relay = await relayWith([telegram(fake)]);
    fake.inject429('sendMessage', 1, 0);
    const r = await relay.send('telegram:-1002', await d.create('approval', true));
    expect(r.status).toBe(201);
    expect(r.body.delivery).toMatchObject({ state: 'pending' });
    expect(r.body.messages[0]).toMatchObject({ state: 'posting' });
    const later = await relay.until(r.body.id, (c) => c.delivery.state === 'delivered', 15_000);
    expect(later.messages[0].state).toBe('posted');
    expect(fake.messages(-1002)).toHaveLength(1);
  });

  it('a platform down past DELIVERY_TIMEOUT_SECONDS: waiters end with delivery_failed', async () => {
    const d = await demo();
    const fake = await FakeTelegramApi.start();
    const network = await gate(fake.apiRoot, true);
    cleanup.push(async () => {
      await network.close();
      await fake.close();
    });
    const relay = await relayWith([telegram(fake, fake.token, network.url)], {
      DELIVERY_TIMEOUT_SECONDS: '0.3',
    });
    network.shut();
    const r = await relay.send('telegram:-1003', await d.create('approval', true));
    expect(r.status).toBe(201);
    expect(r.body.delivery.state).toBe('pending');
    const res = await request(`${relay.url}/v1/cases/${r.body.id}/wait?timeout=20`);
    const view = (await res.body.json()) as any;
    expect(view.delivery).toMatchObject({ state: 'failed' });
    expect(view.delivery.reason).toMatch(/not shown within/);
    expect(view.history.map((h: any) => h.kind)).toContain('delivery_failed');
  });

  it('a card queued behind the platform pace past DELIVERY_TIMEOUT_SECONDS is not given up: it is under way', async () => {
    const d = await demo();
    const fake = await FakeTelegramApi.start();
    cleanup.push(() => fake.close());
    // One chat at one card per 800 ms: the third card waits about 1.6 s in the adapter's pace.
    const paced = createTelegramAdapter({
      botToken: fake.token,
      apiRoot: fake.apiRoot,
      botInfo: fake.botInfo,
      pace: { perChatIntervalMs: 800, groupWindowMs: 1, globalWindowMs: 1 },
      retry: { maxRetries: 0, retryAfterUnitMs: 1 },
      pollingTimeoutSeconds: 1,
    });
    const relay = await relayWith([paced], { DELIVERY_TIMEOUT_SECONDS: '0.3' });
    const sent = await Promise.all(
      [1, 2, 3].map(async () => relay.send('telegram:-1005', await d.create('approval', true))),
    );
    for (const r of sent) expect(r.status).toBe(201);
    for (const r of sent) {
      const view = await relay.until(r.body.id, (c) => c.delivery.state === 'delivered', 15_000);
      // Nobody was told the card would never be seen: it was waiting its turn, not failing.
      expect(view.history.map((h: any) => h.kind)).not.toContain('delivery_failed');
    }
    expect(fake.messages(-1005)).toHaveLength(3);
  });

  it('re-sending a tracked case with a new target posts it there too (fan-out)', async () => {
    const d = await demo();
    const relay = await relayWith([createWebAdapter()]);
    const body = await d.create('approval', true);
    const first = await relay.send('web:room-a', body);
    expect(first.status).toBe(201);
    const again = await relay.send('web:room-b', body);
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(first.body.id);
    expect(again.body.messages.map((m: any) => m.target).sort()).toEqual([
      'web:room-a',
      'web:room-b',
    ]);
    await eventually(async () => {
      const res = await request(`${relay.url}/web/api/rooms/room-b/messages`);
      return ((await res.body.json()) as unknown[]).length === 1;
    });
  });
});
