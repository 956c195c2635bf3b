/**
 * The WhatsApp Business (Cloud API) adapter: cards as interactive messages (reply buttons, a list,
 * or a Details button), taps as webhook replies quoting the card. Sent messages cannot be edited,
 * so `update` of an ended case sends one reply quoting the card that states the outcome, and a
 * non-final change is not sent (Details shows it). Target: `whatsapp:<phone number id>:<wa_id>`.
 */
import { request } from 'undici';
import type {
  AdapterContext,
  HttpRoute,
  MessageRef,
  PlatformAdapter,
  PostOptions,
} from '../../src/adapter.ts';
import { stringsOf } from '../../src/adapter-kit.ts';
import { PlatformError } from '../../src/errors.ts';
import { registerSecret } from '../../src/log.ts';
import type { Card } from '../../src/render/card.ts';
import type { WhatsAppConfig } from './config.ts';
import { GraphError, graphError, toPlatformError, WINDOW_CLOSED } from './errors.ts';
import { GraphClient } from './graph.ts';
import { handleBatches } from './inbound.ts';
import { type WhatsAppPaceOptions, WhatsAppSendPace } from './pace.ts';
import { cardRef, parseAddress } from './parse.ts';
import {
  cardPicks,
  type OutboundMessage,
  renderCard,
  renderOutcome,
  textMessage,
} from './render.ts';
import { noTemplateReason, renderTemplate, reviewTypeOf } from './templates.ts';
import { WHATSAPP_DEFAULT_WEBHOOK_PATH, webhookRoutes } from './webhook.ts';
import { closeWindow, windowOpen } from './window.ts';

export { readWhatsappConfig, WHATSAPP_ENV_VARS, type WhatsAppConfig } from './config.ts';

/** Answers are kept as long as a card can be tapped (the longest case a service may open). */
const CARD_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/** A claimed outcome reply that was never confirmed sent is free again after this. */
const OUTCOME_CLAIM_MS = 5 * 60 * 1000;

/** Everything createWhatsappAdapter accepts: the environment's settings plus knobs for tests. */
export interface WhatsappAdapterOptions extends WhatsAppConfig {
  webhookPath?: string;
  pace?: Partial<WhatsAppPaceOptions>;
  /** How long the webhook answer waits for a tap's outcome. Default 4 s. */
  tapAnswerWaitMs?: number;
  /** Deliveries older than this are skipped as replays. Default 24 h. */
  maxEventAgeMs?: number;
  rateLimitAttempts?: number;
  now?: () => number;
}

/** WhatsApp as a PlatformAdapter. */
export class WhatsAppAdapter implements PlatformAdapter {
  readonly platform = 'whatsapp';
  readonly credentialEnv = 'WHATSAPP_ACCESS_TOKEN';
  readonly routes: HttpRoute[];
  private pace: WhatsAppSendPace;
  private readonly graph: GraphClient;
  private ctx: AdapterContext | null = null;
  private readonly now: () => number;

  constructor(private readonly options: WhatsappAdapterOptions) {
    registerSecret(options.accessToken);
    registerSecret(options.appSecret);
    registerSecret(options.verifyToken);
    this.now = options.now ?? Date.now;
    this.pace = new WhatsAppSendPace(options.pace);
    this.graph = new GraphClient(
      {
        ...options,
        ...(options.rateLimitAttempts ? { rateLimitAttempts: options.rateLimitAttempts } : {}),
      },
      () => this.pace,
      () => this.ctx?.log,
    );
    this.routes = webhookRoutes({
      path: options.webhookPath ?? WHATSAPP_DEFAULT_WEBHOOK_PATH,
      appSecret: options.appSecret,
      verifyToken: options.verifyToken,
      running: () => this.ctx !== null,
      log: () => this.ctx?.log,
      handle: (batches) => {
        const ctx = this.ctx;
        if (!ctx) throw new Error('the WhatsApp adapter is not running');
        return handleBatches(
          {
            ctx,
            now: this.now,
            waitMs: options.tapAnswerWaitMs ?? 4000,
            maxEventAgeMs: options.maxEventAgeMs ?? 24 * 60 * 60 * 1000,
            send: (phoneId, to, message) => this.graph.send(phoneId, to, message),
            askAnswer: (key, n) => this.askAnswer(key, n),
            rememberReply: (replyId, cardId) =>
              ctx.kv.set(`whatsapp:reply:${replyId}`, cardId, CARD_TTL_MS),
            cardOfReply: async (id) => (await ctx.kv.get(`whatsapp:reply:${id}`)) ?? null,
          },
          batches,
        );
      },
    });
  }

  /** Rate-limit answers (131056, 130429) received and waited out. */
  get rateLimitAnswers(): number {
    return this.graph.rateLimitAnswers;
  }

  private context(call: string): AdapterContext {
    if (!this.ctx)
      throw new PlatformError('whatsapp', call, 'network', 'the adapter is not running');
    return this.ctx;
  }

  /** Checks the token with one `GET /me` (a bad one is refused, not retried). */
  async start(ctx: AdapterContext): Promise<void> {
    const { graphUrl, graphVersion, accessToken } = this.options;
    try {
      const res = await request(`${graphUrl}/${graphVersion}/me`, {
        headers: { authorization: `Bearer ${accessToken}` },
        headersTimeout: 20_000,
        bodyTimeout: 20_000,
      });
      const text = await res.body.text();
      if (res.statusCode !== 200) throw graphError(res.statusCode, text);
    } catch (err) {
      throw toPlatformError(err, 'me');
    }
    this.pace.close();
    this.pace = new WhatsAppSendPace(this.options.pace);
    this.ctx = ctx;
    ctx.log.info('whatsapp adapter started');
  }

