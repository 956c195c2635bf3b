/**
 * Slack's part of benchmark 1: the real adapter in HTTP mode against the fake Web API. A tap is a
 * signed `block_actions` form POSTed to /slack/events (test/fakes/slack-interactions.ts); the
 * adapter acks at once and the card is edited with chat.update. The bare route checks the
 * signature, acks, submits and calls chat.update.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { request } from 'undici';
import { createSlackAdapter, SLACK_EVENTS_PATH } from '../../platforms/slack/index.ts';
import { FakeSlack, type FakeSlackMessage } from '../../test/fakes/slack-api.ts';
import {
  blockActionsPayload,
  findButton,
  interactionForm,
  signSlackRequest,
} from '../../test/fakes/slack-interactions.ts';
import type { BareChatCase } from './bare-chat.ts';
import { type ChatTapBench, type ChatTapDeps, caseIdIn, sampleOf } from './tap-chat.ts';

const TOKEN = 'xoxb-1111-2222-benchBotTokenForTaps';
const SECRET = 'benchSigningSecretForTaps0123456789';
const RELAY_CHANNEL = 'C0BENCHRELAY';
const BARE_CHANNEL = 'C0BENCHBARE';
const USER = { id: 'U0BENCHANN', name: 'Ann Example' };
// The fake has no rate limit here, so the adapter does not pace either (pacing is benchmark 4).
const NO_PACE = { postMessagePerChannel: [], update: [] };

/** Starts the fake and the adapter (not started: the relay starts it). */
export async function slackTapBench({ marks, bare }: ChatTapDeps): Promise<ChatTapBench> {
  const fake = await FakeSlack.start({ botToken: TOKEN });
  fake.addUser({ id: USER.id, name: 'ann', realName: USER.name, displayName: USER.name });
  // Not a limit: the hook sees every call as it arrives, which is when the edit landed.
  fake.setLimiter((method, f) => {
    if (method === 'chat.update') marks.mark(`edit:slack:${f.channel}:${f.ts}`);
    return null;
  });
  const adapter = createSlackAdapter(
    {
      botToken: TOKEN,
      signingSecret: SECRET,
      apiUrl: fake.apiUrl,
      mode: 'http',
      botId: fake.botId,
      botUserId: fake.botUserId,
    },
    { retryConfig: { retries: 0 }, pace: NO_PACE },
  );
  const messages = new Map<string, FakeSlackMessage>(); // service case id -> card
  const cases = new Map<string, BareChatCase>();

  bare.route({
    path: SLACK_EVENTS_PATH,
    async handle(raw, headers) {
      const ts = String(headers['x-slack-request-timestamp'] ?? '');
      const expected = `v0=${createHmac('sha256', SECRET).update(`v0:${ts}:${raw}`).digest('hex')}`;
      const got = Buffer.from(String(headers['x-slack-signature'] ?? ''));
      if (got.length !== expected.length || !timingSafeEqual(got, Buffer.from(expected)))
        return { status: 401 };
      const payload = JSON.parse(new URLSearchParams(raw).get('payload') ?? '{}');
      const [, id = '', action = ''] = String(payload.actions?.[0]?.value ?? '').split(':');
      const c = cases.get(id);
      if (!c) return { status: 200 };
      // Slack wants the ack within 3 s; the work follows it, as the adapter does.
      void (async () => {
        const done = await bare.submit(c, action, 'slack', payload.user.id);
        await bare.send(
          'POST',
          `${fake.apiUrl}chat.update`,
          {
            channel: payload.container.channel_id,
            ts: payload.container.message_ts,
            text: done ? `Approved by ${payload.user.name}` : c.text,
            blocks: [],
          },
          { authorization: `Bearer ${TOKEN}` },
        );
      })();
      return { status: 200 };
    },
  });

  return {
    name: 'slack',
    adapter,
    target: () => `slack:${RELAY_CHANNEL}`,
    attach: async () => {},
    async addBare(id, hitl) {
      cases.set(id, { submitUrl: hitl.submit_url!, token: hitl.submit_token!, text: hitl.prompt! });
      const sent = await bare.send(
        'POST',
        `${fake.apiUrl}chat.postMessage`,
        {
          channel: BARE_CHANNEL,
          text: hitl.prompt,
          blocks: [
            { type: 'section', text: { type: 'mrkdwn', text: hitl.prompt } },
            {
              type: 'actions',
              elements: [
                {
                  type: 'button',
                  action_id: 'approve',
                  text: { type: 'plain_text', text: 'Approve' },
                  value: `hitl:${id}:approve`,
                },
              ],
            },
          ],
        },
        { authorization: `Bearer ${TOKEN}` },
      );
      const ts = JSON.parse(sent.text).ts as string;
      messages.set(id, fake.message(BARE_CHANNEL, ts)!);
    },
    indexRelay() {
      for (const m of fake.messages(RELAY_CHANNEL)) {
        const id = caseIdIn(JSON.stringify(m.blocks));
        if (id && !m.threadTs) messages.set(id, m);
      }
    },
    async tap(_side, id, url) {
      const message = messages.get(id)!;
      const found = findButton(
        message,
        (b) => typeof b.value === 'string' && b.value.endsWith(':approve'),
      );
      if (!found) throw new Error(`slack card of ${id} has no approve button`);
      const body = interactionForm(blockActionsPayload({ fake, message, ...found, user: USER }));
      const headers = signSlackRequest(SECRET, body);
      const submitted = marks.wait(`submit:${id}`);
      const edited = marks.wait(`edit:slack:${message.channel}:${message.ts}`);
      const t0 = performance.now();
      const res = await request(`${url}${SLACK_EVENTS_PATH}`, { method: 'POST', headers, body });
      await res.body.text();
      const reply = performance.now();
      if (res.statusCode !== 200) throw new Error(`slack tap on ${id} answered ${res.statusCode}`);
      return sampleOf(t0, reply, submitted, edited);
    },
    close: () => fake.close(),
  };
}
