/** The grammY Bot wired for the relay: our API root, a send pace and bounded 429 retries. */
import { AsyncLocalStorage } from 'node:async_hooks';
import { Bot, type Transformer } from 'grammy';
import type { UserFromGetMe } from 'grammy/types';
import type { Logger } from '../../src/log.ts';
import type { SlotRequest } from '../../src/pace.ts';
import type { TelegramSendPace } from './pace.ts';

/**
 * The priority (and message key) of the API calls made inside `sendKind.run(...)`: the adapter
 * says what a call is for (a new card, a final edit, progress), the transformer below paces it so.
 */
export const sendKind = new AsyncLocalStorage<SlotRequest>();

/** An edit replaced by a later edit of the same message before its slot came: nothing was sent. */
const SUPERSEDED = { ok: true as const, result: true as const };

/** How 429 answers are retried before the caller sees PlatformError('rate_limited'). */
export interface TelegramRetryOptions {
  /** Retries after the first try. */
  maxRetries: number;
  /** A retry_after longer than this is not waited out inline; the caller gets rate_limited at once. */
  maxWaitMs: number;
  /** Milliseconds per second of retry_after (1000; tests pass 1 so nothing waits). */
  retryAfterUnitMs: number;
}

/** Three retries, and never more than a minute of waiting for one call. */
export const TELEGRAM_DEFAULT_RETRY: TelegramRetryOptions = {
  maxRetries: 3,
  maxWaitMs: 60_000,
  retryAfterUnitMs: 1000,
};

/** Calls that post or edit a chat's messages: they share the per-chat flood budget. */
const PACED_METHODS = new Set(['sendMessage', 'editMessageText', 'editMessageReplyMarkup']);

/**
 * A grammY API transformer: waits for the chat's send slot, and on 429 keeps the chat quiet for
 * retry_after and tries again (the same payload, so no update is lost), a bounded number of times.
 * After that the 429 answer goes back to grammY, which throws it as a GrammyError.
 */
export function paceAndRetry(
  pace: Pick<TelegramSendPace, 'slot' | 'hold'>,
  retry: TelegramRetryOptions,
  log: () => Logger | undefined,
): Transformer {
  return async (prev, method, payload, signal) => {
    if (!PACED_METHODS.has(method)) return prev(method, payload, signal);
    const chatId = String((payload as { chat_id?: string | number }).chat_id ?? '');
    // Outside a sendKind (a bare API call): a new message is high, an edit low and never merged.
    const kind = sendKind.getStore() ?? { priority: method === 'sendMessage' ? 'high' : 'low' };
    for (let attempt = 0; ; attempt++) {
      if (!(await pace.slot(chatId, kind))) return SUPERSEDED as never;
      const res = await prev(method, payload, signal);
      if (res.ok || res.error_code !== 429) return res;
      const retryAfter = res.parameters?.retry_after ?? 1;
      const waitMs = retryAfter * retry.retryAfterUnitMs;
      if (attempt >= retry.maxRetries || waitMs > retry.maxWaitMs) return res;
      log()?.warn(
        { call: method, chat_id: chatId, retry_after: retryAfter, attempt: attempt + 1 },
        'telegram rate limit; retrying after retry_after',
      );
      pace.hold(chatId, waitMs);
    }
  };
}

/** Options for building the bot. */
export interface BotOptions {
  token: string;
  apiRoot?: string;
  botInfo?: UserFromGetMe;
  pace: Pick<TelegramSendPace, 'slot' | 'hold'>;
  retry: TelegramRetryOptions;
  log: () => Logger | undefined;
}

/** Creates the grammY bot with our transformer installed (webhook contexts inherit it). */
export function createBot(options: BotOptions): Bot {
  const bot = new Bot(options.token, {
    ...(options.botInfo ? { botInfo: options.botInfo } : {}),
    client: {
      ...(options.apiRoot ? { apiRoot: options.apiRoot.replace(/\/+$/, '') } : {}),
      // Never put the URL (it holds the token) into error messages.
      sensitiveLogs: false,
    },
  });
  bot.api.config.use(paceAndRetry(options.pace, options.retry, options.log));
  return bot;
}
