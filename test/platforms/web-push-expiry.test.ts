/**
 * Issue 35, "to every target and subscribed phone": an expiry warning reaches the phones subscribed
 * to the card's room, as a Web Push the fake push service decrypts (RFC 8291) after checking its
 * VAPID JWT: exactly one per threshold, none after the case ends. The relay's own clock is moved on
 * by the test; the fast fake HITL service answers its polls.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFastService } from '../../bench/lib/hitl-service.ts';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { type FakePushService, startFakePushService } from '../fakes/push-service.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';

const TOKEN = 'web-chat-token-push-expiry-0123456789';
const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
const MIN = 60_000;
let service: Awaited<ReturnType<typeof startFastService>>;
let push: FakePushService;
let relay: RelayHandle;
/** How far the relay's clock is ahead of real time. */
let ahead = 0;

beforeAll(async () => {
  push = await startFakePushService();
  service = await startFastService();
  relay = await startRelay({
    adapters: [
      createWebAdapter({
        token: TOKEN,
        demo: false,
        push: { policy: { allowHttpLoopback: true, allowHosts: [] } },
      }),
    ],
    now: () => Date.now() + ahead,
    configFile: { routes: { phone: { targets: ['web:pocket'], expiry_warning: ['30m', '5m'] } } },
  });
});
afterAll(async () => {
  await relay?.stop();
  await service?.stop();
  await push?.stop();
});

/** Resolves after `n` more polls of `caseId` reach the service (each look ends with the hooks). */
const polls = (caseId: string, n: number) =>
  new Promise<void>((resolve) => {
    let seen = 0;
    service.onPoll = (id) => {
      if (id === caseId && ++seen >= n) {
        service.onPoll = null;
        resolve();
      }
    };
  });
const pushesOf = (tag: string) =>
  push.received.map((p) => JSON.parse(p.plaintext)).filter((d) => d.tag === tag);
const warningsOf = (tag: string) => pushesOf(tag).filter((d) => /^Expires in /.test(d.body));

it('PUSH-EXPIRY-1 each threshold reaches the subscribed phone once, with the card link; none after the end', async () => {
  const sub = push.subscribe();
  const made = await fetch(`${relay.url}/web/api/push/subscriptions`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ user: 'ann', subscription: sub, rooms: ['pocket'] }),
  });
  expect(made.status).toBe(201);
  const body = service.create('push-exp-1');
  const expires = Date.parse((body.hitl as any).expires_at);
  const sent = await relay.send('route:phone', body);
  expect(sent.status).toBe(201);
  const id = sent.body.id as string;
  const marker = await relay.send('route:phone', service.create('push-exp-marker'));
  const markerId = marker.body.id as string;
  await eventually(async () => pushesOf(id).length === 1, 15_000, 'the new case push');

  ahead = expires - Date.now() - 30 * MIN + MIN;
  const [first] = await eventually(
    async () => (warningsOf(id).length ? warningsOf(id) : null),
    15_000,
    'the 30 min warning push',
  );
  expect(first.body).toMatch(/^Expires in 29 min \(.* UTC\): a decision is still needed/);
  expect(first.url).toBe('/chat?room=pocket');
  expect(push.refused).toEqual([]);

  // Three more looks within the same threshold: still one warning push.
  await polls('push-exp-1', 3);
  expect(warningsOf(id)).toHaveLength(1);

  // Decided before the 5 min threshold: the outcome goes out, and no warning follows it. A marker
  // case of the same route, made at the start, proves the relay's clock got past that threshold.
  const messages = await (
    await fetch(`${relay.url}/web/api/rooms/pocket/messages`, { headers: auth })
  ).json();
  const card = messages.find((m: any) => m.case === id);
  const tap = await fetch(`${relay.url}/web/api/rooms/pocket/messages/${card.id}/actions/approve`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ user: { id: 'ann', name: 'Ann' } }),
  });
  expect((await tap.json()).outcome).toBe('submitted');
  await relay.until(id, (c) => c.final);
  ahead = expires - Date.now() - 4 * MIN;
  await eventually(async () => warningsOf(markerId).length === 2, 15_000, 'the marker warnings');
  expect(warningsOf(id)).toHaveLength(1);
  for (const p of push.received) expect(p.plaintext).not.toMatch(/token|secret|Bearer/i);
});
