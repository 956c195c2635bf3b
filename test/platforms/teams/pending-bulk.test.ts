/**
 * Issue 35, bulk decisions in a Teams `/pending` list: a real relay and the Teams adapter against
 * the fake Bot Connector, a fast fake HITL service counting submits per case. The list (in the
 * personal chat) offers "Approve all (n)" only for cases a bulk decision may take; its invoke
 * answer is a confirm step naming each case and those left out with why (four-eyes); Confirm is
 * this person's only and single use, and submits each chosen case once.
 */
import { randomUUID } from 'node:crypto';
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFastService } from '../../../bench/lib/hitl-service.ts';
import { createTeamsAdapter } from '../../../platforms/teams/index.ts';
import { conversationKey } from '../../../platforms/teams/parse.ts';
import type { PlatformAdapter } from '../../../src/adapter.ts';
import { adaptiveCardOf, FakeTeamsConnector } from '../../fakes/teams-connector.ts';
import { eventually, type RelayHandle, startRelay } from '../../helpers/relay-env.ts';
import {
  channelId,
  executeInvoke,
  installActivity,
  instantClock,
  mentionActivity,
  testConfig,
} from './helpers.ts';

type Node = Record<string, any>;
const TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47';
const conversation = channelId();
const key = conversationKey(conversation);
const ann = { id: '29:1ann-bulk-9e52142b5e5e', name: 'Ann Example' };
const mallory = { id: '29:1mallory-bulk-08q2j2o3', name: 'Mallory' };
let service: Awaited<ReturnType<typeof startFastService>>;
let fake: FakeTeamsConnector;
let adapter: PlatformAdapter;
let relay: RelayHandle;
let clock = Date.now();
const submitted: string[] = [];

async function deliver(activity: Node): Promise<{ status: number; body: any }> {
  const res = await request(`${relay.url}/api/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(activity),
  });
  const text = await res.body.text();
  return { status: res.statusCode, body: text ? JSON.parse(text) : undefined };
}

/** "@hitl-relay <text>" from `user` in the channel, as Teams sends it (tenant in channelData). */
function say(user: { id: string; name: string }, text: string, conversationId = conversation) {
  const a = mentionActivity(fake.serviceUrl, conversationId, text) as Node;
  a.from = user;
  a.conversation.tenantId = TENANT;
  a.channelData = { tenant: { id: TENANT }, channel: { id: conversationId } };
  return a;
}

const cards = () =>
  fake.conversation(conversation).filter((a) => adaptiveCardOf(a.versions[0]) && !a.replyToId);
const lines = (card: Node | undefined) =>
  ((card?.body ?? []) as Node[]).map((b) => String(b.text)).join('\n');

/** The last message the fake holds in `user`'s personal chat. */
function privateMessage(user: { id: string }): {
  id: string;
  card: Node | undefined;
  text: string;
} {
  const chat = fake.personalChatOf(user.id);
  const last = chat ? fake.conversation(chat).at(-1) : undefined;
  if (!last) throw new Error(`nothing in ${user.id}'s personal chat`);
  const card = adaptiveCardOf(last.versions.at(-1));
  return { id: last.id, card, text: card ? lines(card) : String(last.versions.at(-1)?.text) };
}

beforeAll(async () => {
  service = await startFastService();
  service.onSubmit = (id) => submitted.push(id);
  fake = await FakeTeamsConnector.start();
  adapter = createTeamsAdapter(testConfig(), instantClock());
  relay = await startRelay({
    adapters: [adapter],
    now: () => clock,
    allow: { [`teams:${key}`]: [ann.id] },
    configFile: {
      policies: { pair: { required: 2, approvers: [`teams:${ann.id}`, 'teams:29:1other'] } },
      routes: { four: { targets: [`teams:${key}`], policy: 'pair' } },
    },
  });
  expect((await deliver(installActivity(fake.serviceUrl, conversation))).status).toBe(200);
  for (const [target, name] of [
    [`teams:${key}`, 'tm-bulk-1'],
    [`teams:${key}`, 'tm-bulk-2'],
    ['route:four', 'tm-bulk-four'],
  ] as const) {
    clock += 1000;
    expect((await relay.send(target, service.create(name))).status).toBe(201);
  }
  await eventually(async () => cards().length === 3, 10_000, 'the cards');
});
afterAll(async () => {
  await relay?.stop();
  await adapter?.stop();
  await fake?.close();
  await service?.stop();
});

// Bulk actions sit in the body's ActionSet (the card's own six are More and the Re-posts).
const actionsOf = (card: Node | undefined) =>
  [
    ...(card?.actions ?? []),
    ...(card?.body ?? []).flatMap((b: Node) => (b.type === 'ActionSet' ? b.actions : [])),
  ] as Node[];

it('PENDING-TEAMS-BULK-1 no bulk action when no listed case may be in a bulk decision', async () => {
  await deliver(say(ann, 'pending mine'));
  const mine = privateMessage(ann);
  expect(mine.text).toContain('tm-bulk-four');
  expect(JSON.stringify(mine.card)).not.toMatch(/ all \(/);
});

it('PENDING-TEAMS-BULK-2 confirm lists the cases and those left out; only its owner, only once', async () => {
  await deliver(say(ann, 'pending'));
  const list = privateMessage(ann);
  const all = actionsOf(list.card).find((a) => a.title === 'Approve all (2)')!;
  expect(all.data.hitl).toMatch(/^hitlb:/);
  const chat = fake.personalChatOf(ann.id)!;
  const press = (payload: string, user: typeof ann) =>
    deliver(executeInvoke(fake.serviceUrl, chat, list.id, payload, user, `f:${randomUUID()}`));

  expect((await press(all.data.hitl, mallory)).body.value).toBe('This button is no longer active.');
  const step = (await press(all.data.hitl, ann)).body;
  expect(step.type).toBe('application/vnd.microsoft.card.adaptive');
  const text = lines(step.value);
  expect(text.split('\n')[0]).toMatch(/^Approve: 2 cases/);
  expect(text).toContain('1\\. Deploy build tm-bulk-2 to production?');
  expect(text).toContain('2\\. Deploy build tm-bulk-1 to production?');
  expect(text).toMatch(/Left out:\n• Deploy build tm-bulk-four to production\? — four-eyes/);
  expect(submitted).toEqual([]);
  const [confirm, cancel] = actionsOf(step.value);
  expect([confirm!.title, cancel!.title]).toEqual(['Confirm', 'Cancel']);

  expect((await press(confirm!.data.hitl, mallory)).body.value).toContain(
    'used, expired or not yours',
  );
  expect(submitted).toEqual([]);
  const done = (await press(confirm!.data.hitl, ann)).body;
  const results = lines(done.value);
  expect(results).toMatch(/^Approve: the outcome of each of 2 cases/);
  expect(results).toContain('✅ Deploy build tm-bulk-2 to production?');
  expect(results).toContain('✅ Deploy build tm-bulk-1 to production?');
  expect([...submitted].sort()).toEqual(['tm-bulk-1', 'tm-bulk-2']);
  expect((await press(confirm!.data.hitl, ann)).body.value).toContain('used, expired or not yours');
  expect(submitted).toHaveLength(2);
});
