/**
 * The acceptance of approval policies as written: two of three approvers across Slack and Telegram
 * (the real adapters against the fake Slack Web API and the fake Bot API; signed block_actions and
 * callback queries as the platforms send them). One person on both platforms counts once, the
 * requester's approve is refused, a reject vetoes, the service gets one submit only after the
 * second approval, and both cards show the tally and who may still approve.
 */
import type { User } from 'grammy/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createSlackAdapter,
  SLACK_EVENTS_PATH,
  type SlackAdapter,
} from '../../platforms/slack/index.ts';
import { createTelegramAdapter } from '../../platforms/telegram/index.ts';
import { FakeSlack, type FakeSlackMessage } from '../fakes/slack-api.ts';
import {
  blockActionsPayload,
  findButton,
  interactionForm,
  signSlackRequest,
} from '../fakes/slack-interactions.ts';
import { FakeTelegramApi } from '../fakes/telegram-api.ts';
import {
  type DemoHandle,
  eventually,
  type RelayHandle,
  startDemo,
  startRelay,
} from '../helpers/relay-env.ts';
import {
  SLACK_TEST_BOT_TOKEN,
  SLACK_TEST_CHANNEL,
  SLACK_TEST_SIGNING_SECRET,
  unescapeSlack,
} from '../platforms/slack/harness.ts';

const CHAT = -1001234567001;
let demo: DemoHandle;
let relay: RelayHandle;
let slack: FakeSlack;
let slackAdapter: SlackAdapter;
let telegram: FakeTelegramApi;

const annSlack = { id: 'U0ANN', name: 'Ann' };
const bobSlack = { id: 'U0BOB', name: 'Bob' };
const annTelegram: User = FakeTelegramApi.user(4242, 'Ann');
const carolTelegram: User = FakeTelegramApi.user(5151, 'Carol');

beforeAll(async () => {
  demo = await startDemo();
  slack = await FakeSlack.start({ botToken: SLACK_TEST_BOT_TOKEN });
  slack.addUser({ id: annSlack.id, name: 'ann', realName: 'Ann Example', displayName: 'Ann' });
  slack.addUser({ id: bobSlack.id, name: 'bob', realName: 'Bob Example', displayName: 'Bob' });
  slackAdapter = createSlackAdapter(
    {
      botToken: SLACK_TEST_BOT_TOKEN,
      signingSecret: SLACK_TEST_SIGNING_SECRET,
      apiUrl: slack.apiUrl,
      mode: 'http',
      botId: slack.botId,
      botUserId: slack.botUserId,
    },
    { retryConfig: { retries: 0 } },
  );
  telegram = await FakeTelegramApi.start();
  const telegramAdapter = createTelegramAdapter({
    botToken: telegram.token,
    apiRoot: telegram.apiRoot,
    botInfo: telegram.botInfo,
    pace: { perChatIntervalMs: 1, groupWindowMs: 5, globalWindowMs: 1 },
    retry: { retryAfterUnitMs: 1 },
    pollingTimeoutSeconds: 1,
  });
  relay = await startRelay({
    adapters: [slackAdapter, telegramAdapter],
    routes: {
      deploys: {
        targets: [`slack:${SLACK_TEST_CHANNEL}`, `telegram:${CHAT}`],
        policy: 'four-eyes',
      },
    },
    configFile: {
      policies: {
        'four-eyes': {
          required: 2,
          approvers: ['ann@example.com', 'bob@example.com', 'telegram:5151'],
        },
      },
      identities: {
        'ann@example.com': ['slack:U0ANN', 'telegram:4242'],
        'bob@example.com': ['slack:U0BOB'],
      },
    },
  });
});
afterAll(async () => {
  await relay?.stop();
  await slack?.close();
  await telegram?.close();
  await demo?.stop();
});

/** The Slack card of a case (its text carries the prompt, which names the release). */
function slackCard(marker: string): FakeSlackMessage | undefined {
  return slack
    .messages(SLACK_TEST_CHANNEL)
    .find((m) => m.blocks.length > 0 && JSON.stringify(m.blocks).includes(marker));
}
const slackText = (m: FakeSlackMessage) => unescapeSlack(JSON.stringify(m.blocks));

function telegramCard(marker: string) {
  return telegram.messages(CHAT).find((m) => m.message.text.includes(marker));
}

/** A signed block_actions tap on the card's `action` button; the relay's ephemeral answer. */
async function slackTap(marker: string, action: string, user: { id: string; name: string }) {
  const message = slackCard(marker);
  if (!message) throw new Error(`no Slack card for ${marker}`);
  const found = findButton(message, (b) => String(b.value ?? '').endsWith(`:${action}`));
  if (!found) throw new Error(`no ${action} button on ${marker}`);
  const body = interactionForm(blockActionsPayload({ fake: slack, message, ...found, user }));
  const before = slack.requests.length;
  const res = await fetch(`${relay.url}${SLACK_EVENTS_PATH}`, {
    method: 'POST',
    headers: signSlackRequest(SLACK_TEST_SIGNING_SECRET, body),
    body,
  });
  expect(res.status).toBe(200);
  await res.arrayBuffer();
  await slackAdapter.idle();
  const notice = slack.ephemerals.filter((e) => e.seq >= before && e.user === user.id).at(-1);
  return notice ? unescapeSlack(notice.text) : null;
}

