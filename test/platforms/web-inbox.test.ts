/**
 * Issue 35, the web inbox: one person's open cases across every room, newest first, by the same
 * privacy rules as `/pending`; filters; a press from the inbox goes through the card's tap route
 * and edits the card in its room; a waiting inbox is woken by a new case (the rooms' signals).
 * Real relay, fast fake HITL service.
 */
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFastService } from '../../bench/lib/hitl-service.ts';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';

let service: Awaited<ReturnType<typeof startFastService>>;
let relay: RelayHandle;
let clock = Date.now();
const web = createWebAdapter() as ReturnType<typeof createWebAdapter> & { waits: { size: number } };
const ids: Record<string, string> = {};

beforeAll(async () => {
  service = await startFastService();
  relay = await startRelay({
    adapters: [web],
    now: () => clock,
    allow: { 'web:ops': ['ann', 'bob'], 'web:dev': ['ann'], 'web:secret': ['bob'] },
  });
  for (const [name, target] of [
    ['ops1', 'web:ops'],
    ['dev1', 'web:dev'],
    ['secret1', 'web:secret'],
    ['ops2', 'web:ops'],
  ] as const) {
    clock += 1000;
    const sent = await relay.send(target, service.create(`inbox-${name}`));
    expect(sent.status).toBe(201);
    ids[name] = sent.body.id;
  }
});
afterAll(async () => {
  await relay?.stop();
  await service?.stop();
});

const inbox = async (query: string, headers: Record<string, string> = {}) => {
  const res = await request(`${relay.url}/web/api/inbox?${query}`, { headers });
  const text = await res.body.text();
  return {
    status: res.statusCode,
    etag: res.headers.etag as string,
    body: text ? JSON.parse(text) : undefined,
  };
};
const keyOf = async (id: string) => (await relay.relay.services.store.getCase(id))!.key;

it('INBOX-WEB-1 every room a person may decide in, newest first, with each card and its buttons', async () => {
  const ann = await inbox('user=ann');
  expect(ann.status).toBe(200);
  expect(ann.body.items.map((i: any) => i.key)).toEqual(
    await Promise.all([ids.ops2!, ids.dev1!, ids.ops1!].map(keyOf)),
  );
  const top = ann.body.items[0];
  const room = (await (
    await request(`${relay.url}/web/api/rooms/ops/messages`)
  ).body.json()) as any[];
  expect(top).toMatchObject({
    prompt: 'Deploy build inbox-ops2 to production?',
    room: 'ops',
    rooms: ['ops'],
    type: 'approval',
    service: new URL(service.url).host,
    message: room.find((m) => m.case === ids.ops2).id,
  });
  expect(top.actions.map((a: any) => a.action)).toEqual(
    room.find((m) => m.case === ids.ops2).actions.map((a: any) => a.action),
  );
  const bob = await inbox('user=bob');
  expect(bob.body.items.map((i: any) => i.room)).toEqual(['ops', 'secret', 'ops']);
  expect((await inbox('user=mallory')).body).toEqual({ items: [], next: null });
});

it('INBOX-WEB-2 filters by room, service and type; bad input is named', async () => {
  expect((await inbox('user=ann&room=dev')).body.items.map((i: any) => i.room)).toEqual(['dev']);
  expect((await inbox('user=ann&room=secret')).body.items).toEqual([]);
  expect((await inbox('user=ann&type=selection')).body.items).toEqual([]);
  const host = new URL(service.url).host;
  expect((await inbox(`user=ann&service=${host}`)).body.items).toHaveLength(3);
  expect((await inbox('user=ann&service=elsewhere.example')).body.items).toEqual([]);
  expect((await inbox('')).body.error).toBe('invalid_user');
  expect((await inbox('user=ann&room=%21')).body.error).toBe('invalid_room');
  expect((await inbox('user=ann&wait=x')).body.error).toBe('invalid_wait');
});

it('INBOX-WEB-3 a waiting inbox is answered when a new case arrives, then a press decides it in its room', async () => {
  const before = await inbox('user=ann');
  const unchanged = await inbox('user=ann', { 'if-none-match': before.etag });
  expect(unchanged.status).toBe(304);
  const waiting = inbox('user=ann&wait=30', { 'if-none-match': before.etag });
  await eventually(async () => web.waits.size === 1); // the inbox is waiting: the new case must wake it
  clock += 1000;
  ids.dev2 = (await relay.send('web:dev', service.create('inbox-dev2'))).body.id;
  const woken = await waiting;
  expect(woken.status).toBe(200);
  const fresh = woken.body.items[0];
  expect(fresh.key).toBe(await keyOf(ids.dev2!));
  const tap = await request(
    `${relay.url}/web/api/rooms/${fresh.room}/messages/${fresh.message}/actions/approve`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user: { id: 'ann' } }),
    },
  );
  expect(((await tap.body.json()) as any).outcome).toBe('submitted');
  await relay.until(ids.dev2!, (c) => c.final);
  expect((await inbox('user=ann')).body.items.map((i: any) => i.key)).not.toContain(fresh.key);
});
