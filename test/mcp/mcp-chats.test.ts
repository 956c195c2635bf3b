/**
 * MCP tools answered in Telegram and Slack (the fake Bot API with grammY long polling, the fake
 * Slack Web API with signed interactions): the person taps in their chat and the MCP call ends with
 * the typed answer and who answered there. A call the client cancels withdraws its ask: the status
 * is cancelled and the card is edited to say so.
 */
import type { Client } from '@modelcontextprotocol/client';
import type { InlineKeyboardButton, User } from 'grammy/types';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createSlackAdapter,
  SLACK_EVENTS_PATH,
  type SlackAdapter,
} from '../../platforms/slack/index.ts';
import { createTelegramAdapter } from '../../platforms/telegram/index.ts';
import { KINDS } from '../asks/fixtures.ts';
import { FakeSlack, type FakeSlackMessage } from '../fakes/slack-api.ts';
import {
  blockActionsPayload,
  interactionForm,
  signSlackRequest,
} from '../fakes/slack-interactions.ts';
import { FakeTelegramApi } from '../fakes/telegram-api.ts';
import { connectMcp, type Era, outputValidators, progressLines } from '../helpers/mcp-client.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';
import {
  SLACK_TEST_BOT_TOKEN,
  SLACK_TEST_CHANNEL,
  SLACK_TEST_SIGNING_SECRET,
} from '../platforms/slack/harness.ts';

const CHAT = -1001234567890;
const ANN: User = { id: 111222333, is_bot: false, first_name: 'Ann', last_name: 'Example' };
const BO = { id: 'U0BO', name: 'bo' };

let tg: FakeTelegramApi;
let slack: FakeSlack;
let slackAdapter: SlackAdapter;
let relay: RelayHandle;

beforeAll(async () => {
  tg = await FakeTelegramApi.start();
  slack = await FakeSlack.start({ botToken: SLACK_TEST_BOT_TOKEN });
  slack.addUser({ id: BO.id, name: 'bo', realName: 'Bo Example', displayName: 'Bo' });
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
  const telegram = createTelegramAdapter({
    botToken: tg.token,
    apiRoot: tg.apiRoot,
    botInfo: tg.botInfo,
    pace: { perChatIntervalMs: 1, groupWindowMs: 5, globalWindowMs: 1 },
    retry: { retryAfterUnitMs: 1 },
    pollingTimeoutSeconds: 1,
    tapAnswerWaitMs: 10_000,
  });
  relay = await startRelay({ adapters: [telegram, slackAdapter] });
});
afterAll(async () => {
  await relay?.stop();
  await tg?.close();
  await slack?.close();
});

const strip = (c: Record<string, unknown>) => {
  const { type: _t, sub_type: _s, ...rest } = c;
  return JSON.parse(JSON.stringify(rest, (_k, v) => (v === null ? undefined : v)));
};

type Button = InlineKeyboardButton.CallbackButton;
const tgButtons = (messageId: number): Button[] =>
  (tg.message(CHAT, messageId)?.message.reply_markup?.inline_keyboard ?? [])
    .flat()
    .filter((b): b is Button => 'callback_data' in b);

async function tgTap(messageId: number, op: string) {
  const data = tgButtons(messageId).find((b) => b.callback_data.endsWith(op))!.callback_data;
  const u = tg.queueUpdate(tg.callbackQuery({ chatId: CHAT, messageId, data, from: ANN }) as never);
  return tg.waitForAnswer(u.callback_query!.id);
}

const slackCards = (): FakeSlackMessage[] =>
  slack.messages(SLACK_TEST_CHANNEL).filter((m) => m.blocks.length > 0);

