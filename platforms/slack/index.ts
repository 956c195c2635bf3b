/**
 * The Slack adapter: Block Kit cards posted with chat.postMessage and edited with chat.update,
 * button taps through Bolt (signed HTTP requests served by the relay, or Socket Mode), answers to
 * a person shown with chat.postEphemeral.
 */
import { App, type Receiver } from '@slack/bolt';
import type { RetryOptions } from '@slack/web-api';
import type {
  AdapterContext,
  AdapterStrings,
  HttpRoute,
  MessageRef,
  PlatformAdapter,
  PostOptions,
  TapReply,
} from '../../src/adapter.ts';
import { firstDelivery, stringsOf } from '../../src/adapter-kit.ts';
import { PlatformError } from '../../src/errors.ts';
import { type Logger, registerSecret } from '../../src/log.ts';
import type { Card } from '../../src/render/card.ts';
import { SlackApi, type SlackPace, type SlackRateLimitPolicy, sleep } from './api.ts';
import { handleModalSubmit, type ModalAck, openAskModal, rememberAsk } from './ask-flow.ts';
import { openRequest } from './ask-modal.ts';
import type { SlackConfig } from './config.ts';
import { toPlatformError } from './errors.ts';
import { messageRef, parseBlockActions, splitRef, targetAnswer } from './parse.ts';
import { parsePendingSlash, pendingAnswer, pendingMore, type SlackPermalink } from './pending.ts';
import { pendingBulk } from './pending-bulk.ts';
import { repostPress } from './pending-repost.ts';
import { SLACK_EVENTS_PATH, SlackHttpReceiver } from './receiver.ts';
import { fitText, renderCard, renderNotice, SLACK_SECTION_TEXT_MAX_CHARS } from './render.ts';
import { slackLogger } from './slack-logger.ts';
import { createSocketReceiver, type SlackSocketOptions } from './socket.ts';
import { UserNames } from './users.ts';

export type { SlackConfig } from './config.ts';
export { readSlackConfig, SLACK_ENV_VARS } from './config.ts';
export { SLACK_EVENTS_PATH } from './receiver.ts';

/** Knobs for tests and operators; every one has a production default. */
export interface SlackAdapterOptions {
  /** 429 handling for postMessage, update and the rest (default: 3 retries, waits up to 30 s). */
  rateLimit?: Partial<SlackRateLimitPolicy>;
  /** SDK retries of network failures and 5xx (default: 2 retries within about 3 s). */
  retryConfig?: RetryOptions;
  /** Per-request timeout in ms (default 10 s). */
  timeoutMs?: number;
  /** The clock for signature timestamps and the name cache. */
  now?: () => number;
  /** Send pace (default: Slack's documented limits, SLACK_DEFAULT_PACE). */
  pace?: SlackPace;
  /** Socket Mode connection knobs (tests shorten the reconnect delay). */
  socket?: SlackSocketOptions;
}

/**
 * How long a tap's trigger_id is remembered. Slack sends an unacknowledged payload again (HTTP
 * retries, or a Socket Mode envelope after a reconnect) within minutes; each is handled once.
 */
export const SLACK_INTERACTION_TTL_MS = 30 * 60_000;

/** `/pending`'s card links: chat.getPermalink of each card's message. */
const permalinkOf =
  (running: { api: SlackApi }): SlackPermalink =>
  async (card) => {
    const at = splitRef(card);
    return at ? running.api.permalink(at.channel, at.ts) : null;
  };

interface Running {
  api: SlackApi;
  app: App;
  httpReceiver: SlackHttpReceiver | undefined;
  names: UserNames;
  ctx: AdapterContext;
  log: Logger;
}

/** The Slack PlatformAdapter. `idle()` (beyond the contract) lets tests wait for tap work. */
export class SlackAdapter implements PlatformAdapter {
  readonly platform = 'slack';
  readonly credentialEnv = 'SLACK_BOT_TOKEN';
  readonly routes: HttpRoute[];
  private running: Running | undefined;
  private readonly now: () => number;
  private readonly inflight = new Set<Promise<void>>();

  constructor(
    private readonly config: SlackConfig,
    private readonly options: SlackAdapterOptions = {},
  ) {
    registerSecret(config.botToken);
    registerSecret(config.signingSecret);
    registerSecret(config.appToken);
    if (config.mode === 'http' && !config.signingSecret) {
      throw new Error('Slack HTTP mode needs a signing secret');
    }
    if (config.mode === 'socket' && !config.appToken) {
      throw new Error('Slack Socket Mode needs an app-level token');
    }
    this.now = options.now ?? Date.now;
    this.routes =
      config.mode === 'http'
        ? [
            {
              method: 'POST',
              path: SLACK_EVENTS_PATH,
              handle: async (req) =>
                this.running?.httpReceiver
                  ? this.running.httpReceiver.handle(req)
                  : { status: 503, body: { error: 'not_ready' } },
            },
          ]
        : [];
  }

