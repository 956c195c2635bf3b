/**
 * Microsoft Teams for the shared adapter contract suite: the real adapter (botbuilder CloudAdapter in
 * unauthenticated test mode) against the fake Bot Connector. `attach` installs the bot the way Teams
 * does, with a real conversationUpdate POSTed to the relay's /api/messages; a tap is a real
 * `adaptiveCard/action` invoke POSTed there, and its notice is the answer card's notice block.
 */
import { randomUUID } from 'node:crypto';
import { request } from 'undici';
import { createTeamsAdapter } from '../../../platforms/teams/index.ts';
import { conversationKey, parsePayload, teamsMessageRef } from '../../../platforms/teams/parse.ts';
import { TEAMS_NOTICE_BLOCK_ID } from '../../../platforms/teams/render.ts';
import type { MessageRef } from '../../../src/adapter.ts';
import type { AdapterHarness, MakeHarness, SeenMessage } from '../../contract/harness.ts';
import { adaptiveCardOf, FakeTeamsConnector } from '../../fakes/teams-connector.ts';
import { channelId, executeInvoke, installActivity, instantClock, testConfig } from './helpers.ts';

type Node = Record<string, unknown>;

/** What a person sees on an Adaptive Card: its text blocks, Execute actions and the OpenUrl link. */
export function seenCard(card: Node | undefined): SeenMessage {
  const lines: string[] = [];
  const walk = (nodes: unknown) => {
    if (!Array.isArray(nodes)) return;
    for (const node of nodes as Node[]) {
      if (node.type === 'TextBlock') lines.push(String(node.text));
      walk(node.items);
    }
  };
  walk(card?.body);
  const actions: string[] = [];
  let link: string | null = null;
  for (const action of (card?.actions ?? []) as Node[]) {
    if (action.type === 'Action.Execute') {
      const parsed = parsePayload((action.data as Node | undefined)?.hitl ?? action.verb);
      if (parsed) actions.push(parsed.action);
    } else if (action.type === 'Action.OpenUrl' && link === null) {
      link = String(action.url);
    }
  }
  return { text: lines.join('\n'), actions, link };
}

/** The notice an invoke answer showed the person: the notice block of the card, or the message. */
export function noticeOf(answer: unknown): string | null {
  const body = answer as { type?: string; value?: unknown } | undefined;
  if (body?.type === 'application/vnd.microsoft.activity.message') return String(body.value);
  const blocks = ((body?.value as Node | undefined)?.body ?? []) as Node[];
  const notice = blocks.find((b) => b.id === TEAMS_NOTICE_BLOCK_ID);
  return notice ? String(notice.text) : null;
}

async function postActivity(
  url: string,
  activity: Node,
): Promise<{ status: number; body: unknown }> {
  const res = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(activity),
  });
  const text = await res.body.text();
  return { status: res.statusCode, body: text ? JSON.parse(text) : undefined };
}

/** Builds the Teams harness: one team channel, a fake connector, the adapter in test mode. */
export const makeTeamsHarness: MakeHarness = async () => {
  const fake = await FakeTeamsConnector.start();
  const conversationId = channelId();
  const key = conversationKey(conversationId);
  const adapter = createTeamsAdapter(testConfig(), instantClock());
  const activityOf = (ref: MessageRef) => ref.id.slice(ref.id.indexOf(':') + 1);

  const harness: AdapterHarness = {
    adapter,
    target: `teams:${key}`,
    users: {
      allowed: { id: '29:1ann-9e52142b5e5e4d7b', name: 'Ann Example' },
      stranger: { id: '29:1mallory-08q2j2o3jc09', name: 'Mallory' },
    },
    nativeConfirm: false,
    answerWindowMs: 3000,
    world: {
      deleteMessage: (ref) => fake.deleteActivity(activityOf(ref)),
      removeBot: () => fake.removeBot(conversationId),
    },

    async attach(relayUrl: string) {
      const res = await postActivity(
        `${relayUrl}/api/messages`,
        installActivity(fake.serviceUrl, conversationId),
      );
      if (res.status !== 200) throw new Error(`the relay answered the install with ${res.status}`);
    },

    async read(ref: MessageRef): Promise<SeenMessage> {
      const card = fake.card(activityOf(ref));
      if (!card) throw new Error(`the fake holds no card ${ref.id}`);
      return seenCard(card);
    },

    /** Top-level card messages (the welcome and thread replies are not cases). */
    async messages(address: string): Promise<MessageRef[]> {
      if (address !== key) return [];
      return fake
        .conversation(conversationId)
        .filter((a) => a.replyToId === null && adaptiveCardOf(a.versions[0]))
        .map((a) => teamsMessageRef(key, a.id));
    },

    async tap({ ref, action, user, relayUrl }) {
      const activity = fake.activity(activityOf(ref));
      if (!activity) throw new Error(`the fake holds no message ${ref.id}`);
      // The button as shown now, or as a client that has not seen the last edit still shows it.
      const payload = [...activity.versions]
        .reverse()
        .flatMap((v) => ((adaptiveCardOf(v)?.actions ?? []) as Node[]).map((a) => a.verb))
        .find((verb) => parsePayload(verb)?.action === action);
      if (typeof payload !== 'string')
        throw new Error(`message ${ref.id} never had a "${action}" button`);
      const invoke = executeInvoke(
        fake.serviceUrl,
        conversationId,
        activity.id,
        payload,
        user,
        `f:${randomUUID()}`,
      );
      const started = performance.now();
      const res = await postActivity(`${relayUrl}/api/messages`, invoke);
      const answerMs = performance.now() - started;
      if (res.status !== 200) throw new Error(`the relay answered the invoke with ${res.status}`);
      return { notice: noticeOf(res.body), answerMs };
    },

    requests: () => fake.requests(),

    async close() {
      await adapter.stop();
      await fake.close();
    },
  };
  return harness;
};
