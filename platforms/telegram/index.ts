/** The Telegram adapter: cards as HTML messages with inline keyboards, taps as callback queries. */
import type { Bot } from 'grammy';
import type { UserFromGetMe } from 'grammy/types';
import type {
  AdapterContext,
  HttpRoute,
  MessageRef,
  PlatformAdapter,
  PostOptions,
} from '../../src/adapter.ts';
import { firstDelivery, stringsOf } from '../../src/adapter-kit.ts';
import { PlatformError, ValidationError } from '../../src/errors.ts';
import { registerSecret } from '../../src/log.ts';
import type { Card } from '../../src/render/card.ts';
import { createBot, sendKind, TELEGRAM_DEFAULT_RETRY, type TelegramRetryOptions } from './api.ts';
import { handleAskButton, handleAskReply } from './ask-flow.ts';
import { rememberAsk } from './ask-state.ts';
import { TELEGRAM_SECRET_TOKEN_PATTERN, type TelegramConfig } from './config.ts';
import { toPlatformError } from './errors.ts';
import { editCard, sendCard, sendNotice } from './messages.ts';
import { type PaceOptions, TelegramSendPace } from './pace.ts';
import { parseMessageRef, targetReply } from './parse.ts';
import { answerPendingCommand, answerPendingMore } from './pending.ts';
import { answerPendingBulk } from './pending-bulk.ts';
import { answerRepost } from './pending-repost.ts';
import { handleCallbackQuery, TELEGRAM_TAP_ANSWER_WAIT_MS } from './taps.ts';
import { TELEGRAM_DEFAULT_WEBHOOK_PATH, webhookRoute } from './webhook.ts';

export { readTelegramConfig, TELEGRAM_ENV_VARS, type TelegramConfig } from './config.ts';

/** The update types the relay uses: commands (messages, channel posts) and button taps. */
const ALLOWED_UPDATES = ['message', 'channel_post', 'callback_query'] as const;
/** How long an update being handled blocks its re-sends (longer than a tap's submit can take). */
const UPDATE_HANDLING_TTL_MS = 90_000;
/** Telegram keeps an unanswered update for up to 24 hours, so remember handled ids that long. */
const UPDATE_DEDUPE_TTL_MS = 24 * 60 * 60 * 1000;
/** A chat id (negative for groups and channels) or a public @channelusername. */
const CHAT_ADDRESS = /^(-?\d+|@[A-Za-z0-9_]{4,})$/;

/** Everything createTelegramAdapter accepts: the environment's settings plus knobs for tests. */
export interface TelegramAdapterOptions extends TelegramConfig {
  /** The bot's own getMe answer; skips the getMe call at start (tests). */
  botInfo?: UserFromGetMe;
  /** Path of the webhook route (webhook mode). Default /telegram/webhook. */
  webhookPath?: string;
  /** Send pace; tests pass tiny intervals. */
  pace?: Partial<PaceOptions>;
  /** 429 retries; tests pass retryAfterUnitMs: 1. */
  retry?: Partial<TelegramRetryOptions>;
  /** How long a tap waits for the relay's outcome before answering "Submitting…". */
  tapAnswerWaitMs?: number;
  /** getUpdates long-poll timeout in seconds (long polling mode). Default 30. */
  pollingTimeoutSeconds?: number;
}

/** Telegram as a PlatformAdapter. */
export class TelegramAdapter implements PlatformAdapter {
  readonly platform = 'telegram';
  readonly credentialEnv = 'TELEGRAM_BOT_TOKEN';
  readonly routes: HttpRoute[];
  private readonly bot: Bot;
  private readonly options: TelegramAdapterOptions;
  private pace: TelegramSendPace;
  private ctx: AdapterContext | null = null;
  private polling: Promise<void> | null = null;