  async start(ctx: AdapterContext): Promise<void> {
    if (this.running) throw new Error('slack adapter already started');
    const log = ctx.log.child({ platform: 'slack' });
    const api = this.makeApi(log);
    // Bolt would call auth.test itself (token in the request body); we ask once, token in the header.
    const ids =
      this.config.botId && this.config.botUserId
        ? { botId: this.config.botId, botUserId: this.config.botUserId }
        : await api.authTest();
    const logger = slackLogger(log);
    const httpReceiver =
      this.config.mode === 'http'
        ? new SlackHttpReceiver(this.config.signingSecret!, log, this.now)
        : undefined;
    const app = this.makeApp(ids, httpReceiver ?? this.socketReceiver(logger), logger);
    app.error(async (err) => {
      log.error({ err }, 'slack listener failed');
    });
    const names = new UserNames((user) => api.displayName(user), log, this.now);
    const running: Running = { api, app, httpReceiver, names, ctx, log };
    this.listen(running);
    this.running = running;
    try {
      await app.start();
    } catch (err) {
      this.running = undefined;
      // Socket Mode opens its connection here (apps.connections.open with the app token).
      throw toPlatformError(err, this.config.mode === 'socket' ? 'apps.connections.open' : 'start');
    }
    log.info({ mode: this.config.mode, botUserId: ids.botUserId }, 'slack adapter started');
  }

  private retryConfig(): RetryOptions {
    return this.options.retryConfig ?? { retries: 2, minTimeout: 500, maxTimeout: 2000 };
  }

  private makeApi(log: Logger): SlackApi {
    return new SlackApi({
      botToken: this.config.botToken,
      ...(this.config.apiUrl ? { apiUrl: this.config.apiUrl } : {}),
      log,
      rateLimit: { maxRetries: 3, maxWaitMs: 30_000, sleep, ...this.options.rateLimit },
      retryConfig: this.retryConfig(),
      timeoutMs: this.options.timeoutMs ?? 10_000,
      ...(this.options.pace ? { pace: this.options.pace } : {}),
    });
  }

  private socketReceiver(logger: ReturnType<typeof slackLogger>): Receiver {
    return createSocketReceiver({
      appToken: this.config.appToken!,
      logger,
      ...(this.config.apiUrl ? { apiUrl: this.config.apiUrl } : {}),
      ...(this.options.socket ? { options: this.options.socket } : {}),
    });
  }

  private makeApp(
    ids: { botId: string; botUserId: string },
    receiver: Receiver,
    logger: ReturnType<typeof slackLogger>,
  ): App {
    return new App({
      token: this.config.botToken,
      botId: ids.botId,
      botUserId: ids.botUserId,
      tokenVerificationEnabled: false,
      receiver,
      logger,
      convoStore: false,
      clientOptions: {
        ...(this.config.apiUrl ? { slackApiUrl: this.config.apiUrl } : {}),
        rejectRateLimitedCalls: true,
        retryConfig: this.retryConfig(),
      },
    });
  }

  /** Taps, ask modals and `/hitl` on the app. */
  private listen(running: Running): void {
    const { app } = running;
    // Every button tap is acknowledged first (Slack waits 3 s), URL buttons included; then the work.
    app.action(/.*/, async ({ ack, body, respond }) => {
      await ack();
      // A `/pending` list's "More": the next page replaces the ephemeral list (response_url).
      // Or a list's "Re-post": a new ephemeral note says what became of it.
      const more =
        (await pendingMore(running.ctx, body, permalinkOf(running))) ??
        (await repostPress(running.ctx, body)) ??
        (await pendingBulk(running.ctx, body));
      if (more) {
        const sent = respond(more).then(
          () => {},
          (err: unknown) => running.log.warn({ err }, 'slack /pending page not delivered'),
        );
        return this.track(sent);
      }
      await this.track(this.handleAction(running, body));
    });
    // An ask modal's submission is acknowledged with its outcome: errors keep the modal open.
    app.view(/^hitl-ask:/, async ({ ack, body, view }) =>
      handleModalSubmit(running, ack as ModalAck, body, view),
    );
    // `/pending [mine]` (or `/hitl pending`) lists, to that person only, what waits for them here;
    // `/hitl` (any other text) answers, to that person only, with this channel's target string.
    app.command(/.*/, async ({ ack, command }) => {
      const pending = parsePendingSlash(command.command, command.text);
      if (pending)
        return ack(
          await pendingAnswer(
            running.ctx,
            command.channel_id,
            command.user_id,
            pending.mine,
            permalinkOf(running),
          ),
        );
      await ack({
        response_type: 'ephemeral',
        text: targetAnswer(command.channel_id, running.ctx.strings),
      });
    });
  }

