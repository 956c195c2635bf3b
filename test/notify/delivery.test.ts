/**
 * notify_url deliveries end to end: a receiver that is down for the first three attempts still gets
 * exactly one successful, signed delivery per case end, always with the same delivery id.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { RelayClient } from '../../src/client/index.ts';
import { tapWhenPosted } from '../client/helpers.ts';
import {
  type DemoHandle,
  eventually,
  type RelayHandle,
  startDemo,
  startRelay,
} from '../helpers/relay-env.ts';
import { startReceiver } from './receiver.ts';

const SECRET = 'notify-secret-for-tests-0123456789';
let demo: DemoHandle;
let relay: RelayHandle;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

beforeAll(async () => {
  demo = await startDemo();
  receiver = await startReceiver({ secret: SECRET, failFirst: 3 });
  relay = await startRelay({
    adapters: [createWebAdapter()],
    env: {
      RELAY_NOTIFY_SECRET: SECRET,
      NOTIFY_RETRY_MIN_SECONDS: '0.1',
      NOTIFY_RETRY_MAX_SECONDS: '0.5',
    },
  });
});
afterAll(async () => {
  await relay?.stop();
  await demo?.stop();
  await receiver?.close();
});

it('delivers each case end once, after three failed attempts, signed, with one delivery id', async () => {
  const room = 'notify-final';
  const send = async (type: string, extra: Record<string, unknown> = {}) => {
    const response = await demo.create(type, true);
    const sent = await relay.send(`web:${room}`, response, { notify_url: receiver.url, ...extra });
    expect(sent.status).toBe(201);
    return { id: sent.body.id as string, caseId: response.hitl.case_id as string };
  };
  const tapped = await send('approval');
  const cancelled = await send('confirmation');
  const expired = await send('escalation');
  const all = await send('approval', { notify_on: 'all' });

  await tapWhenPosted(relay.url, room, 'approve', (m) => m.case === tapped.id);
  await demo.act(cancelled.caseId, { step: 'cancel', reason: 'No longer needed' });
  await demo.act(expired.caseId, { step: 'expire' });
  await demo.act(all.caseId, { step: 'open' });
  await relay.until(all.id, (c) => c.status === 'opened');
  await tapWhenPosted(relay.url, room, 'reject', (m) => m.case === all.id);

  const expected: Array<[string, string]> = [
    [tapped.id, 'completed'],
    [cancelled.id, 'cancelled'],
    [expired.id, 'expired'],
    [all.id, 'opened'],
    [all.id, 'completed'],
  ];
  await eventually(
    async () => receiver.delivered().length >= expected.length,
    20_000,
    'every delivery',
  );
  const delivered = receiver.delivered();
  expect(delivered.map((r) => [r.body.id, r.event]).sort()).toEqual([...expected].sort());
  for (const d of delivered) {
    const attempts = receiver.got.filter((r) => r.delivery === d.delivery);
    // Down three times, then up: four attempts of the one delivery, numbered, all signed, one success.
    expect(attempts.map((r) => [r.attempt, r.answered])).toEqual([
      [1, 503],
      [2, 503],
      [3, 503],
      [4, 200],
    ]);
    expect(attempts.every((r) => r.signed && r.event === d.event)).toBe(true);
    // The body is the case view at the event, the same on every attempt.
    expect(attempts.every((r) => JSON.stringify(r.body) === JSON.stringify(d.body))).toBe(true);
    expect(d.body.status).toBe(d.event);
  }
  expect(delivered.find((d) => d.body.id === tapped.id)?.body).toMatchObject({
    final: true,
    result: { action: 'approve' },
    submitted_by: { platform_user_id: 'ann' },
  });
  expect(delivered.find((d) => d.body.id === cancelled.id)?.body.reason).toBe('No longer needed');
  // Each case got exactly one delivery per event: distinct ids, nothing else arrived.
  expect(new Set(receiver.got.map((r) => r.delivery)).size).toBe(expected.length);

  // The case's history and the outbox tell the same story.
  const c = await new RelayClient({ relayUrl: relay.url }).get(tapped.id);
  const kinds = c.history!.filter((h) => h.kind.startsWith('notify_')).map((h) => h.kind);
  expect(kinds).toEqual(['notify_failed', 'notify_failed', 'notify_failed', 'notify_delivered']);
  expect(await relay.relay.services.store.listDeliveries(tapped.id)).toMatchObject([
    { event: 'completed', state: 'delivered', attempts: 4, last_error: null },
  ]);
});

it('refuses a notify_url the URL policy forbids, naming the field', async () => {
  const response = await demo.create('approval', true);
  const sent = await relay.send('web:notify-bad', response, {
    notify_url: 'http://10.1.2.3/hook',
  });
  expect(sent.status).toBe(400);
  expect(sent.body.details).toEqual([{ path: 'notify_url', message: expect.any(String) }]);
});
