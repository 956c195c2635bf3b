/**
 * The Google Chat adapter: a Chat app over an HTTP endpoint. Cards are cards v2 messages written
 * with the Chat API as the app's service account (auth.ts) and edited in place with
 * `spaces.messages.patch`; clicks come to the endpoint as signed events (inbound.ts, verify.ts) and
 * go through the shared tap pipeline. Target: `googlechat:spaces/<space id>`.
 */
import { randomUUID } from 'node:crypto';
import type {
  AdapterContext,
  HttpRoute,
  MessageRef,
  PlatformAdapter,
  PostOptions,
  TapUser,
} from '../../src/adapter.ts';
import { PlatformError } from '../../src/errors.ts';
import type { PacePriority } from '../../src/pace.ts';
import type { Card } from '../../src/render/card.ts';
import { ChatClient } from './api.ts';
import { ServiceAccountToken } from './auth.ts';
import type { GooglechatConfig } from './config.ts';
import { rememberDialog } from './dialog-flow.ts';
import { toPlatformError } from './errors.ts';
import { eventRoutes, GOOGLECHAT_DEFAULT_PATH } from './inbound.ts';
import { GooglechatPace, type GooglechatPaceOptions } from './pace.ts';
import { messageRef, SPACE } from './parse.ts';
import { renderCard, textMessage } from './render.ts';
import { EventTokenVerifier } from './verify.ts';

export { GOOGLECHAT_ENV_VARS, type GooglechatConfig, readGooglechatConfig } from './config.ts';

/** A card's thread is kept as long as a case can run. */
const THREAD_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/** Everything createGooglechatAdapter accepts: the environment's settings plus knobs for tests. */
export interface GooglechatAdapterOptions extends GooglechatConfig {
  path?: string;
  pace?: Partial<GooglechatPaceOptions>;
  /** How long the answer to a click waits for the tap's outcome. Default 8 s. */
  tapAnswerWaitMs?: number;
  /** Events older than this are skipped. Default 1 h (a token's life). */
  maxEventAgeMs?: number;
  rateLimitAttempts?: number;
  backoffMs?: number;
  now?: () => number;
}

/** Google Chat as a PlatformAdapter. */
export class GooglechatAdapter implements PlatformAdapter {
  readonly platform = 'googlechat';
  readonly credentialEnv = 'GOOGLE_CHAT_CREDENTIALS';
  readonly routes: HttpRoute[];
  private pace: GooglechatPace;
  private readonly token: ServiceAccountToken;
  private readonly api: ChatClient;
  private ctx: AdapterContext | null = null;
  private readonly now: () => number;

  constructor(private readonly options: GooglechatAdapterOptions) {
    this.now = options.now ?? Date.now;
    this.pace = new GooglechatPace(options.pace);
    this.token = new ServiceAccountToken(options.key, options.tokenUrl, this.now);
    this.api = new ChatClient(
      {
        apiUrl: options.apiUrl,
        ...(options.rateLimitAttempts ? { rateLimitAttempts: options.rateLimitAttempts } : {}),
        ...(options.backoffMs ? { backoffMs: options.backoffMs } : {}),
      },
      this.token,
      () => this.pace,
      () => this.ctx?.log,
    );
    this.routes = eventRoutes({
      path: options.path ?? GOOGLECHAT_DEFAULT_PATH,
      verifier: new EventTokenVerifier(options.audience, options.certsUrl, this.now),
      context: () => this.ctx,
      log: () => this.ctx?.log,
      now: this.now,
      waitMs: options.tapAnswerWaitMs ?? 8000,
      maxEventAgeMs: options.maxEventAgeMs ?? 60 * 60 * 1000,
      sendPrivate: (space, user, text, thread) => this.sendPrivate(space, user, text, thread),
    });
  }

  /** 429 answers received and waited out. */
  get rateLimitAnswers(): number {
    return this.api.rateLimitAnswers;
  }

  private context(call: string): AdapterContext {
    if (!this.ctx)
      throw new PlatformError('googlechat', call, 'network', 'the adapter is not running');
    return this.ctx;
  }

  /** Checks the service account by exchanging its assertion for a token (a refused key is not retried). */
  async start(ctx: AdapterContext): Promise<void> {
    try {
      this.token.invalidate();
      await this.token.get();
    } catch (err) {
      throw toPlatformError(err, 'token');
    }
    this.pace.close();
    this.pace = new GooglechatPace(this.options.pace);
    this.ctx = ctx;
    ctx.log.info('google chat adapter started');
  }

  async stop(): Promise<void> {
    this.pace.close();
    this.ctx = null;
  }

  async checkAddress(address: string): Promise<string | null> {
    return SPACE.test(address)
      ? null
      : 'the address is not a space name "spaces/<id>" (the /hitl_id command in the space tells it)';
  }

  private space(address: string, call: string): string {
    if (!SPACE.test(address))
      throw new PlatformError('googlechat', call, 'bad_request', 'not a Google Chat space name');
    return address;
  }

  async post(address: string, card: Card, options: PostOptions = {}): Promise<MessageRef> {
    const ctx = this.context('spaces.messages.create');
    const space = this.space(address, 'spaces.messages.create');
    const thread =
      options.replyTo?.address === address
        ? await ctx.kv.get(`googlechat:thread:${options.replyTo.id}`)
        : undefined;
    await rememberDialog(ctx, card);
    const answer = await this.api.create(space, renderCard(card, ctx.strings), {
      requestId: randomUUID(),
      ...(thread ? { thread } : {}),
    });
    if (answer.thread?.name)
      await ctx.kv.set(`googlechat:thread:${answer.name}`, answer.thread.name, THREAD_TTL_MS);
    return messageRef(address, answer.name);
  }

  /** Patches the card in place; progress (non-final) edits go after new cards and final edits. */
  async update(ref: MessageRef, card: Card): Promise<void> {
    const ctx = this.context('spaces.messages.patch');
    const priority: PacePriority = card.final ? 'high' : 'low';
    await rememberDialog(ctx, card);
    await this.api.patch(ref.id, renderCard(card, ctx.strings), priority);
  }

  async notify(
    ref: MessageRef,
    text: string,
    link: { label: string; url: string } | null,
  ): Promise<void> {
    const ctx = this.context('spaces.messages.create');
    const space = this.space(ref.address, 'spaces.messages.create');
    const thread = await ctx.kv.get(`googlechat:thread:${ref.id}`);
    const body = link ? `${text}\n${link.label}: ${link.url}` : text;
    await this.api.create(space, textMessage(body), {
      requestId: randomUUID(),
      priority: 'low',
      ...(thread ? { thread } : {}),
    });
  }

  private async sendPrivate(
    space: string,
    user: TapUser,
    text: string,
    thread: string | null,
  ): Promise<void> {
    await this.api.create(space, textMessage(text, user.id), {
      requestId: randomUUID(),
      ...(thread ? { thread } : {}),
    });
  }
}

/** Creates the Google Chat adapter (events at /googlechat/events unless configured otherwise). */
export function createGooglechatAdapter(config: GooglechatAdapterOptions): GooglechatAdapter {
  return new GooglechatAdapter(config);
}