  constructor(options: TelegramAdapterOptions) {
    registerSecret(options.botToken);
    registerSecret(options.webhookSecret);
    if (options.webhookUrl) {
      if (!options.webhookSecret || !TELEGRAM_SECRET_TOKEN_PATTERN.test(options.webhookSecret)) {
        throw new ValidationError('invalid_config', 'Telegram configuration', [
          {
            path: 'TELEGRAM_WEBHOOK_SECRET',
            message: 'webhook mode needs 1-256 characters of A-Z, a-z, 0-9, _ and -',
          },
        ]);
      }
    }
    this.options = options;
    this.pace = new TelegramSendPace(options.pace);
    this.bot = createBot({
      token: options.botToken,
      ...(options.apiRoot ? { apiRoot: options.apiRoot } : {}),
      ...(options.botInfo ? { botInfo: options.botInfo } : {}),
      pace: {
        slot: (chat, request) => this.pace.slot(chat, request),
        hold: (chat, ms) => this.pace.hold(chat, ms),
      },
      retry: { ...TELEGRAM_DEFAULT_RETRY, ...options.retry },
      log: () => this.ctx?.log,
    });
    this.installHandlers();
    const secret = options.webhookSecret;
    this.routes =
      options.webhookUrl && secret
        ? [
            webhookRoute({
              path: options.webhookPath ?? TELEGRAM_DEFAULT_WEBHOOK_PATH,
              secret,
              handle: (update) => this.bot.handleUpdate(update),
              running: () => this.ctx !== null && this.bot.isInited(),
              log: () => this.ctx?.log,
            }),
          ]
        : [];
  }

  /** True when updates arrive by webhook rather than long polling. */
  get webhookMode(): boolean {
    return Boolean(this.options.webhookUrl);
  }

  private installHandlers(): void {
    const bot = this.bot;
    bot.catch((err) => {
      this.ctx?.log.error(
        { err: err.error, update_id: err.ctx.update.update_id },
        'telegram update failed',
      );
    });
    // Telegram re-sends updates it thinks were not delivered (webhook retries, replicas): once each.
    // The key is first only a short "in progress" mark, so an update whose replica died mid-way is
    // handled again when Telegram re-sends it; once handled, it is remembered for the long TTL.
    bot.use(async (c, next) => {
      const kv = this.ctx?.kv;
      if (!kv) return;
      const key = `telegram:${c.me.id}:update:${c.update.update_id}`;
      if (!(await firstDelivery(kv, key, UPDATE_HANDLING_TTL_MS, 'handling'))) {
        this.ctx?.log.debug({ update_id: c.update.update_id }, 'telegram duplicate update skipped');
        return;
      }
      try {
        await next();
      } catch (err) {
        await kv.set(key, 'failed', 1);
        throw err;
      }
      await kv.set(key, 'done', UPDATE_DEDUPE_TTL_MS);
    });
    bot.command('pending', async (c) => {
      if (this.ctx) await answerPendingCommand(c, this.ctx);
    });
    bot.command(['hitl_id', 'start', 'hitl'], async (c) => {
      if (c.chat)
        await c.reply(targetReply(c.chat, this.ctx?.strings), {
          link_preview_options: { is_disabled: true },
        });
    });
    const waitMs = () => this.options.tapAnswerWaitMs ?? TELEGRAM_TAP_ANSWER_WAIT_MS;
    bot.on('callback_query', async (c, next) => {
      if (this.ctx && (await answerPendingMore(c, this.ctx))) return;
      if (this.ctx && (await answerRepost(c, this.ctx))) return;
      if (this.ctx && (await answerPendingBulk(c, this.ctx))) return;
      await next();
    });
    bot.on('callback_query', (c) => {
      const ctx = this.ctx;
      return handleCallbackQuery(c, {
        onTap: ctx ? (tap) => ctx.onTap(tap) : null,
        log: ctx?.log,
        waitMs: waitMs(),
        strings: ctx?.strings,
        ask: ctx ? (q, b) => handleAskButton(q, b, { api: bot.api, ctx, waitMs: waitMs() }) : null,
      });
    });
    // A reply to an ask's prompt (privacy mode lets replies to the bot's own messages through).
    bot.on('message:text', async (c, next) => {
      const ctx = this.ctx;
      if (!ctx || !(await handleAskReply(c, { api: bot.api, ctx, waitMs: waitMs() }))) await next();
    });
  }

