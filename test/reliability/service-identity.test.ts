/**
 * Finding 7 (service identity is the poll_url origin only): a 202 whose poll_url was on service
 * A's origin, with its submit and review URLs elsewhere and the previous_case_id of A's open case,
 * revised A's card and threaded its own card (its own Details and submit URLs) under A's.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';
import { type HostileService, startHostileService } from './hostile-service.ts';
import { cardOf } from './web.ts';

let relay: RelayHandle;
let a: HostileService;
let b: HostileService;
beforeAll(async () => {
  a = await startHostileService();
  b = await startHostileService();
  relay = await startRelay({ adapters: [createWebAdapter()] });
});
afterAll(async () => {
  await relay?.stop();
  await a?.close();
  await b?.close();
});

it('finding 7 (service identity): submit_url or events_url on another origin than poll_url is refused', async () => {
  const body = a.body202();
  body.hitl.submit_url = `${b.url}/cases/${body.hitl.case_id}/respond`;
  body.hitl.events_url = `${b.url}/cases/${body.hitl.case_id}/events`;
  const res = await relay.send('web:identity', body);
  expect(res.status).toBe(400);
  expect(res.body.details.map((d: any) => d.path).sort()).toEqual([
    'hitl.events_url',
    'hitl.submit_url',
  ]);
  expect(res.body.details[0].message).toMatch(/same origin as poll_url/);
});

it('finding 7 (service identity): previous_case_id links only within the same service', async () => {
  const original = a.body202();
  const first = await relay.send('web:identity', original);
  expect(first.status).toBe(201);
  // Poll and submit on A's origin, but the review page (and so the service) is B's.
  const impostor = b.body202({ previous_case_id: original.hitl.case_id });
  for (const f of ['poll_url', 'submit_url'])
    impostor.hitl[f] = impostor.hitl[f].replace(b.url, a.url);
  const second = await relay.send('web:identity', impostor);
  expect(second.status).toBe(201);
  expect(second.body.previous_id).toBeNull();
  expect((await relay.get(first.body.id)).next_id).toBeNull();
  // The genuine next round of A links as before.
  const round2 = a.body202({ previous_case_id: original.hitl.case_id });
  const third = await relay.send('web:identity', round2);
  expect(third.body.previous_id).toBe(first.body.id);
});

it('LOW-REVISED-1: a 202 that copies a service URLs marks its live card Revised only once the service says so', async () => {
  const original = a.body202();
  const first = await relay.send('web:revised-copy', original);
  const card = await eventually(
    () => cardOf(relay.url, 'revised-copy', first.body.id),
    5000,
    'card',
  );
  // Every URL on A's origin (a copy of A's), a case id A never created, naming A's open case.
  const impostor = a.body202();
  impostor.hitl.previous_case_id = original.hitl.case_id;
  const polls = () =>
    a.requests.filter((r) => r.method === 'GET' && r.path.includes(original.hitl.case_id)).length;
  const before = polls();
  expect((await relay.send('web:revised-copy', impostor)).status).toBe(201);
  // The relay asked A about its case (A answers: open, no next round) and believed that.
  await eventually(async () => polls() > before, 5000, 'the confirming poll of the named case');
  expect((await relay.get(first.body.id)).next_id).toBeNull();
  const live = await cardOf(relay.url, 'revised-copy', first.body.id);
  expect(live.status).not.toMatch(/revised/i);
  expect(live.actions.length).toBeGreaterThan(0);
  // The genuine next round, which A names on its poll of the first case, does mark it.
  const round2 = a.body202({ previous_case_id: original.hitl.case_id });
  const second = await relay.send('web:revised-copy', round2);
  // (Had the impostor been linked, the link would name it: a link is never replaced.)
  await eventually(async () => (await relay.get(first.body.id)).next_id, 5000, 'the link');
  expect((await relay.get(first.body.id)).next_id).toBe(second.body.id);
  const marked = await eventually(
    async () => {
      const m = await cardOf(relay.url, 'revised-copy', first.body.id);
      return /revised/i.test(m.status) ? m : undefined;
    },
    5000,
    'the Revised mark',
  );
  expect(marked.actions).toEqual([]);
  expect(card.id).toBe(marked.id);
});
