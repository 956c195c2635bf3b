/** The Discord adapter: messages with buttons over REST; taps by HTTP interactions or the gateway. */
import type {
  AdapterContext,
  HttpRoute,
  InboundRequest,
  InboundResponse,
  MessageRef,
  PlatformAdapter,
  PostOptions,
} from '../../src/adapter.ts';
import { PlatformError } from '../../src/errors.ts';
import type { Card, CardLink } from '../../src/render/card.ts';
import { DiscordApi, type DiscordCreateMessageBody } from './api.ts';
import { rememberAsk } from './ask-flow.ts';
import { DISCORD_SNOWFLAKE_PATTERN, type DiscordConfig } from './config.ts';
import type { DiscordGateway } from './gateway.ts';
import { InteractionFlow, logDeliveryFailure, type Respond } from './interactions.ts';
import {
  discordMessageRef,
  isRawInteraction,
  type RawInteraction,
  splitMessageRefId,
} from './parse.ts';
import { renderMessage, renderNotice } from './render.ts';
import { verifyDiscordRequest } from './verify.ts';

export type { DiscordConfig } from './config.ts';
export { DISCORD_ENV_VARS, readDiscordConfig } from './config.ts';

/** The path Discord's "Interactions Endpoint URL" must point at (HTTP interactions mode). */
export const DISCORD_INTERACTIONS_PATH = '/discord/interactions';

/** Tuning knobs, mostly for tests. */
export interface DiscordAdapterOptions {
  /** How long a tap may run before we answer with a deferred update (default 2 s). */
  tapDeadlineMs?: number;
  /** The longest 429 wait sat out inside one call (default 10 s). */
  maxRateLimitWaitMs?: number;
  /** Clock for the signature timestamp check. */
  now?: () => number;
}

/** The Discord PlatformAdapter. */
export class DiscordAdapter implements PlatformAdapter {
  readonly platform = 'discord';
  readonly credentialEnv = 'DISCORD_TOKEN';
  readonly routes: HttpRoute[];
  private readonly api: DiscordApi;
  private readonly flow: InteractionFlow;
  private readonly pending = new Set<Promise<unknown>>();
  private readonly now: () => number;
  private ctx: AdapterContext | null = null;
  private gateway: DiscordGateway | null = null;

  constructor(
    private readonly config: DiscordConfig,
    options: DiscordAdapterOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.api = new DiscordApi({
      token: config.token,
      ...(config.apiUrl ? { apiUrl: config.apiUrl } : {}),
      ...(options.maxRateLimitWaitMs !== undefined
        ? { maxRateLimitWaitMs: options.maxRateLimitWaitMs }
        : {}),
    });
    this.flow = new InteractionFlow({
      api: this.api,
      applicationId: config.applicationId,
      ...(options.tapDeadlineMs !== undefined ? { tapDeadlineMs: options.tapDeadlineMs } : {}),
    });
    this.routes =
      config.mode === 'http'
        ? [{ method: 'POST', path: DISCORD_INTERACTIONS_PATH, handle: (req) => this.receive(req) }]
        : [];
  }

  async start(ctx: AdapterContext): Promise<void> {
    this.ctx = ctx;
    if (this.config.mode === 'http') {
      // Nothing else talks to Discord at start in this mode: ask who we are, so a bad token shows now.
      const me = await this.api.currentUser();
      ctx.log.info(
        { path: DISCORD_INTERACTIONS_PATH, bot: me.username ?? me.id },
        'discord: HTTP interactions mode',
      );
      return;
    }
    // Loaded only in gateway mode: discord.js is large and HTTP mode never needs it.
    const { startDiscordGateway } = await import('./gateway.ts');
    this.gateway = await startDiscordGateway({
      token: this.config.token,
      ...(this.config.apiUrl ? { apiUrl: this.config.apiUrl } : {}),
      log: ctx.log,
      onInteraction: (raw) => this.dispatch(raw, ctx),
    });
  }

  async checkAddress(address: string): Promise<string | null> {
    return DISCORD_SNOWFLAKE_PATTERN.test(address) ? null : 'a Discord channel id is a number';
  }

  async stop(): Promise<void> {
    await this.gateway?.stop();
    this.gateway = null;
    await this.drain();
    this.ctx = null;
  }

  /** Resolves when every interaction in flight (answers and follow-ups) has finished. */
  async drain(): Promise<void> {
    while (this.pending.size > 0) await Promise.allSettled([...this.pending]);
  }

