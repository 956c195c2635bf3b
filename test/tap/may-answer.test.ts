/**
 * Issue 19 (authorize before input): AdapterContext.mayAnswer runs the tap pipeline's resolve and
 * authorize steps for an adapter that is about to collect an answer's input. A real relay with the
 * web chat and a fake HITL service (the protocol's wire format); the store is counted, so "nothing
 * stored, nothing sent" is measured, not assumed.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFastService } from '../../bench/lib/hitl-service.ts';
import { createWebAdapter } from '../../platforms/web/index.ts';
import type { AdapterContext, Tap } from '../../src/adapter.ts';
import { openSqliteStore } from '../../src/store/sqlite-store.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';
import { type CountedStore, countStore } from '../helpers/store-counter.ts';
import { tempDirs } from '../helpers/temp.ts';
import { cardOf, tapWeb } from '../reliability/web.ts';

const temp = tempDirs();

const service = await startFastService();
let relay: RelayHandle;
let counted: CountedStore;
let ctx: AdapterContext | undefined;

beforeAll(async () => {
  const web = createWebAdapter();
  const start = web.start.bind(web);
  // The context the relay hands the adapter at start (what a platform's ask flow calls).
  web.start = async (c) => {
    ctx = c;
    return start(c);
  };
  const dir = temp.make('hitl-relay-may-answer-');
  counted = countStore(openSqliteStore(join(dir, 'store.sqlite')));
  relay = await startRelay({
    adapters: [web],
    store: counted.store,
    allow: { 'web:open-room': ['ann', 'bob', 'carol'] },
    configFile: {
      policies: { 'two-of-us': { required: 2, approvers: ['web:ann', 'web:bob'] } },
      target_policies: { 'web:policy-room': 'two-of-us' },
    },
    env: { POLL_INTERVAL_MIN_SECONDS: '3600', POLL_INTERVAL_MAX_SECONDS: '7200' },
  });
});
afterAll(async () => {
  await relay?.stop();
  await service.stop();
});

async function keyOf(room: string, caseId: string): Promise<string> {
  const sent = await relay.send(`web:${room}`, service.create(caseId));
  expect(sent.status).toBe(201);
  await eventually(() => cardOf(relay.url, room, sent.body.id), 5000, 'the card');
  const c = await relay.relay.services.store.getCase(sent.body.id);
  return c!.key;
}

/** Writes of the relay's timers (poll and outbox leases, liveness and readiness keys), not of a call. */
const background = (c: { method: string; key?: string }) =>
  ['leaseDue', 'leaseDeliveries', 'purgeClosed', 'purgeExpiredKv', 'rescheduleOpen'].includes(
    c.method,
  ) || /^(readyz|alive):/.test(c.key ?? '');

const tap = (key: string, user: string, action = 'approve'): Tap => ({
  platform: 'web',
  key,
  action,
  user: { id: user },
  ref: null,
});

it('is handed to adapters and answers null for a person who may answer, else the reply a tap would get', async () => {
  expect(ctx?.mayAnswer).toBeTypeOf('function');
  const open = await keyOf('open-room', 'may-1');
  const policy = await keyOf('policy-room', 'may-2');
  counted.reset();
  const submitsBefore = service.submits;
  const may = ctx!.mayAnswer!;

  expect(await may(tap(open, 'ann'))).toBeNull();
  expect(await may(tap(policy, 'bob'))).toBeNull();
  const outsider = await may(tap(open, 'mallory'));
  expect(outsider?.outcome).toBe('forbidden');
  expect(outsider?.text.length).toBeGreaterThan(0);
  expect(outsider?.card?.caseId).toBeDefined();
  expect((await may(tap(open, 'ann', 'no_such_action')))?.outcome).toBe('not_allowed');
  expect((await may(tap(policy, 'carol')))?.outcome).toBe('not_an_approver');
  expect((await may(tap('nokey', 'ann')))?.outcome).toBe('unknown_case');
  expect((await may({ ...tap(open, 'ann'), platform: 'slack' }))?.outcome).toBe('unknown_case');

  // Nothing stored (no history row, no vote, no claim, no key) and nothing sent to the service.
  expect(counted.calls.filter((c) => c.write && !background(c))).toEqual([]);
  expect(service.submits).toBe(submitsBefore);
});

it('says closed once the case was answered', async () => {
  const room = 'open-room';
  const sent = await relay.send(`web:${room}`, service.create('may-3'));
  const card = await eventually(() => cardOf(relay.url, room, sent.body.id), 5000, 'the card');
  const key = (await relay.relay.services.store.getCase(sent.body.id))!.key;
  expect((await tapWeb(relay.url, room, card.id, 'approve')).body.outcome).toBe('submitted');
  const reply = await ctx!.mayAnswer!(tap(key, 'bob'));
  expect(reply?.outcome).toBe('closed');
  expect(reply?.card?.final).toBe(true);
});
