/**
 * Teams' part of benchmark 1: the real adapter (botbuilder CloudAdapter, unauthenticated as in the
 * Teams tests) against the fake Bot Connector. The bot is installed with a real conversationUpdate;
 * a tap is an `adaptiveCard/action` invoke POSTed to /api/messages; the message shows the outcome
 * once the connector receives the PUT of that activity (updateActivity). The bare route submits,
 * PUTs the edited card and answers the invoke with it.
 */
import { request } from 'undici';
import { createTeamsAdapter, TEAMS_MESSAGES_PATH } from '../../platforms/teams/index.ts';
import { conversationKey, parsePayload } from '../../platforms/teams/parse.ts';
import { adaptiveCardOf, FakeTeamsConnector } from '../../test/fakes/teams-connector.ts';
import {
  channelId,
  executeInvoke,
  installActivity,
  testConfig,
} from '../../test/platforms/teams/helpers.ts';
import type { BareChatCase } from './bare-chat.ts';
import { type ChatTapBench, type ChatTapDeps, caseIdIn, sampleOf } from './tap-chat.ts';

const USER = { id: '29:1ann-9e52142b5e5e4d7b', name: 'Ann Example' };
const CARD = 'application/vnd.microsoft.card.adaptive';

function card(text: string, verb: string | null): Record<string, unknown> {
  return {
    type: 'AdaptiveCard',
    version: '1.4',
    body: [{ type: 'TextBlock', text, wrap: true }],
    actions: verb ? [{ type: 'Action.Execute', title: 'Approve', verb, data: { hitl: verb } }] : [],
  };
}

const post = async (url: string, body: unknown) => {
  const res = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.body.text();
  return { status: res.statusCode, body: text ? JSON.parse(text) : undefined };
};

/** Starts the fake and the adapter (not started: the relay starts it). */
export async function teamsTapBench({ marks, bare }: ChatTapDeps): Promise<ChatTapBench> {
  const fake = await FakeTeamsConnector.start();
  fake.onRequest = (r) => {
    const m = /^\/v3\/conversations\/[^/]+\/activities\/([^/]+)$/.exec(r.path);
    if (r.method === 'PUT' && m) marks.mark(`edit:teams:${decodeURIComponent(m[1]!)}`);
  };
  const relayConversation = channelId();
  const bareConversation = channelId();
  const adapter = createTeamsAdapter(testConfig());
  const activities = new Map<string, { id: string; conversation: string; verb: string }>();
  const cases = new Map<string, BareChatCase>();
  const activityUrl = (conversation: string, id = '') =>
    `${fake.serviceUrl}v3/conversations/${encodeURIComponent(conversation)}/activities${id ? `/${encodeURIComponent(id)}` : ''}`;

  bare.route({
    path: TEAMS_MESSAGES_PATH,
    async handle(raw) {
      const a = JSON.parse(raw);
      const [, id = '', action = ''] = String(a.value?.action?.verb ?? '').split(':');
      const c = cases.get(id);
      if (a.type !== 'invoke' || !c) return { status: 200 };
      const done = await bare.submit(c, action, 'teams', a.from.id);
      const edited = card(done ? `${c.text}\n\nApproved by ${a.from.name}` : c.text, null);
      await bare.send('PUT', activityUrl(a.conversation.id, a.replyToId), {
        type: 'message',
        id: a.replyToId,
        attachments: [{ contentType: CARD, content: edited }],
      });
      return { status: 200, body: { statusCode: 200, type: CARD, value: edited } };
    },
  });

  return {
    name: 'teams',
    adapter,
    target: () => `teams:${conversationKey(relayConversation)}`,
    async attach(relayUrl) {
      const res = await post(
        `${relayUrl}${TEAMS_MESSAGES_PATH}`,
        installActivity(fake.serviceUrl, relayConversation),
      );
      if (res.status !== 200) throw new Error(`the relay answered the install with ${res.status}`);
    },
    async addBare(id, hitl) {
      cases.set(id, { submitUrl: hitl.submit_url!, token: hitl.submit_token!, text: hitl.prompt! });
      const verb = `hitl:${id}:approve`;
      const sent = await post(activityUrl(bareConversation), {
        type: 'message',
        attachments: [{ contentType: CARD, content: card(hitl.prompt!, verb) }],
      });
      activities.set(id, { id: sent.body.id, conversation: bareConversation, verb });
    },
    indexRelay() {
      for (const a of fake.conversation(relayConversation)) {
        const content = adaptiveCardOf(a.versions[0]);
        const id = a.replyToId === null && content ? caseIdIn(JSON.stringify(content)) : null;
        const verb = ((content?.actions ?? []) as Array<{ verb?: string }>)
          .map((x) => x.verb)
          .find((v) => parsePayload(v)?.action === 'approve');
        if (id && verb) activities.set(id, { id: a.id, conversation: relayConversation, verb });
      }
    },
    async tap(_side, id, url) {
      const target = activities.get(id)!;
      const invoke = executeInvoke(
        fake.serviceUrl,
        target.conversation,
        target.id,
        target.verb,
        USER,
      );
      const submitted = marks.wait(`submit:${id}`);
      const edited = marks.wait(`edit:teams:${target.id}`);
      const t0 = performance.now();
      const res = await post(`${url}${TEAMS_MESSAGES_PATH}`, invoke);
      const reply = performance.now();
      if (res.status !== 200) throw new Error(`teams tap on ${id} answered ${res.status}`);
      return sampleOf(t0, reply, submitted, edited);
    },
    close: () => fake.close(),
  };
}