  async stop(): Promise<void> {
    const running = this.running;
    if (!running) return;
    this.running = undefined;
    running.api.close();
    await running.app.stop();
  }

  /** Resolves when no acknowledged tap is still being handled (either mode). */
  async idle(): Promise<void> {
    await this.running?.httpReceiver?.idle();
    while (this.inflight.size > 0) await Promise.allSettled([...this.inflight]);
  }

  private track(work: Promise<void>): Promise<void> {
    this.inflight.add(work);
    void work.finally(() => this.inflight.delete(work)).catch(() => {});
    return work;
  }

  async post(address: string, card: Card, options?: PostOptions): Promise<MessageRef> {
    const { api } = this.ready('chat.postMessage');
    const message = render(card, 'chat.postMessage', this.running?.ctx.strings);
    await rememberAsk(this.running, card);
    const parent = options?.replyTo ? splitRef(options.replyTo) : null;
    const posted = await api.postMessage({
      channel: address,
      text: message.text,
      blocks: message.blocks,
      ...(message.attachments ? { attachments: message.attachments } : {}),
      ...(parent && parent.channel === address ? { threadTs: parent.ts } : {}),
    });
    return messageRef(posted.channel, posted.ts);
  }

  async update(ref: MessageRef, card: Card): Promise<void> {
    const { api } = this.ready('chat.update');
    const at = refOrThrow(ref, 'chat.update');
    const message = render(card, 'chat.update', this.running?.ctx.strings);
    await rememberAsk(this.running, card);
    await api.update({
      channel: at.channel,
      ts: at.ts,
      text: message.text,
      blocks: message.blocks,
      ...(message.attachments ? { attachments: message.attachments } : {}),
    });
  }

  async notify(
    ref: MessageRef,
    text: string,
    link: { label: string; url: string } | null,
  ): Promise<void> {
    const { api } = this.ready('chat.postMessage');
    const at = refOrThrow(ref, 'chat.postMessage');
    const notice = renderNotice(text, link);
    await api.postMessage({ channel: at.channel, threadTs: at.ts, ...notice });
  }

  private ready(call: string): Running {
    if (!this.running) throw new PlatformError('slack', call, 'network', 'adapter not started');
    return this.running;
  }

  /** A tap: name the person (users.info, cached), ask the relay, tell that person if it failed. */
  private async handleAction(running: Running, body: unknown): Promise<void> {
    const open = openRequest(body);
    if (open) return openAskModal(running, open);
    const parsed = parseBlockActions(body);
    if (parsed.kind !== 'tap') return;
    // One interaction has one trigger_id, the same in every retry of it: handle it once.
    const trigger = (body as { trigger_id?: unknown }).trigger_id;
    if (
      typeof trigger === 'string' &&
      trigger &&
      !(await firstDelivery(
        running.ctx.kv,
        `slack:interaction:${trigger}`,
        SLACK_INTERACTION_TTL_MS,
      ))
    ) {
      running.log.info({ key: parsed.tap.key }, 'slack tap delivered again; already handled');
      return;
    }
    const { tap, channel } = parsed;
    const name = await running.names.name(tap.user.id, tap.user.name);
    tap.user = name ? { id: tap.user.id, name } : { id: tap.user.id };
    let reply: TapReply;
    try {
      reply = await running.ctx.onTap(tap);
    } catch (err) {
      running.log.error({ err, key: tap.key, action: tap.action }, 'slack tap failed in the relay');
      reply = { outcome: 'failed', text: stringsOf(running.ctx).tapFailed, card: null };
    }
    // A submitted tap shows in the card itself (the relay updates it); anything else is said
    // to that person only. confirm_required is said too: it tells them to tap again.
    if (reply.outcome === 'submitted' || !reply.text.trim() || !channel) return;
    try {
      await running.api.postEphemeral({
        channel,
        user: tap.user.id,
        text: fitText(reply.text, SLACK_SECTION_TEXT_MAX_CHARS),
      });
    } catch (err) {
      running.log.warn({ err, outcome: reply.outcome }, 'slack ephemeral answer failed');
    }
  }
}

/** Creates the Slack adapter (not started). */
export function createSlackAdapter(
  config: SlackConfig,
  options?: SlackAdapterOptions,
): SlackAdapter {
  return new SlackAdapter(config, options);
}

function render(card: Card, call: string, strings: AdapterStrings | undefined) {
  try {
    return renderCard(card, strings);
  } catch (err) {
    throw new PlatformError('slack', call, 'bad_request', (err as Error).message, { cause: err });
  }
}

function refOrThrow(ref: MessageRef, call: string): { channel: string; ts: string } {
  const at = splitRef(ref);
  if (!at) throw new PlatformError('slack', call, 'bad_request', 'not a Slack message reference');
  return at;
}
