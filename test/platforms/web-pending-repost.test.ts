/**
 * Issue 35, `/pending`'s "Re-post" in the web chat: the card posted again at the bottom of the
 * room, its buttons deciding the case, the final edit on the new card, the old one saying it
 * moved; nobody else gets anything, an ended case is not re-posted, once per case in 30 s (the
 * relay's clock is the test's). Real relay, fast fake HITL service.
 */
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFastService } from '../../bench/lib/hitl-service.ts';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';

let service: Awaited<ReturnType<typeof startFastService>>;
let relay: RelayHandle;
let clock = Date.now();

beforeAll(async () => {
  service = await startFastService();
  relay = await startRelay({
    adapters: [createWebAdapter()],
    now: () => clock,
    allow: { 'web:rp': ['ann', 'bob', 'carol'] },
    configFile: {
      policies: { pair: { required: 2, approvers: ['web:carol', 'web:dave'] } },
      routes: { four: { targets: ['web:rp'], policy: 'pair' } },
    },
  });
});
afterAll(async () => {
  await relay?.stop();
  await service?.stop();
});

const room = async () => {
  const res = await request(`${relay.url}/web/api/rooms/rp/messages`);
  return (await res.body.json()) as any[];
};
const pending = async (user: string) => {
  const res = await request(`${relay.url}/web/api/rooms/rp/pending?user=${user}`);
  return ((await res.body.json()) as any).items as any[];
};
const press = async (path: string, user: string) => {
  const res = await request(`${relay.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user: { id: user } }),
  });
  return { status: res.statusCode, body: (await res.body.json()) as any };
};
const open = async (name: string, target = 'web:rp') => {
  const sent = await relay.send(target, service.create(name));
  expect(sent.status).toBe(201);
  const id = sent.body.id as string;
  await eventually(async () => (await room()).find((m) => m.case === id), 5000, 'the card');
  const key = (await relay.relay.services.store.getCase(id))!.key;
  return { id, key, path: `/web/api/rooms/rp/pending/${key}/repost` };
};
const history = async (id: string) =>
  (await relay.relay.services.store.listHistory(id)).filter((h) => h.kind === 'card_reposted');

it('REPOST-WEB-1 the card is posted again; a tap on it decides; the final edit lands on it; the old one says it moved', async () => {
  const c = await open('rp-1');
  const item = (await pending('ann')).find((i) => i.key === c.key);
  expect(item.repost).toBe(c.path);
  const before = (await room()).find((m) => m.case === c.id);
  const r = await press(item.repost, 'ann');
  expect(r.status).toBe(201);
  expect(r.body).toMatchObject({ outcome: 'reposted', message: expect.any(String) });
  expect(r.body.message).not.toBe(before.id);
  const after = await room();
  expect(after[after.length - 1]).toMatchObject({ id: r.body.message, case: c.id });
  expect(after[after.length - 1].actions.map((a: any) => a.action)).toContain('approve');
  const old = after.find((m) => m.id === before.id);
  expect(old.actions).toEqual([]);
  expect(old.status).toBe('This card was posted again further down: answer there.');
  expect(old.title).toMatch(/^Moved: /);
  expect((await pending('ann')).find((i) => i.key === c.key).message).toBe(r.body.message);
  expect(await history(c.id)).toEqual([
    expect.objectContaining({
      detail: { target: 'web:rp', by: 'web:ann', from: before.id, to: r.body.message },
    }),
  ]);
  const tap = await press(`/web/api/rooms/rp/messages/${r.body.message}/actions/approve`, 'bob');
  expect(tap.body.outcome).toBe('submitted');
  await relay.until(c.id, (x) => x.final);
  await relay.relay.services.cards.settled(c.id);
  const final = await room();
  expect(final.find((m) => m.id === r.body.message)).toMatchObject({ final: true });
  expect(final.find((m) => m.id === before.id)).toMatchObject({ final: false, actions: [] });
  expect(final.find((m) => m.id === before.id).status).toMatch(/posted again/);
});

it('REPOST-WEB-2 one who may not decide gets nothing; an ended case is not re-posted', async () => {
  const c = await open('rp-2');
  const count = (await room()).length;
  const stranger = await press(c.path, 'mallory');
  expect(stranger.status).toBe(403);
  expect(stranger.body).toMatchObject({ outcome: 'forbidden', message: null });
  const p = await open('rp-policy', 'route:four');
  const notApprover = await press(p.path, 'ann');
  expect(notApprover.body.outcome).toBe('forbidden');
  expect((await press(p.path, 'carol')).body.outcome).toBe('reposted');
  const card = (await room()).find((m) => m.case === c.id);
  await press(`/web/api/rooms/rp/messages/${card.id}/actions/approve`, 'ann');
  await relay.until(c.id, (x) => x.final);
  const ended = await press(c.path, 'ann');
  expect(ended.status).toBe(409);
  expect(ended.body).toMatchObject({ outcome: 'closed', message: null });
  expect(ended.body.text).toBe('This case has ended (completed); nothing was posted.');
  // Only carol's re-post of the policy case (and its own card) were added.
  expect((await room()).length).toBe(count + 2);
  expect(await history(c.id)).toEqual([]);
  const unknown = await press('/web/api/rooms/rp/pending/nosuchkey/repost', 'ann');
  expect(unknown.body.outcome).toBe('unknown_case');
  expect((await press('/web/api/rooms/rp/pending/a%20b/repost', 'ann')).body.error).toBe(
    'invalid_key',
  );
});

it('REPOST-WEB-3 once per case in 30 s, whoever presses (the relay clock)', async () => {
  const c = await open('rp-3');
  expect((await press(c.path, 'ann')).body.outcome).toBe('reposted');
  const again = await press(c.path, 'bob');
  expect(again.status).toBe(429);
  expect(again.body.text).toBe('This card was re-posted a moment ago; try again in 30 s.');
  clock += 29_000;
  expect((await press(c.path, 'ann')).body.text).toMatch(/try again in 1 s/);
  clock += 1_000;
  expect((await press(c.path, 'ann')).body.outcome).toBe('reposted');
  expect(await history(c.id)).toHaveLength(2);
});
