/**
 * Issue 35, `/pending` in the web chat: the room's open cases a person may decide, newest first,
 * five a page with a cursor; the allowlist and approval policy leave others' cases out entirely;
 * `mine` lists the cases whose policy names the person. Real relay, fast fake HITL service.
 */
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFastService } from '../../bench/lib/hitl-service.ts';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { type RelayHandle, startRelay } from '../helpers/relay-env.ts';

let service: Awaited<ReturnType<typeof startFastService>>;
let relay: RelayHandle;
let clock = Date.now();
const ids: string[] = [];
let policyCase = '';

beforeAll(async () => {
  service = await startFastService();
  relay = await startRelay({
    adapters: [createWebAdapter()],
    // Each intake a second later than the one before: "newest first" is a fixed order.
    now: () => clock,
    allow: { 'web:pend': ['ann', 'bob', 'carol'] },
    configFile: {
      policies: { pair: { required: 2, approvers: ['web:carol', 'web:dave'] } },
      routes: { four: { targets: ['web:pend'], policy: 'pair' } },
    },
  });
  for (let i = 1; i <= 7; i++) {
    clock += 1000;
    const sent = await relay.send('web:pend', service.create(`pend-${i}`));
    expect(sent.status).toBe(201);
    ids.push(sent.body.id);
  }
  clock += 1000;
  policyCase = (await relay.send('route:four', service.create('pend-policy'))).body.id;
  clock += 1000;
  await relay.send('web:elsewhere', service.create('pend-elsewhere'));
});
afterAll(async () => {
  await relay?.stop();
  await service?.stop();
});

const pending = async (query: string) => {
  const res = await request(`${relay.url}/web/api/rooms/pend/pending?${query}`);
  return { status: res.statusCode, body: (await res.body.json()) as any };
};
const room = async () => {
  const res = await request(`${relay.url}/web/api/rooms/pend/messages`);
  return (await res.body.json()) as any[];
};
const keyOf = async (id: string) => (await relay.relay.services.store.getCase(id))!.key;

it('PENDING-WEB-1 newest first, five a page, the next page by cursor, each with its words and card', async () => {
  clock += 25 * 60_000;
  const first = await pending('user=ann');
  expect(first.status).toBe(200);
  const expected = await Promise.all([...ids].reverse().map(keyOf));
  expect(first.body.items.map((i: any) => i.key)).toEqual(expected.slice(0, 5));
  expect(first.body.next).toMatch(/^[A-Za-z0-9_-]+$/);
  const top = first.body.items[0];
  const cards = await room();
  expect(top).toMatchObject({
    prompt: 'Deploy build pend-7 to production?',
    from: new URL(service.url).host,
    age: '25 min',
    tally: null,
    message: cards.find((m) => m.case === ids[6]).id,
  });
  expect(top.expires_in).toMatch(/^23 h 3\d min$/);
  const second = await pending(`user=ann&cursor=${first.body.next}`);
  expect(second.body.items.map((i: any) => i.key)).toEqual(expected.slice(5));
  expect(second.body.next).toBeNull();
});

it('PENDING-WEB-2 privacy: not on the allowlist sees nothing; the policy case only for its approvers', async () => {
  expect((await pending('user=mallory')).body).toEqual({ items: [], next: null });
  const carolAll = await pending('user=carol');
  expect(carolAll.body.items[0].key).toBe(await keyOf(policyCase));
  expect(carolAll.body.items[0].tally).toBe('0 of 2 approvals');
  const annAll = [
    ...(await pending('user=ann')).body.items,
    ...(await pending(`user=ann&cursor=${(await pending('user=ann')).body.next}`)).body.items,
  ];
  expect(annAll.map((i: any) => i.key)).not.toContain(await keyOf(policyCase));
  expect((await pending('user=carol&mine=1')).body.items.map((i: any) => i.key)).toEqual([
    await keyOf(policyCase),
  ]);
  expect((await pending('user=ann&mine=1')).body).toEqual({ items: [], next: null });
});

it('PENDING-WEB-3 a decided case leaves the list; bad input is named', async () => {
  const cards = await room();
  const newest = cards.find((m) => m.case === ids[6]);
  const tap = await request(
    `${relay.url}/web/api/rooms/pend/messages/${newest.id}/actions/approve`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user: { id: 'ann' } }),
    },
  );
  expect(((await tap.body.json()) as any).outcome).toBe('submitted');
  await relay.until(ids[6]!, (c) => c.final);
  const page = await pending('user=ann');
  expect(page.body.items.map((i: any) => i.key)).not.toContain(await keyOf(ids[6]!));
  expect(page.body.items).toHaveLength(5);
  expect((await pending('')).body.error).toBe('invalid_user');
  expect((await pending('user=ann&cursor=%21%21')).body.error).toBe('invalid_cursor');
});
