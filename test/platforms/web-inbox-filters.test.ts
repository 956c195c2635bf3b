/**
 * Issue 35, the web inbox's filters come before paging: with more cases than a page where every
 * match is older than a page of others, a filtered page is full and its cursor leads to the rest.
 * Real relay, two fast fake HITL services (two hosts).
 */
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFastService } from '../../bench/lib/hitl-service.ts';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';

let older: Awaited<ReturnType<typeof startFastService>>;
let newer: Awaited<ReturnType<typeof startFastService>>;
let relay: RelayHandle;
let clock = Date.now();
const olderIds: string[] = [];
let policyCase = '';

beforeAll(async () => {
  [older, newer] = await Promise.all([startFastService(), startFastService()]);
  relay = await startRelay({
    adapters: [createWebAdapter()],
    now: () => clock,
    allow: { 'web:ops': ['ann'] },
    configFile: {
      policies: { 'solo-ann': { required: 1, approvers: ['web:ann'] } },
      routes: { solo: { targets: ['web:ops'], policy: 'solo-ann' } },
    },
  });
  // The oldest case, under a policy: every other case is newer and has none.
  clock += 1000;
  policyCase = (await relay.send('route:solo', older.create('f-policy'))).body.id;
  // 23 cases of `older` first, then 25 of `newer`: the first pages of the whole inbox are all newer's.
  for (const [service, n] of [
    [older, 23],
    [newer, 25],
  ] as const) {
    for (let i = 0; i < n; i++) {
      clock += 1000;
      const sent = await relay.send('web:ops', service.create(`f-${n}-${i}`));
      expect(sent.status).toBe(201);
      if (service === older) olderIds.unshift(sent.body.id);
    }
  }
}, 120_000);
afterAll(async () => {
  await relay?.stop();
  await Promise.all([older?.stop(), newer?.stop()]);
});

const inbox = async (query: string) => {
  const res = await request(`${relay.url}/web/api/inbox?user=ann&${query}`);
  return { status: res.statusCode, body: (await res.body.json()) as any };
};
const keyOf = async (id: string) => (await relay.relay.services.store.getCase(id))!.key;

it('INBOX-WEB-4 a service filter fills the page from matches that are only on later pages', async () => {
  await eventually(async () => (await inbox('')).body.next !== null);
  const unfiltered = await inbox('');
  expect(unfiltered.body.items).toHaveLength(20);
  const host = new URL(older.url).host;
  expect(unfiltered.body.items.every((i: any) => i.service !== host)).toBe(true);
  const first = await inbox(`service=${host}&policy=none`);
  expect(first.status).toBe(200);
  expect(first.body.items.map((i: any) => i.key)).toEqual(
    await Promise.all(olderIds.slice(0, 20).map(keyOf)),
  );
  expect(first.body.next).toEqual(expect.any(String));
  const second = await inbox(`service=${host}&policy=none&cursor=${first.body.next}`);
  expect(second.body.items.map((i: any) => i.key)).toEqual(
    await Promise.all(olderIds.slice(20).map(keyOf)),
  );
  expect(second.body.next).toBeNull();
  // With the type as well, and a type nothing has: empty at once, no cursor to follow.
  const typed = await inbox(`service=${host}&type=approval`);
  expect(typed.body.items).toHaveLength(20);
  expect(await inbox(`service=${host}&type=selection`)).toMatchObject({
    body: { items: [], next: null },
  });
});

it('INBOX-WEB-5 a policy filter: the one case under it, though older than every page; none; unknown', async () => {
  await eventually(async () => (await inbox('policy=solo-ann')).body.items.length === 1);
  const page = await inbox('policy=solo-ann');
  expect(page.body).toMatchObject({
    items: [{ key: await keyOf(policyCase), policy: 'solo-ann', tally: expect.any(String) }],
    next: null,
  });
  const none = await inbox('policy=none');
  expect(none.body.items).toHaveLength(20);
  expect(none.body.items.every((i: any) => i.policy === null)).toBe(true);
  expect(await inbox('policy=pair')).toMatchObject({
    status: 200,
    body: { items: [], next: null },
  });
  expect(await inbox('policy=solo-ann&type=selection')).toMatchObject({ body: { items: [] } });
  expect((await inbox(`policy=${encodeURIComponent('a\u0007b')}`)).status).toBe(400);
});
