/**
 * Issue 35, `/pending` on Teams: a real relay and the Teams adapter (botbuilder CloudAdapter in
 * test mode) against the fake Bot Connector. Teams has no message only one person sees, so the
 * list goes to the person's personal chat, opened with POST /v3/conversations; the channel hears
 * only that it was sent. Five a page, newest first, with a "More" Action.Execute whose invoke
 * answer is the next page and that only the list's owner can use; the allowlist and the approval
 * policy leave cases out as on every platform; someone without the app is told how to add it.
 */
import { randomUUID } from 'node:crypto';
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFastService } from '../../../bench/lib/hitl-service.ts';
import { createTeamsAdapter } from '../../../platforms/teams/index.ts';
import { conversationKey } from '../../../platforms/teams/parse.ts';
import type { PlatformAdapter } from '../../../src/adapter.ts';
import { adaptiveCardOf, FakeTeamsConnector } from '../../fakes/teams-connector.ts';
import { eventually, logLines, type RelayHandle, startRelay } from '../../helpers/relay-env.ts';
import {
  BOT,
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
const ann = { id: '29:1ann-9e52142b5e5e4d7b', name: 'Ann Example' };
const mallory = { id: '29:1mallory-08q2j2o3jc09', name: 'Mallory' };
const carol = { id: '29:1carol-4f1d2a7c9b3e', name: 'Carol' };
const dave = { id: '29:1dave-0b6e3c2a1f9d', name: 'Dave' };
let service: Awaited<ReturnType<typeof startFastService>>;
let fake: FakeTeamsConnector;
let adapter: PlatformAdapter;
let relay: RelayHandle;
let clock = Date.now();

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

/** The channel's replies to commands (plain text, in the thread of the command). */
const channelReplies = () =>
  fake
    .conversation(conversation)
    .filter((a) => a.replyToId !== null)
    .map((a) => String(a.versions[0]?.text));

beforeAll(async () => {
  service = await startFastService();
  fake = await FakeTeamsConnector.start();
  adapter = createTeamsAdapter(testConfig(), instantClock());
  relay = await startRelay({
    adapters: [adapter],
    now: () => clock,
    allow: { [`teams:${key}`]: [ann.id, carol.id, dave.id] },
    configFile: {
      policies: { pair: { required: 2, approvers: [`teams:${carol.id}`, 'teams:29:1other'] } },
      routes: { four: { targets: [`teams:${key}`], policy: 'pair' } },
    },
  });
  expect((await deliver(installActivity(fake.serviceUrl, conversation))).status).toBe(200);
  for (let i = 1; i <= 6; i++) {
    clock += 1000;
    const sent = await relay.send(`teams:${key}`, service.create(`tm-pend-${i}`));
    expect(sent.status).toBe(201);
  }
  clock += 1000;
  expect((await relay.send('route:four', service.create('tm-pend-policy'))).status).toBe(201);
  await eventually(async () => cards().length === 7, 10_000, 'the cards');
});
afterAll(async () => {
  await relay?.stop();
  await adapter?.stop();
  await fake?.close();
  await service?.stop();
});

it("PENDING-TEAMS-1 the list goes to a personal chat; the channel hears only that; More is its owner's", async () => {
  const before = cards().length;
  expect((await deliver(say(ann, 'pending'))).status).toBe(200);
  // The channel: one short reply naming no case, and no new card.
  expect(channelReplies().at(-1)).toBe('I sent your list of pending cases to our private chat.');
  expect(channelReplies().join('\n')).not.toContain('tm-pend');
  expect(cards()).toHaveLength(before);
  // The personal chat was opened the way Teams wants it: one member, the bot, the tenant.
  const open = fake.recordedRequests().find((r) => r.path === '/v3/conversations');
  expect(JSON.parse(open!.body)).toMatchObject({
    isGroup: false,
    bot: { id: BOT.id },
    members: [{ id: ann.id }],
    tenantId: TENANT,
  });
  const list = privateMessage(ann);
  expect(list.text.split('\n')[0]).toBe('Waiting for a decision here (5+), newest first:');
  expect(list.text).toContain('1\\. Deploy build tm-pend-6 to production?');
  expect(list.text).toContain('5\\. Deploy build tm-pend-2 to production?');
  expect(list.text).not.toContain('tm-pend-1 ');
  expect(list.text).not.toContain('tm-pend-policy');
  expect(list.text).toMatch(/\[Details\]\(http:\/\/127\.0\.0\.1:\d+\/r\//);
  const more = (list.card?.actions as Node[] | undefined)?.[0] as Node;
  expect(more).toMatchObject({ type: 'Action.Execute', title: 'More' });
  const payload = more.data.hitl as string;
  expect(payload).toMatch(/^hitlp:/);

  const chat = fake.personalChatOf(ann.id)!;
  const press = (user: typeof ann) =>
    deliver(executeInvoke(fake.serviceUrl, chat, list.id, payload, user, `f:${randomUUID()}`));
  const refused = await press(mallory);
  expect(refused.body).toEqual({
    statusCode: 200,
    type: 'application/vnd.microsoft.activity.message',
    value: 'This button is no longer active.',
  });
  const next = await press(ann);
  expect(next.body.type).toBe('application/vnd.microsoft.card.adaptive');
  expect(lines(next.body.value)).toContain('1\\. Deploy build tm-pend-1 to production?');
  expect(lines(next.body.value)).not.toContain('tm-pend-2');
  // The last page has no More (its bulk actions are PENDING-TEAMS-BULK's); its item's Re-post.
  const payloads = (next.body.value.actions as Node[]).map((a) => String(a.data.hitl));
  expect(payloads.filter((p) => p.startsWith('hitlp:'))).toEqual([]);
  const titles = (next.body.value.actions as Node[]).map((a) => String(a.title));
  expect(titles.filter((t) => t.startsWith('Re-post'))).toEqual(['Re-post 1']);
  // Asking again finds the same personal chat (Teams answers the same id).
  await deliver(say(ann, 'pending'));
  expect(fake.personalChatOf(ann.id)).toBe(chat);
});

it('PENDING-TEAMS-2 privacy: the allowlist and the policy hold; mine; asked in the personal chat', async () => {
  await deliver(say(mallory, 'pending'));
  expect(privateMessage(mallory).text).toBe('Nothing is waiting for you here.');
  expect(privateMessage(mallory).card?.actions).toEqual([]);

  await deliver(say(carol, 'pending mine'));
  const mine = privateMessage(carol).text;
  expect(mine).toContain('1\\. Deploy build tm-pend-policy');
  expect(mine).toContain('0 of 2 approvals');
  expect(mine).not.toContain('tm-pend-6');

  // Asked in the personal chat itself, the answer is there: that chat's own list (nothing).
  const chat = fake.personalChatOf(ann.id)!;
  const inPersonal = say(ann, 'pending', chat);
  inPersonal.conversation = { id: chat, conversationType: 'personal', tenantId: TENANT };
  const opened = fake.recordedRequests().filter((r) => r.path === '/v3/conversations').length;
  await deliver(inPersonal);
  expect(privateMessage(ann).text).toBe('Nothing is waiting for you here.');
  expect(fake.recordedRequests().filter((r) => r.path === '/v3/conversations')).toHaveLength(
    opened,
  );
});

it('PENDING-TEAMS-3 someone who never added the app is told how, and nothing of the cases is said', async () => {
  fake.withoutAppFor(dave.id);
  await deliver(say(dave, 'pending'));
  const reply = channelReplies().at(-1)!;
  expect(reply).toBe(
    'Your list of pending cases goes to a private chat with me, and I cannot open one with you yet: add hitl-relay for yourself (Apps in Teams), then ask again.',
  );
  expect(fake.personalChatOf(dave.id)).toBeUndefined();
  expect(logLines.join('\n')).toMatch(/teams \/pending: the private chat could not be opened/);
});
