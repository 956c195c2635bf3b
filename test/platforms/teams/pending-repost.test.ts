/**
 * Issue 35, `/pending`'s "Re-post" on Teams (botbuilder CloudAdapter in test mode) against the fake
 * Bot Connector: a Re-post Action.Execute per item of the personal-chat list; its invoke posts the
 * card again in the channel and is answered with a message; the new card's buttons decide the case
 * and it takes the final edit; the old card is edited to say it moved. Someone who may not decide
 * gets nothing, a second press within 30 s is refused, an ended case is not re-posted.
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
const ann = { id: '29:1ann-5c2e8a1b7d3f', name: 'Ann Example' };
const mallory = { id: '29:1mallory-7a1c3e5b9d2f', name: 'Mallory' };
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

const cards = () =>
  fake.conversation(conversation).filter((a) => adaptiveCardOf(a.versions[0]) && !a.replyToId);
const seen = (id: string) =>
  JSON.stringify(
    adaptiveCardOf(
      fake
        .conversation(conversation)
        .find((a) => a.id === id)!
        .versions.at(-1),
    ),
  );

beforeAll(async () => {
  service = await startFastService();
  fake = await FakeTeamsConnector.start();
  adapter = createTeamsAdapter(testConfig(), instantClock());
  relay = await startRelay({
    adapters: [adapter],
    now: () => clock,
    allow: { [`teams:${key}`]: [ann.id] },
  });
  expect((await deliver(installActivity(fake.serviceUrl, conversation))).status).toBe(200);
});
afterAll(async () => {
  await relay?.stop();
  await adapter?.stop();
  await fake?.close();
  await service?.stop();
});

it('REPOST-TEAMS-1 Re-post: the new card decides, takes the final edit; the old one says it moved', async () => {
  const id = (await relay.send(`teams:${key}`, service.create('tm-rp-1'))).body.id as string;
  await eventually(async () => cards().length === 1, 10_000, 'the card');
  const old = cards()[0]!.id;
  const ask = mentionActivity(fake.serviceUrl, conversation, 'pending') as Node;
  ask.from = ann;
  ask.conversation.tenantId = TENANT;
  ask.channelData = { tenant: { id: TENANT }, channel: { id: conversation } };
  await deliver(ask);
  const chat = fake.personalChatOf(ann.id)!;
  const list = fake.conversation(chat).at(-1)!;
  const action = (adaptiveCardOf(list.versions.at(-1))!.actions as Node[]).find(
    (a) => a.title === 'Re-post 1',
  )!;
  const payload = action.data.hitl as string;
  expect(payload).toMatch(/^hitlr:/);
  const press = async (user: typeof ann) => {
    const r = await deliver(
      executeInvoke(fake.serviceUrl, chat, list.id, payload, user, `f:${randomUUID()}`),
    );
    expect(r.body.type).toBe('application/vnd.microsoft.activity.message');
    return r.body.value as string;
  };

  expect(await press(mallory)).toBe('You may not decide this case here; nothing was posted.');
  expect(cards()).toHaveLength(1);

  expect(await press(ann)).toMatch(/posted again/);
  expect(cards()).toHaveLength(2);
  const fresh = cards()[1]!.id;
  expect(seen(fresh)).toContain('tm-rp-1');
  expect(seen(old)).toContain('posted again further down');
  expect(seen(old)).not.toContain('"hitl:');

  expect(await press(ann)).toBe('This card was re-posted a moment ago; try again in 30 s.');
  expect(cards()).toHaveLength(2);

  const approve = /"(hitl:[^"]+:approve)"/.exec(seen(fresh))![1]!;
  await deliver(executeInvoke(fake.serviceUrl, conversation, fresh, approve, ann));
  await relay.until(id, (c) => c.final);
  await relay.relay.services.cards.settled(id);
  await eventually(async () => seen(fresh).includes('Approved'), 10_000, 'the final edit');
  expect(seen(old)).not.toContain('Approved');

  clock += 31_000;
  expect(await press(ann)).toBe('This case has ended (completed); nothing was posted.');
  expect(cards()).toHaveLength(2);
});
