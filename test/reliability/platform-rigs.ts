/**
 * Each platform's real adapter against its fake, with the fake at hand so tests can make it fail
 * (429 with and without Retry-After, 5xx, error answers) and read back every card on the target.
 */

import { createSlackAdapter } from '../../platforms/slack/index.ts';
import { createTeamsAdapter } from '../../platforms/teams/index.ts';
import { conversationKey } from '../../platforms/teams/parse.ts';
import { createTelegramAdapter } from '../../platforms/telegram/index.ts';
import { parseCallbackData } from '../../platforms/telegram/parse.ts';
import type { PlatformAdapter } from '../../src/adapter.ts';
import type { SeenMessage } from '../contract/harness.ts';
import { FakeSlack } from '../fakes/slack-api.ts';
import { adaptiveCardOf, FakeTeamsConnector } from '../fakes/teams-connector.ts';
import { FakeTelegramApi } from '../fakes/telegram-api.ts';
import { seen as discordSeen, makeDiscordHarnessWith } from '../platforms/discord/harness.ts';
import { SLACK_TEST_BOT_TOKEN, SLACK_TEST_SIGNING_SECRET } from '../platforms/slack/harness.ts';
import { seenCard } from '../platforms/teams/harness.ts';
import {
  channelId,
  installActivity,
  instantClock,
  testConfig,
} from '../platforms/teams/helpers.ts';

/** A platform whose fake can be told to fail. */
export interface PlatformRig {
  name: string;
  adapter: PlatformAdapter;
  target: string;
  /** The next `count` posts fail (`kind` picks how, where the fake can do it). */
  failPosts(count: number, kind: RigFault): void;
  /** The next `count` edits fail. */
  failEdits(count: number, kind: RigFault): void;
  /** What the faults of this platform can be. */
  faults: RigFault[];
  /** Every card on the target, oldest first. */
  cards(): SeenMessage[];
  attach?(relayUrl: string): Promise<void>;
  close(): Promise<void>;
}

/** How a fake platform call fails. */
export type RigFault = '429' | '429_no_retry_after' | '5xx' | 'error';

const TELEGRAM_CHAT = -1009876543210;

async function telegramRig(): Promise<PlatformRig> {
  const fake = await FakeTelegramApi.start();
  const adapter = createTelegramAdapter({
    botToken: fake.token,
    apiRoot: fake.apiRoot,
    botInfo: fake.botInfo,
    pace: { perChatIntervalMs: 1, groupWindowMs: 5, globalWindowMs: 1 },
    retry: { retryAfterUnitMs: 1 },
    pollingTimeoutSeconds: 1,
  });
  return {
    name: 'telegram',
    adapter,
    target: `telegram:${TELEGRAM_CHAT}`,
    faults: ['429'],
    failPosts: (n) => fake.inject429('sendMessage', n, 1),
    failEdits: (n) => fake.inject429('editMessageText', n, 1),
    cards: () =>
      fake.messages(TELEGRAM_CHAT).map(({ message }) => {
        const buttons = (message.reply_markup?.inline_keyboard ?? []).flat();
        const actions: string[] = [];
        let link: string | null = null;
        for (const b of buttons) {
          if ('callback_data' in b) actions.push(parseCallbackData(b.callback_data)?.action ?? '?');
          else if ('url' in b) link = b.url;
        }
        return { text: message.text ?? '', actions, link };
      }),
    async close() {
      await adapter.stop();
      await fake.close();
    },
  };
}

const SLACK_CHANNEL = 'C0FAULTS01';

async function slackRig(): Promise<PlatformRig> {
  const fake = await FakeSlack.start({ botToken: SLACK_TEST_BOT_TOKEN });
  const adapter = createSlackAdapter(
    {
      botToken: SLACK_TEST_BOT_TOKEN,
      signingSecret: SLACK_TEST_SIGNING_SECRET,
      apiUrl: fake.apiUrl,
      mode: 'http',
      botId: fake.botId,
      botUserId: fake.botUserId,
    },
    { retryConfig: { retries: 0 } },
  );
  const fail = (method: string, n: number, kind: RigFault) =>
    kind === '429' ? fake.rateLimit(method, n, 1) : fake.fail(method, 'internal_error', n);
  return {
    name: 'slack',
    adapter,
    target: `slack:${SLACK_CHANNEL}`,
    faults: ['429', 'error'],
    failPosts: (n, kind) => fail('chat.postMessage', n, kind),
    failEdits: (n, kind) => fail('chat.update', n, kind),
    cards: () =>
      fake
        .messages(SLACK_CHANNEL)
        .filter((m) => m.blocks.length > 0)
        .map((m) => {
          const actions: string[] = [];
          let link: string | null = null;
          for (const block of m.blocks) {
            if (block.type !== 'actions' || !Array.isArray(block.elements)) continue;
            for (const el of block.elements as Record<string, unknown>[]) {
              if (typeof el.url === 'string') link = el.url;
              else if (typeof el.value === 'string') actions.push(el.value.split(':').at(-1) ?? '');
            }
          }
          return { text: m.text, actions, link };
        }),
    async close() {
      await adapter.stop();
      await fake.close();
    },
  };
}

async function discordRig(): Promise<PlatformRig> {
  const h = await makeDiscordHarnessWith();
  const channel = h.target.slice('discord:'.length);
  return {
    name: 'discord',
    adapter: h.adapter,
    target: h.target,
    faults: ['429'],
    failPosts: (n) => h.fake.rateLimitNext(n, { retryAfter: 0.05, match: /^POST \/channels\// }),
    failEdits: (n) => h.fake.rateLimitNext(n, { retryAfter: 0.05, match: /^PATCH \/channels\// }),
    cards: () => h.fake.messages(channel).map(discordSeen),
    close: () => h.close(),
  };
}

async function teamsRig(): Promise<PlatformRig> {
  const fake = await FakeTeamsConnector.start();
  const conversationId = channelId();
  const adapter = createTeamsAdapter(testConfig(), instantClock());
  const fail = (n: number, kind: RigFault) =>
    kind === '5xx'
      ? fake.failNext(n, 502)
      : kind === '429'
        ? fake.failNext(n, 429, 1)
        : fake.failNext(n, 429);
  return {
    name: 'teams',
    adapter,
    target: `teams:${conversationKey(conversationId)}`,
    faults: ['429', '429_no_retry_after', '5xx'],
    failPosts: fail,
    failEdits: fail,
    cards: () =>
      fake
        .conversation(conversationId)
        .filter((a) => a.replyToId === null && adaptiveCardOf(a.versions[0]))
        .map((a) => seenCard(fake.card(a.id))),
    async attach(relayUrl) {
      const res = await fetch(`${relayUrl}/api/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(installActivity(fake.serviceUrl, conversationId)),
      });
      if (res.status !== 200) throw new Error(`the relay answered the install with ${res.status}`);
    },
    async close() {
      await adapter.stop();
      await fake.close();
    },
  };
}

/** One rig per chat platform. */
export async function makePlatformRigs(): Promise<PlatformRig[]> {
  return [await telegramRig(), await slackRig(), await discordRig(), await teamsRig()];
}
