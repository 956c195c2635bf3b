/**
 * The Microsoft Teams adapter: POST /api/messages, Adaptive Cards with Action.Execute, proactive
 * posts and edits. The Bot Framework SDK sits behind connector.ts (the JWT check, the turn, send
 * and update); conversation references (our own SDK-neutral shape) and card state live in the
 * shared key-value store, so any replica can serve any card.
 */

import { z } from 'zod';
import type {
  AdapterContext,
  AdapterStrings,
  HttpRoute,
  InboundRequest,
  InboundResponse,
  MessageRef,
  PlatformAdapter,
  PostOptions,
} from '../../src/adapter.ts';
import { PlatformError, ValidationError } from '../../src/errors.ts';
import { scrub } from '../../src/log.ts';
import type { Card } from '../../src/render/card.ts';
import {
  adaptiveCard,
  type OutgoingActivity,
  type TeamsActivity,
  type TeamsReference,
} from './activity.ts';
import { TeamsBot } from './bot.ts';
import type { TeamsConfig, TeamsTuning } from './config.ts';
import { createTeamsConnector, type Inbound, type TeamsConnector } from './connector.ts';
import { TeamsUnknownConversationError, toPlatformError } from './errors.ts';
import { testModeServiceUrlRefusal } from './http.ts';
import { ConversationPace, type PaceClock, TEAMS_CONVERSATION_PACE } from './pace.ts';
import { activityIdOf, teamsMessageRef } from './parse.ts';
import { escapeTeamsText, renderTeamsCard, truncateText } from './render.ts';
import { TeamsStore } from './store.ts';
import { TEAMS_DEFAULT_RETRY, TeamsTransport } from './transport.ts';

export { readTeamsConfig, TEAMS_ENV_VARS, type TeamsConfig } from './config.ts';

/** The Teams adapter's options: its config (tuning knobs included, see TeamsTuning). */
export type TeamsAdapterOptions = TeamsConfig;

/** The path the Azure Bot's messaging endpoint points at. */
export const TEAMS_MESSAGES_PATH = '/api/messages';
/** The fields of a Bot Framework activity the adapter relies on. */
const ACTIVITY_SHAPE = z.looseObject({
  type: z.string().min(1),
  serviceUrl: z.url({ protocol: /^https?$/ }),
  conversation: z.looseObject({ id: z.string().min(1) }),
  from: z.looseObject({ id: z.string().min(1) }).optional(),
});

/** Teams answers an invoke within about 5 s; leave room for the network. */
const TEAMS_INVOKE_DEADLINE_MS = 3000;

/** Sends of one refresh at most (each a card newer than the last; edits of a case are few). */
const REFRESH_ROUNDS = 3;

const DEFAULT_TUNING: TeamsTuning = {
  pace: [...TEAMS_CONVERSATION_PACE],
  retry: TEAMS_DEFAULT_RETRY,
  invokeDeadlineMs: TEAMS_INVOKE_DEADLINE_MS,
};

const realClock: PaceClock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** The thread of message `activityId`: channels thread by conversation id, chats by replyToId. */
function inThreadOf(
  reference: TeamsReference,
  activityId: string,
): { reference: TeamsReference; replyToId?: string } {
  const conversation = reference.conversation;
  if (conversation.type === 'channel') {
    return {
      reference: {
        ...reference,
        conversation: { ...conversation, id: `${conversation.id};messageid=${activityId}` },
      },
    };
  }
  return { reference, replyToId: activityId };
}

/** The activity in `req`, or the 400 answer saying which field is wrong. */
function readActivity(req: InboundRequest): TeamsActivity | InboundResponse {
  let body: unknown;
  try {
    body = JSON.parse(req.rawBody.toString('utf8'));
  } catch {
    return { status: 400, body: { error: 'invalid_json' } };
  }
  const shape = ACTIVITY_SHAPE.safeParse(body);
  if (shape.success) return body as TeamsActivity;
  // The SDK throws on activities without these; refuse them here with the field that is wrong.
  const issue = shape.error.issues[0];
  return {
    status: 400,
    body: {
      error: 'not_an_activity',
      message: `${issue?.path.join('.') || '(body)'}: ${issue?.message ?? 'invalid'}`,
    },
  };
}