  async post(address: string, card: Card, options: PostOptions = {}): Promise<MessageRef> {
    await rememberAsk(this.ctx, card);
    const body: DiscordCreateMessageBody = renderMessage(card, this.ctx?.strings);
    const replyTo = options.replyTo ? splitMessageRefId(options.replyTo.id) : null;
    if (replyTo && options.replyTo?.platform === 'discord' && replyTo.channelId === address) {
      // Replying to our own message; replied_user: false so even that reply pings nobody.
      body.message_reference = { message_id: replyTo.messageId, fail_if_not_exists: false };
      body.allowed_mentions = { parse: [], replied_user: false };
    }
    const created = await this.api.createMessage(address, body);
    return discordMessageRef(created.channel_id ?? address, created.id);
  }

  async update(ref: MessageRef, card: Card): Promise<void> {
    const ids = this.ids(ref, 'PATCH /channels/:id/messages/:id');
    await rememberAsk(this.ctx, card);
    // Discord has no "not modified" error: an identical edit simply succeeds.
    await this.api.editMessage(
      ids.channelId,
      ids.messageId,
      renderMessage(card, this.ctx?.strings),
    );
  }

  async notify(ref: MessageRef, text: string, link: CardLink | null): Promise<void> {
    const ids = this.ids(ref, 'POST /channels/:id/messages');
    await this.api.createMessage(ids.channelId, {
      ...renderNotice(text, link),
      allowed_mentions: { parse: [], replied_user: false },
      message_reference: { message_id: ids.messageId, fail_if_not_exists: false },
    });
  }

  private ids(ref: MessageRef, call: string): { channelId: string; messageId: string } {
    const ids = splitMessageRefId(ref.id);
    if (!ids) throw new PlatformError('discord', call, 'bad_request', 'not a Discord message ref');
    return ids;
  }

  private track(work: Promise<unknown>): void {
    this.pending.add(work);
    const done = () => this.pending.delete(work);
    work.then(done, done);
  }

  /** Gateway mode: the initial response goes back through the REST interaction callback. */
  private dispatch(raw: RawInteraction, ctx: AdapterContext): void {
    const respond: Respond = (body) => this.api.interactionCallback(raw.id, raw.token, body);
    this.track(
      this.flow
        .handle(raw, respond, ctx)
        .catch((error) => logDeliveryFailure(ctx, 'interaction', error)),
    );
  }

  /** HTTP mode: POST /discord/interactions. The initial response is our HTTP answer. */
  private async receive(req: InboundRequest): Promise<InboundResponse> {
    const ctx = this.ctx;
    const publicKey = this.config.publicKey;
    if (!ctx || !publicKey) return { status: 503, body: { error: 'not_ready' } };
    if (!(await verifyDiscordRequest(req.headers, req.rawBody, publicKey, this.now()))) {
      return {
        status: 401,
        body: { error: 'invalid_signature', message: 'invalid request signature' },
      };
    }
    let raw: unknown;
    try {
      raw = JSON.parse(req.rawBody.toString('utf8'));
    } catch {
      return { status: 400, body: { error: 'invalid_json' } };
    }
    if (!isRawInteraction(raw)) return { status: 400, body: { error: 'not_an_interaction' } };
    const interaction = raw;
    return new Promise<InboundResponse>((resolve) => {
      let answered = false;
      const respond: Respond = async (body) => {
        answered = true;
        resolve({ status: 200, headers: { 'content-type': 'application/json' }, body });
        // Let the server write our answer before any follow-up goes out (follow-ups need it first).
        await new Promise((next) => setImmediate(next));
      };
      const work = this.flow.handle(interaction, respond, ctx).then(
        (handled) => {
          if (!handled && !answered)
            resolve({ status: 400, body: { error: 'unsupported_interaction' } });
        },
        (error: unknown) => {
          if (!answered) resolve({ status: 500, body: { error: 'internal' } });
          logDeliveryFailure(ctx, 'interaction', error);
        },
      );
      this.track(work);
    });
  }
}

/** Creates the Discord adapter from its configuration (see readDiscordConfig). */
export function createDiscordAdapter(
  config: DiscordConfig,
  options: DiscordAdapterOptions = {},
): DiscordAdapter {
  return new DiscordAdapter(config, options);
}
