/**
 * Web Push end to end: a page subscribes (keys made as a browser makes them), a new case in its
 * room, a reminder under the card and the outcome reach a fake push service on loopback that checks
 * the VAPID JWT and decrypts the RFC 8291 payload; a 410 removes the subscription.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { type FakePushService, startFakePushService } from '../fakes/push-service.ts';
import {
  type DemoHandle,
  eventually,
  logLines,
  type RelayHandle,
  startDemo,
  startRelay,
} from '../helpers/relay-env.ts';

const TOKEN = 'web-chat-token-push-0123456789';
const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
let demo: DemoHandle;
let relay: RelayHandle;
let push: FakePushService;

beforeAll(async () => {
  push = await startFakePushService();
  demo = await startDemo();
  relay = await startRelay({
    adapters: [
      createWebAdapter({
        token: TOKEN,
        demo: false,
        push: { policy: { allowHttpLoopback: true, allowHosts: [] } },
      }),
    ],
    configFile: {
      policies: { 'only-cat': { required: 1, approvers: ['web:cat'] } },
      routes: { duo: { targets: ['web:duo'], policy: 'only-cat' } },
    },
  });
});
afterAll(async () => {
  await relay?.stop();
  await demo?.stop();
  await push?.stop();
});

const subscribe = (body: unknown) =>
  fetch(`${relay.url}/web/api/push/subscriptions`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify(body),
  });

it('PUSH-1 hands out one VAPID public key, stored at first start (the same on every ask)', async () => {
  const a = await (await fetch(`${relay.url}/web/api/push/key`, { headers: auth })).json();
  const b = await (await fetch(`${relay.url}/web/api/push/key`, { headers: auth })).json();
  expect(Buffer.from(a.publicKey, 'base64url')).toHaveLength(65);
  expect(b.publicKey).toBe(a.publicKey);
  expect((await fetch(`${relay.url}/web/api/push/key`)).status).toBe(401);
});

it('PUSH-2 refuses a bad subscription with a 400 that names the field', async () => {
  const good = push.subscribe();
  const cases: Array<[unknown, string]> = [
    [{ subscription: good }, 'invalid_user'],
    [
      { user: 'ann', subscription: { ...good, endpoint: 'http://example.com/x' } },
      'invalid_endpoint',
    ],
    [
      { user: 'ann', subscription: { ...good, keys: { ...good.keys, p256dh: 'AAAA' } } },
      'invalid_keys',
    ],
    [
      { user: 'ann', subscription: { ...good, keys: { ...good.keys, auth: 'AAAA' } } },
      'invalid_keys',
    ],
    [{ user: 'ann', subscription: good, rooms: ['no spaces'] }, 'invalid_rooms'],
  ];
  for (const [body, error] of cases) {
    const res = await subscribe(body);
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe(error);
  }
  const big = await subscribe({ user: 'ann', subscription: good, pad: 'x'.repeat(5000) });
  expect(big.status).toBe(413);
});

it('PUSH-3 a new case and its outcome arrive encrypted and VAPID-signed, with the card link and no secret', async () => {
  const sub = push.subscribe();
  const made = await subscribe({ user: 'ann', subscription: sub, rooms: ['phone'] });
  expect(made.status).toBe(201);
  const listed = await (
    await fetch(`${relay.url}/web/api/push/subscriptions?user=ann`, { headers: auth })
  ).json();
  expect(listed.items).toEqual([
    expect.objectContaining({ service: push.origin, rooms: ['phone'] }),
  ]);
  expect(JSON.stringify(listed)).not.toContain(sub.keys.auth);

  const before = push.received.length;
  const sent = await relay.send('web:phone', await demo.create('approval', true));
  expect(sent.status).toBe(201);
  const first = await eventually(async () => push.received[before], 15_000, 'the new case push');
  expect(push.refused).toEqual([]);
  expect(first.claims.aud).toBe(push.origin);
  const data = JSON.parse(first.plaintext);
  expect(Object.keys(data).sort()).toEqual(['body', 'tag', 'title', 'url']);
  expect(data.url).toBe('/chat?room=phone');
  const messages = await (
    await fetch(`${relay.url}/web/api/rooms/phone/messages`, { headers: auth })
  ).json();
  expect(data.body).toBe(messages[0].prompt);
  expect(data.tag).toBe(messages[0].case);

  const m = messages[0];
  const tap = await fetch(`${relay.url}/web/api/rooms/phone/messages/${m.id}/actions/approve`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ user: { id: 'ann', name: 'Ann' } }),
  });
  expect((await tap.json()).outcome).toBe('submitted');
  const outcome = await eventually(
    async () =>
      push.received.slice(before + 1).find((p) => JSON.parse(p.plaintext).tag === data.tag),
    15_000,
    'the outcome push',
  );
  expect(JSON.parse(outcome.plaintext).url).toBe('/chat?room=phone');
  for (const p of push.received) {
    expect(p.plaintext).not.toContain(TOKEN);
    expect(p.plaintext).not.toMatch(/token|secret|requestState|Bearer/i);
  }
});

it('PUSH-4 a 410 from the push service removes the subscription; a person removes one too', async () => {
  const gone = push.subscribe();
  const kept = push.subscribe();
  await subscribe({ user: 'bob', subscription: gone, rooms: ['gone'] });
  const keptRow = await (
    await subscribe({ user: 'bob', subscription: kept, rooms: ['other'] })
  ).json();
  push.answer(gone.endpoint, 410);
  await relay.send('web:gone', await demo.create('approval', true));
  const list = () =>
    fetch(`${relay.url}/web/api/push/subscriptions?user=bob`, { headers: auth }).then((r) =>
      r.json(),
    );
  await eventually(
    async () => (await list()).items.length === 1,
    15_000,
    'the gone subscription removed',
  );
  expect((await list()).items[0].id).toBe(keptRow.id);
  const rm = await fetch(`${relay.url}/web/api/push/subscriptions/${keptRow.id}/remove?user=bob`, {
    method: 'POST',
    headers: auth,
  });
  expect(rm.status).toBe(204);
  expect((await list()).items).toEqual([]);
});

it('PUSH-5 the VAPID keys are sealed by the relay under RELAY_SECRET_KEY and open again after a restart', async () => {
  const secret = 'push-secret-key-0123456789abcdef';
  const adapter = () =>
    createWebAdapter({
      token: TOKEN,
      demo: false,
      push: { policy: { allowHttpLoopback: true, allowHosts: [] } },
    });
  // One data directory for both relays (a relay started on its own removes its own at stop).
  const dataDir = mkdtempSync(join(tmpdir(), 'hitl-push-keys-'));
  let publicKey = '';
  const first = await startRelay({
    adapters: [adapter()],
    dataDir,
    env: { RELAY_SECRET_KEY: secret },
  });
  try {
    const key = await (await fetch(`${first.url}/web/api/push/key`, { headers: auth })).json();
    publicKey = key.publicKey;
    const stored = await first.relay.services.store.kv.get('web:push:vapid');
    expect(stored).toMatch(/^v1:/);
    expect(stored).not.toContain(key.publicKey);
    expect(stored).not.toContain('privateKey');
  } finally {
    await first.stop();
  }
  // Restarted with the same key: the sealed pair opens (another key is refused at start for all
  // of the relay's keys, receipts first).
  const again = await startRelay({
    adapters: [adapter()],
    dataDir,
    env: { RELAY_SECRET_KEY: secret },
  });
  try {
    const key = await (await fetch(`${again.url}/web/api/push/key`, { headers: auth })).json();
    expect(key.publicKey).toBe(publicKey);
  } finally {
    await again.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

/** The relay's fan-outs of pushes about case `id` so far (its debug log line, one per push event). */
const fanOuts = (id: string) =>
  logLines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'web push fan-out' && l.case === id);