/** Bo picks `value` in the newest Slack card's select and presses its Submit button. */
async function slackSelect(value: string): Promise<void> {
  const message = slackCards().at(-1)!;
  const block = message.blocks.find((b) => String(b.block_id ?? '').startsWith('hitl-ask-'))!;
  const elements = block.elements as Array<Record<string, any>>;
  const button = elements.find((e) => e.type === 'button')!;
  const select = elements.find((e) => e.type === 'static_select')!;
  const option = { text: { type: 'plain_text', text: value }, value };
  const payload = blockActionsPayload({
    fake: slack,
    message,
    button,
    blockId: String(block.block_id),
    user: BO,
  });
  payload.state = {
    values: {
      [String(block.block_id)]: {
        [select.action_id]: { type: select.type, selected_option: option },
      },
    },
  };
  const body = interactionForm(payload);
  const res = await fetch(`${relay.url}${SLACK_EVENTS_PATH}`, {
    method: 'POST',
    headers: signSlackRequest(SLACK_TEST_SIGNING_SECRET, body),
    body,
  });
  await res.arrayBuffer();
  await slackAdapter.idle();
}

describe.each<Era>(['modern', 'legacy'])('%s client', (era) => {
  let client: Client;
  let check: Awaited<ReturnType<typeof outputValidators>>['check'];
  beforeAll(async () => {
    client = await connectMcp(`${relay.url}/mcp`, { era });
    ({ check } = await outputValidators(client));
  });
  afterAll(async () => {
    await client?.close();
  });

  it('ask_approval answered with a tap in Telegram', async () => {
    const before = tg.messages(CHAT).length;
    const call = client.callTool({
      name: 'ask_approval',
      arguments: { ...strip(KINDS['approval.binary'].content), target: `telegram:${CHAT}` },
    });
    await eventually(async () => tg.messages(CHAT).length > before, 10_000, 'the card');
    await tgTap(tg.messages(CHAT).at(-1)!.message.message_id, ':c:0');
    const result = await call;
    expect(check('ask_approval', result.structuredContent)).toBeNull();
    expect(result.structuredContent).toMatchObject({
      status: 'completed',
      answer: { decision: 'approve' },
      answered_by: { platform: 'telegram', user_id: String(ANN.id) },
      platform: 'telegram',
    });
  });

  it('ask_choose_one answered with a native select in Slack', async () => {
    const before = slackCards().length;
    const call = client.callTool({
      name: 'ask_choose_one',
      arguments: {
        ...strip(KINDS['decision.single'].content),
        target: `slack:${SLACK_TEST_CHANNEL}`,
      },
    });
    await eventually(async () => slackCards().length > before, 10_000, 'the card');
    await slackSelect('staging');
    const result = await call;
    expect(check('ask_choose_one', result.structuredContent)).toBeNull();
    expect(result.structuredContent).toMatchObject({
      status: 'completed',
      answer: { selected: 'staging' },
      answered_by: { platform: 'slack', user_id: BO.id },
    });
  });

  it('a cancelled call withdraws its ask and the Slack card says so', async () => {
    const before = slackCards().length;
    const abort = new AbortController();
    const progress = progressLines();
    const call = client.callTool(
      {
        name: 'ask_approval',
        arguments: { prompt: `Deploy ${era}?`, target: `slack:${SLACK_TEST_CHANNEL}` },
      },
      {
        signal: abort.signal,
        onprogress: progress.onprogress,
      },
    );
    const askId = await eventually(
      async () => slackCards().length > before && progress.askId(),
      10_000,
      'the card',
    );
    const card = slackCards().at(-1)!;
    const ts = card.ts;
    expect(card.text).not.toContain('Cancelled');
    abort.abort('the user stopped the agent');
    await expect(call).rejects.toThrow();
    const ask = await eventually(
      async () => {
        const res = await request(`${relay.url}/v1/asks/${askId}`);
        const body = (await res.body.json()) as any;
        return body.status === 'cancelled' && body;
      },
      10_000,
      'the ask cancelled',
    );
    expect(ask.final).toBe(true);
    // The card is edited in place: it says why, and its answer buttons are gone.
    await eventually(
      async () => {
        const now = slack.messages(SLACK_TEST_CHANNEL).find((m) => m.ts === ts)!;
        return now.text.includes('the agent cancelled the request') && now;
      },
      10_000,
      'the card edited',
    );
    const now = slack.messages(SLACK_TEST_CHANNEL).find((m) => m.ts === ts)!;
    const buttons = now.blocks.flatMap((b) => (b.elements as any[] | undefined) ?? []);
    expect(buttons.filter((e) => e.type === 'button' && !e.url)).toEqual([]);
  });
});
