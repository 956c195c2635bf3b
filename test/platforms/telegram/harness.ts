/** Telegram for the shared adapter contract suite, in long polling and in webhook mode. */
import { randomBytes } from 'node:crypto';
import type { User } from 'grammy/types';
import { createTelegramAdapter } from '../../../platforms/telegram/index.ts';
import { parseCallbackData, parseMessageRef } from '../../../platforms/telegram/parse.ts';
import type { MessageRef, TapUser } from '../../../src/adapter.ts';
import type { AdapterHarness, MakeHarness, SeenMessage } from '../../contract/harness.ts';
import { FakeTelegramApi, type StoredMessage } from '../../fakes/telegram-api.ts';

/** A supergroup, as most teams would use. */
const CHAT_ID = -1001234567890;
const WEBHOOK_PATH = '/telegram/webhook';
/** Where the chat moves when the world test migrates it. */
const MIGRATED_CHAT_ID = -1009876543210;

function stored(fake: FakeTelegramApi, ref: MessageRef): StoredMessage {
  const parsed = parseMessageRef(ref);
  const message = parsed ? fake.message(Number(parsed.chatId), parsed.messageId) : undefined;
  if (!message) throw new Error(`the fake holds no message ${ref.id}`);
  return message;
}

/** A Telegram user from a TapUser: "Ann Example" becomes first_name Ann, last_name Example. */
function telegramUser(user: TapUser): User {
  const [first, ...rest] = (user.name ?? 'Someone').split(' ');
  return {
    id: Number(user.id),
    is_bot: false,
    first_name: first || 'Someone',
    ...(rest.length > 0 ? { last_name: rest.join(' ') } : {}),
  };
}

async function makeHarness(mode: 'polling' | 'webhook'): Promise<AdapterHarness> {
  const fake = await FakeTelegramApi.start();
  const secret = randomBytes(24).toString('base64url');
  const adapter = createTelegramAdapter({
    botToken: fake.token,
    apiRoot: fake.apiRoot,
    botInfo: fake.botInfo,
    ...(mode === 'webhook'
      ? {
          webhookUrl: `https://relay.example${WEBHOOK_PATH}`,
          webhookSecret: secret,
          webhookPath: WEBHOOK_PATH,
        }
      : {}),
    // Tiny intervals so that tests never wait for real flood limits.
    pace: { perChatIntervalMs: 1, groupWindowMs: 5, globalWindowMs: 1 },
    retry: { retryAfterUnitMs: 1 },
    pollingTimeoutSeconds: 1,
  });

  return {
    adapter,
    target: `telegram:${CHAT_ID}`,
    world: {
      deleteMessage: (ref) => {
        const parsed = parseMessageRef(ref);
        if (parsed) fake.deleteMessage(Number(parsed.chatId), parsed.messageId);
      },
      removeBot: () => fake.kickBot(CHAT_ID),
      migrate: () => {
        fake.migrateChat(CHAT_ID, MIGRATED_CHAT_ID);
        return String(MIGRATED_CHAT_ID);
      },
    },
    users: {
      allowed: { id: '111222333', name: 'Ann Example' },
      stranger: { id: '666777888', name: 'Mallory' },
    },
    nativeConfirm: false,

    async read(ref: MessageRef): Promise<SeenMessage> {
      const message = stored(fake, ref);
      const buttons = (message.message.reply_markup?.inline_keyboard ?? []).flat();
      const actions: string[] = [];
      let link: string | null = null;
      for (const button of buttons) {
        if ('callback_data' in button) {
          const parsed = parseCallbackData(button.callback_data);
          if (parsed) actions.push(parsed.action);
        } else if ('url' in button && link === null) {
          link = button.url;
        }
      }
      return { text: message.sent, actions, link };
    },

    async messages(address: string): Promise<MessageRef[]> {
      return fake.messages(Number(address)).map(({ message }) => ({
        platform: 'telegram',
        address: String(message.chat.id),
        id: `${message.chat.id}:${message.message_id}`,
      }));
    },

    async tap({ ref, action, user, relayUrl }) {
      const message = stored(fake, ref);
      // The button as shown now, or as a client that has not seen the last edit still shows it.
      const current = (message.message.reply_markup?.inline_keyboard ?? [])
        .flat()
        .flatMap((b) => ('callback_data' in b ? [b.callback_data] : []));
      const data = [...current, ...message.everCallbackData].find(
        (candidate) => parseCallbackData(candidate)?.action === action,
      );
      if (!data) throw new Error(`message ${ref.id} never had a "${action}" button`);
      const update = fake.callbackQuery({
        chatId: message.message.chat.id,
        messageId: message.message.message_id,
        data,
        from: telegramUser(user),
      });
      const queryId = update.callback_query?.id as string;
      if (mode === 'polling') {
        fake.queueUpdate(update);
      } else {
        const res = await fake.deliverWebhook(update, { url: `${relayUrl}${WEBHOOK_PATH}` });
        if (res.status !== 200)
          throw new Error(`the relay answered the webhook with ${res.status}`);
      }
      const answer = await fake.waitForAnswer(queryId);
      // What the person sees: the toast, or in a group the ephemeral message tied to the query.
      const ephemeral = fake.ephemeralMessages().find((e) => e.callback_query_id === queryId);
      return { notice: answer.text ?? ephemeral?.text ?? null };
    },

    requests(): string[] {
      return fake.requests().map((request) => request.body);
    },

    async close(): Promise<void> {
      await adapter.stop();
      await fake.close();
    },
  };
}

/** Telegram with long polling (getUpdates). */
export const makeTelegramPollingHarness: MakeHarness = () => makeHarness('polling');

/** Telegram with a webhook (updates POSTed to the relay with the secret header). */
export const makeTelegramWebhookHarness: MakeHarness = () => makeHarness('webhook');