  async stop(): Promise<void> {
    this.pace.close();
    this.ctx = null;
  }

  async checkAddress(address: string): Promise<string | null> {
    return parseAddress(address)
      ? null
      : 'the address is not "<phone number id>:<wa_id>" (digits, e.g. 1234567890:4915112345678)';
  }

  private address(address: string, call: string): { phoneId: string; waId: string } {
    const parsed = parseAddress(address);
    if (!parsed) throw new PlatformError('whatsapp', call, 'bad_request', 'not a WhatsApp address');
    return parsed;
  }

  async post(address: string, card: Card, options: PostOptions = {}): Promise<MessageRef> {
    const ctx = this.context('messages');
    const { phoneId, waId } = this.address(address, 'messages');
    await this.rememberAnswers(card);
    const target = `whatsapp:${address}`;
    const template = this.options.templates[reviewTypeOf(card)];
    const asTemplate = (): OutboundMessage => {
      if (!template)
        throw new PlatformError(
          'whatsapp',
          'messages',
          'bad_request',
          noTemplateReason(card, target),
        );
      return renderTemplate(card, template);
    };
    if (!(await windowOpen(ctx.kv, phoneId, waId, this.now()))) {
      return cardRef(address, await this.graph.send(phoneId, waId, asTemplate()));
    }
    const quoted =
      options.replyTo?.address === address ? { context: { message_id: options.replyTo.id } } : {};
    const message = { ...renderCard(card, stringsOf(ctx).asks.chooseOne), ...quoted };
    try {
      return cardRef(address, await this.graph.send(phoneId, waId, message));
    } catch (err) {
      // The window closed sooner than we knew (the person wrote from another device, clocks).
      if (
        !(
          err instanceof PlatformError &&
          err.cause instanceof GraphError &&
          err.cause.code === WINDOW_CLOSED
        )
      )
        throw err;
      await closeWindow(ctx.kv, phoneId, waId);
      return cardRef(address, await this.graph.send(phoneId, waId, asTemplate()));
    }
  }

  /** The typed answers of an ask's choices, by index, for the taps that come back. */
  private async rememberAnswers(card: Card): Promise<void> {
    const answers = cardPicks(card).map((p) => p.answer ?? null);
    if (answers.some((a) => a !== null))
      await this.ctx?.kv.set(`whatsapp:answers:${card.key}`, JSON.stringify(answers), CARD_TTL_MS);
  }

  private async askAnswer(key: string, n: number) {
    const raw = await this.ctx?.kv.get(`whatsapp:answers:${key}`);
    if (!raw) return null;
    const answers = JSON.parse(raw) as Array<{
      action: string;
      data: Record<string, unknown>;
    } | null>;
    return answers[n] ?? null;
  }

  /**
   * A sent card cannot change. A non-final change is not sent; an ended case gets one reply quoting
   * the card with its outcome (once across replicas: the reply is claimed before it is sent).
   */
  async update(ref: MessageRef, card: Card): Promise<void> {
    if (!card.final) return;
    const ctx = this.context('messages');
    const { phoneId, waId } = this.address(ref.address, 'messages');
    const claim = `whatsapp:outcome:${ref.id}`;
    if (!(await ctx.kv.setIfAbsent(claim, 'sending', OUTCOME_CLAIM_MS))) return;
    try {
      if (!(await windowOpen(ctx.kv, phoneId, waId, this.now()))) {
        // Only a template could reach the person now, and none says "it ended": a later tap is told.
        ctx.log.info({ key: card.key }, 'whatsapp window closed; the outcome reply is not sent');
        await ctx.kv.set(claim, 'window_closed', CARD_TTL_MS);
        return;
      }
      const id = await this.graph.send(phoneId, waId, renderOutcome(card, ref.id));
      await ctx.kv.set(`whatsapp:reply:${id}`, ref.id, CARD_TTL_MS);
      await ctx.kv.set(claim, 'sent', CARD_TTL_MS);
    } catch (err) {
      await ctx.kv.delete(claim);
      throw err;
    }
  }

  async notify(
    ref: MessageRef,
    text: string,
    link: { label: string; url: string } | null,
  ): Promise<void> {
    const ctx = this.context('messages');
    const { phoneId, waId } = this.address(ref.address, 'messages');
    if (!(await windowOpen(ctx.kv, phoneId, waId, this.now()))) {
      throw new PlatformError(
        'whatsapp',
        'messages',
        'bad_request',
        `the 24-hour window with whatsapp:${ref.address} is closed: a reminder can reach the person only after they write to the business`,
      );
    }
    const body = link ? `${text}\n\n${link.label}: ${link.url}` : text;
    const id = await this.graph.send(phoneId, waId, textMessage(body, ref.id));
    await ctx.kv.set(`whatsapp:reply:${id}`, ref.id, CARD_TTL_MS);
  }
}

/** Creates the WhatsApp adapter (webhook at /whatsapp/webhook unless configured otherwise). */
export function createWhatsappAdapter(config: WhatsappAdapterOptions): WhatsAppAdapter {
  return new WhatsAppAdapter(config);
}