  private async call<T>(name: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      throw toPlatformError(err, name);
    }
  }

  async start(ctx: AdapterContext): Promise<void> {
    this.ctx = ctx;
    this.pace.close();
    this.pace = new TelegramSendPace(this.options.pace);
    if (!this.bot.isInited()) {
      // One getMe of our own: fails fast on a bad token instead of grammY's endless retries.
      this.bot.botInfo = await this.call('getMe', () => this.bot.api.getMe());
    }
    const webhookUrl = this.options.webhookUrl;
    if (webhookUrl) {
      await this.call('setWebhook', () =>
        this.bot.api.setWebhook(webhookUrl, {
          secret_token: this.options.webhookSecret as string,
          allowed_updates: [...ALLOWED_UPDATES],
        }),
      );
      ctx.log.info({ bot: this.bot.botInfo.username, mode: 'webhook' }, 'telegram adapter started');
      return;
    }
    await new Promise<void>((resolve, reject) => {
      let started = false;
      this.polling = this.bot
        .start({
          allowed_updates: [...ALLOWED_UPDATES],
          timeout: this.options.pollingTimeoutSeconds ?? 30,
          onStart: () => {
            started = true;
            resolve();
          },
        })
        .catch((err: unknown) => {
          const error = toPlatformError(err, 'getUpdates');
          if (!started) return reject(error);
          // 409: another process polls with this token, or a webhook is set.
          ctx.log.error({ err: error }, 'telegram long polling stopped');
          ctx.reportDown?.(`long polling stopped: ${error.message}; restart after fixing it`);
        });
    });
    ctx.log.info({ bot: this.bot.botInfo.username, mode: 'polling' }, 'telegram adapter started');
  }

  async stop(): Promise<void> {
    if (this.bot.isRunning()) {
      try {
        await this.bot.stop();
      } catch (err) {
        this.ctx?.log.warn({ err: toPlatformError(err, 'getUpdates') }, 'telegram stop failed');
      }
    }
    await this.polling;
    this.polling = null;
    this.pace.close();
    this.ctx = null;
  }

  async checkAddress(address: string): Promise<string | null> {
    return CHAT_ADDRESS.test(address) ? null : 'the address is not a Telegram chat id';
  }

  async post(address: string, card: Card, options: PostOptions = {}): Promise<MessageRef> {
    if (!CHAT_ADDRESS.test(address)) {
      throw new PlatformError(
        'telegram',
        'sendMessage',
        'bad_request',
        'the address is not a Telegram chat id',
      );
    }
    const replyTo = options.replyTo ? parseMessageRef(options.replyTo) : null;
    await rememberAsk(this.ctx, card);
    // A new card goes before the chat's progress edits (it is what a person has to see).
    const sent = await sendKind.run({ priority: 'high' }, () =>
      sendCard(
        this.bot.api,
        address,
        card,
        replyTo && replyTo.chatId === address ? replyTo.messageId : null,
        this.ctx?.log,
        stringsOf(this.ctx).asks,
      ),
    );
    return {
      platform: this.platform,
      address: String(sent.chat.id),
      id: `${sent.chat.id}:${sent.message_id}`,
    };
  }

  private target(ref: MessageRef, call: string): { chatId: string; messageId: number } {
    const parsed = parseMessageRef(ref);
    if (!parsed)
      throw new PlatformError('telegram', call, 'bad_request', 'not a Telegram message ref');
    return parsed;
  }

  async update(ref: MessageRef, card: Card): Promise<void> {
    const { chatId, messageId } = this.target(ref, 'editMessageText');
    await rememberAsk(this.ctx, card);
    // A final edit goes first; any edit still waiting for its slot is replaced by this later one.
    const kind = { priority: card.final ? 'high' : 'low', key: `${chatId}:${messageId}` } as const;
    await sendKind.run(kind, () =>
      editCard(this.bot.api, chatId, messageId, card, this.ctx?.log, stringsOf(this.ctx).asks),
    );
  }

  async notify(
    ref: MessageRef,
    text: string,
    link: { label: string; url: string } | null,
  ): Promise<void> {
    const { chatId, messageId } = this.target(ref, 'sendMessage');
    await sendKind.run({ priority: 'low' }, () =>
      sendNotice(this.bot.api, chatId, messageId, text, link, this.ctx?.log),
    );
  }
}

/** Creates the Telegram adapter (long polling, or webhook when webhookUrl is set). */
export function createTelegramAdapter(config: TelegramAdapterOptions): TelegramAdapter {
  return new TelegramAdapter(config);
}