/** A callback query on the Telegram card's `action` button; the toast the bot answered with. */
async function telegramTap(marker: string, action: string, from: User) {
  const card = telegramCard(marker);
  if (!card) throw new Error(`no Telegram card for ${marker}`);
  const data = card.everCallbackData.find((d) => d.endsWith(`:${action}`));
  if (!data) throw new Error(`no ${action} button on ${marker}`);
  const update = telegram.queueUpdate(
    telegram.callbackQuery({ chatId: CHAT, messageId: card.message.message_id, data, from }),
  );
  const id = update.callback_query!.id;
  const answer = await telegram.waitForAnswer(id);
  // In a group, refusals and "vote counted" are Bot API 10 ephemeral messages tied to the query.
  const ephemeral = telegram.ephemeralMessages().find((e) => e.callback_query_id === id);
  return answer.text ?? ephemeral?.text ?? '';
}

async function newCase(marker: string, requestedBy?: string) {
  const response = await demo.create('approval', true, { prompt: `${marker}: deploy it?` });
  const sent = await relay.send(
    'route:deploys',
    response,
    requestedBy ? { requested_by: requestedBy } : {},
  );
  expect(sent.status, JSON.stringify(sent.body)).toBe(201);
  await eventually(async () => slackCard(marker) && telegramCard(marker), 10_000, 'both cards');
  return { id: sent.body.id as string, caseId: response.hitl.case_id as string };
}

const submissionsFor = async (caseId: string) =>
  (await demo.submissions()).filter((s) => s.case_id === caseId);

const refusals = async (id: string) =>
  (await relay.get(id)).history
    .filter((h: any) => h.kind === 'vote_refused')
    .map((h: any) => [h.platform, h.user, h.reason]);

describe('approval policy across Slack and Telegram: two of three', () => {
  it('counts Ann once on both platforms, refuses the requester, submits once after the second approval', async () => {
    const { id, caseId } = await newCase('Release #1', 'slack:U0BOB');

    expect(await slackTap('Release #1', 'approve', annSlack)).toMatch(/vote is counted \(1 of 2\)/);
    // Both cards show the tally and who may still approve: not Ann (voted), not Bob (asked).
    const tally = '1 of 2 approvals: Ann (slack) · may still approve: telegram:5151';
    await eventually(
      async () =>
        slackText(slackCard('Release #1')!).includes(tally) &&
        telegramCard('Release #1')!.message.text.includes(tally),
      10_000,
      'the tally on both cards',
    );

    // Ann again, on Telegram: the same person.
    expect(await telegramTap('Release #1', 'approve', annTelegram)).toMatch(/already voted/);
    // Bob asked for it.
    expect(await slackTap('Release #1', 'approve', bobSlack)).toMatch(/someone else must approve/);
    expect(await refusals(id)).toEqual([
      ['telegram', '4242', 'already_voted'],
      ['slack', 'U0BOB', 'requester_may_not_approve'],
    ]);
    expect(await submissionsFor(caseId)).toEqual([]);

    // Carol on Telegram meets the policy: one submit, hers.
    expect(await telegramTap('Release #1', 'approve', carolTelegram)).toMatch(/approved/i);
    const subs = await submissionsFor(caseId);
    expect(subs).toHaveLength(1);
    expect(subs[0]!.body).toMatchObject({
      action: 'approve',
      submitted_via: 'telegram_inline_button',
      submitted_by: { platform: 'telegram', platform_user_id: '5151' },
    });
    const view = await relay.until(id, (c) => c.final);
    expect(view.status).toBe('completed');
    expect(view.policy.votes.map((v: any) => [v.identity, v.action])).toEqual([
      ['ann@example.com', 'approve'],
      ['telegram:5151', 'approve'],
    ]);
    // Both cards end with the final tally and no buttons.
    await eventually(
      async () => {
        const s = slackCard('Release #1')!;
        const t = telegramCard('Release #1')!;
        const final = '2 of 2 approvals: Ann (slack), Carol (telegram)';
        return (
          !findButton(s, (b) => String(b.value ?? '').startsWith('hitl:')) &&
          !(t.message.reply_markup?.inline_keyboard ?? [])
            .flat()
            .some((b) => 'callback_data' in b) &&
          slackText(s).includes(final) &&
          t.message.text.includes(final)
        );
      },
      10_000,
      'final cards',
    );
  });

  it('a reject on Slack after an approval on Telegram vetoes at once', async () => {
    const { id, caseId } = await newCase('Release #2');
    expect(await telegramTap('Release #2', 'approve', annTelegram)).toMatch(/1 of 2/);
    await slackTap('Release #2', 'reject', bobSlack);
    expect((await submissionsFor(caseId)).map((s) => [s.body.action, s.body.submitted_by])).toEqual(
      [['reject', { platform: 'slack', platform_user_id: 'U0BOB', display_name: 'Bob' }]],
    );
    const view = await relay.until(id, (c) => c.final);
    expect(view.result.action).toBe('reject');
    expect(view.history.filter((h: any) => h.kind === 'policy_met')).toHaveLength(1);
  });
});