it('PUSH-6 a push goes only to the people who may decide the case: the new case and its outcome', async () => {
  const cat = push.subscribe();
  const dan = push.subscribe();
  for (const [user, sub] of [
    ['cat', cat],
    ['dan', dan],
  ] as const)
    expect((await subscribe({ user, subscription: sub, rooms: ['duo'] })).status).toBe(201);
  const endpointId = (s: { endpoint: string }) => s.endpoint.split('/').pop();
  const sent = await relay.send('route:duo', await demo.create('approval', true));
  expect(sent.status).toBe(201);
  const id = sent.body.id as string;
  const about = () => push.received.filter((p) => JSON.parse(p.plaintext).tag === id);
  const first = await eventually(async () => fanOuts(id)[0], 15_000, 'the new case fan-out');
  expect(first).toMatchObject({ sent: 1, skipped: 1, room: 'duo' });
  expect(about().map((p) => p.id)).toEqual([endpointId(cat)]);

  // dan may not decide it: his tap is refused, and the outcome push goes to cat alone as well.
  const [m] = await (
    await fetch(`${relay.url}/web/api/rooms/duo/messages`, { headers: auth })
  ).json();
  const tap = (user: string) =>
    fetch(`${relay.url}/web/api/rooms/duo/messages/${m.id}/actions/approve`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ user: { id: user, name: user } }),
    }).then((r) => r.json());
  expect((await tap('dan')).outcome).not.toBe('submitted');
  expect((await tap('cat')).outcome).toBe('submitted');
  const outcome = await eventually(async () => fanOuts(id)[1], 15_000, 'the outcome fan-out');
  expect(outcome).toMatchObject({ sent: 1, skipped: 1 });
  expect(about().map((p) => p.id)).toEqual([endpointId(cat), endpointId(cat)]);
  expect(push.refused).toEqual([]);
});