/** A Teams message carrying `card` (the title as the notification summary). */
function cardMessage(
  card: Card,
  strings: AdapterStrings | undefined,
  extra: OutgoingActivity = {},
): OutgoingActivity {
  return {
    attachments: [adaptiveCard(renderTeamsCard(card, strings ? { strings } : {}))],
    summary: truncateText(card.title, 200),
    ...extra,
  };
}

/** A reminder: plain text, or the text inside a card when it carries a link button. */
function noticeMessage(
  text: string,
  link: { label: string; url: string } | null,
): OutgoingActivity {
  // Text and a card in one activity are split in two by Teams: the text goes inside the card.
  if (!link) return { text, textFormat: 'plain' };
  return {
    attachments: [
      adaptiveCard({
        type: 'AdaptiveCard',
        version: '1.4',
        body: [{ type: 'TextBlock', text: escapeTeamsText(text), wrap: true }],
        actions: [{ type: 'Action.OpenUrl', title: link.label, url: link.url }],
      }),
    ],
    summary: truncateText(text, 200),
  };
}

class TeamsAdapter implements PlatformAdapter {
  readonly platform = 'teams';
  readonly credentialEnv = 'TEAMS_APP_PASSWORD';
  readonly routes: HttpRoute[];
  private readonly connector: TeamsConnector;
  private readonly tuning: TeamsTuning;
  private ctx: AdapterContext | null = null;
  private store: TeamsStore | null = null;
  private bot: TeamsBot | null = null;

  constructor(
    private readonly config: TeamsConfig,
    clock: PaceClock,
  ) {
    if (!config.appId && !config.allowUnauthenticated) {
      // An empty app id makes the SDK accept every request unauthenticated.
      throw new ValidationError('invalid_config', 'Teams configuration', [
        {
          path: 'TEAMS_APP_ID',
          message: 'is required (TEAMS_ALLOW_UNAUTHENTICATED=1 for local tests only)',
        },
      ]);
    }
    this.tuning = { ...DEFAULT_TUNING, ...config.tuning };
    const transport = new TeamsTransport(
      new ConversationPace(this.tuning.pace, clock),
      this.tuning.retry,
      clock,
    );
    this.connector = createTeamsConnector(config, transport, this.tuning.openIdMetadataUrl);
    this.routes = [
      { method: 'POST', path: TEAMS_MESSAGES_PATH, handle: (req) => this.receive(req) },
    ];
  }

  async start(ctx: AdapterContext): Promise<void> {
    this.ctx = ctx;
    this.store = new TeamsStore(ctx.kv);
    this.bot = new TeamsBot({
      ctx,
      store: this.store,
      invokeDeadlineMs: this.tuning.invokeDeadlineMs,
      authenticated: !!this.config.appId,
      refresh: (ref) => this.refresh(ref),
      sendPrivately: async (from, userId, message) => {
        await this.connector.send(await this.connector.openPrivate(from, userId), message);
      },
    });
    if (!this.config.appId) {
      ctx.log.warn(
        { platform: 'teams' },
        '!!! TEAMS AUTHENTICATION IS OFF (TEAMS_ALLOW_UNAUTHENTICATED=1, no TEAMS_APP_ID): anyone who can reach /api/messages can act as any Teams user. Use this only for local tests. !!!',
      );
    }
  }

  async stop(): Promise<void> {
    this.ctx = null;
  }

  /** A conversation the bot never saw cannot be posted to (Teams has no way to open one by id). */
  async checkAddress(address: string): Promise<string | null> {
    if (!this.store) return null;
    return (await this.store.loadReference(address))
      ? null
      : new TeamsUnknownConversationError(address).message;
  }

  private async receive(req: InboundRequest): Promise<InboundResponse> {
    const bot = this.bot;
    const ctx = this.ctx;
    if (!ctx || !bot) return { status: 503, body: { error: 'not_started' } };
    const activity = readActivity(req);
    if ('status' in activity) return activity;
    if (!this.config.appId) {
      // Nobody vouches for this activity, and the relay would send to its serviceUrl.
      const refusal = testModeServiceUrlRefusal(activity.serviceUrl);
      if (refusal) {
        ctx.log.warn({ platform: 'teams', reason: refusal }, 'teams activity refused');
        return { status: 403, body: { error: 'service_url_refused', message: refusal } };
      }
    }
    try {
      const inbound = await this.connector.receive(activity, req.headers.authorization ?? '', (a) =>
        bot.turn(a),
      );
      return this.answer(inbound, ctx);
    } catch (err) {
      ctx.log.error({ platform: 'teams', err: scrub(String(err)) }, 'teams activity failed');
      return { status: 500, body: { error: 'internal_error' } };
    }
  }

  /** The HTTP answer to an inbound request; a refusal says only "unauthorized" (never why). */
  private answer(inbound: Inbound, ctx: AdapterContext): InboundResponse {
    if (inbound.kind === 'unavailable') {
      ctx.log.error(
        { platform: 'teams', reason: inbound.reason },
        'teams request not checked: the Bot Framework signing keys could not be read',
      );
      return { status: 503, headers: { 'retry-after': '5' }, body: { error: 'unavailable' } };
    }
    if (inbound.kind === 'refused') {
      ctx.log.warn(
        { platform: 'teams', reason: inbound.reason },
        'teams request refused: not authenticated',
      );
      return { status: 401, body: { error: 'unauthorized' } };
    }
    return inbound.body === undefined
      ? { status: inbound.status }
      : { status: inbound.status, body: inbound.body as InboundResponse['body'] };
  }

  private requireStore(call: string): TeamsStore {
    if (!this.store) throw new PlatformError('teams', call, 'remote', 'adapter not started');
    return this.store;
  }

  private async reference(address: string, call: string): Promise<TeamsReference> {
    const reference = await this.requireStore(call).loadReference(address);
    if (!reference) throw toPlatformError(new TeamsUnknownConversationError(address), call);
    return reference;
  }

  async post(address: string, card: Card, options?: PostOptions): Promise<MessageRef> {
    const store = this.requireStore('sendActivity');
    let reference = await this.reference(address, 'sendActivity');
    let replyToId: string | undefined;
    const parent = options?.replyTo ? activityIdOf(options.replyTo) : null;
    if (parent) ({ reference, replyToId } = inThreadOf(reference, parent));
    const activityId = await this.connector.send(
      reference,
      cardMessage(card, this.ctx?.strings, replyToId ? { replyToId } : {}),
    );
    await store.saveCard(address, activityId, card);
    return teamsMessageRef(address, activityId);
  }

  async update(ref: MessageRef, card: Card): Promise<void> {
    const store = this.requireStore('updateActivity');
    const activityId = activityIdOf(ref);
    if (!activityId)
      throw new PlatformError('teams', 'updateActivity', 'bad_request', 'not a Teams message ref');
    // Stored before it is sent: a refresh under way (after a late invoke answer), here or on
    // another replica, then re-reads this card instead of sending an older one after it.
    await store.saveCard(ref.address, activityId, card);
    await this.put(ref, activityId, card);
  }

  /** Replaces the message's card on Teams (updateActivity), leaving the stored card alone. */
  private async put(ref: MessageRef, activityId: string, card: Card): Promise<void> {
    const reference = await this.reference(ref.address, 'updateActivity');
    await this.connector.update(reference, activityId, cardMessage(card, this.ctx?.strings));
  }

  async notify(
    ref: MessageRef,
    text: string,
    link: { label: string; url: string } | null,
  ): Promise<void> {
    const activityId = activityIdOf(ref);
    if (!activityId)
      throw new PlatformError('teams', 'sendActivity', 'bad_request', 'not a Teams message ref');
    const thread = inThreadOf(await this.reference(ref.address, 'sendActivity'), activityId);
    const message = noticeMessage(text, link);
    if (thread.replyToId) message.replyToId = thread.replyToId;
    await this.connector.send(thread.reference, message);
  }

  /**
   * Sends the stored card of `ref` again (after a late invoke answer showed "Submitting…"). An
   * edit of the case may be stored while this one is on its way: the card is read again after
   * each send and sent again when it changed, so the last send is the newest card.
   */
  private async refresh(ref: MessageRef): Promise<void> {
    const activityId = activityIdOf(ref);
    if (!activityId) return;
    const store = this.requireStore('updateActivity');
    let sent: string | null = null;
    for (let round = 0; round < REFRESH_ROUNDS; round++) {
      const card = await store.loadCard(ref.address, activityId);
      const json = card ? JSON.stringify(card) : null;
      if (!card || json === sent) return;
      await this.put(ref, activityId, card);
      sent = json;
    }
  }
}

/** Creates the Teams adapter; refuses an empty app id unless `allowUnauthenticated` is set. */
export function createTeamsAdapter(
  config: TeamsAdapterOptions,
  clock: PaceClock = realClock,
): PlatformAdapter {
  return new TeamsAdapter(config, clock);
}
