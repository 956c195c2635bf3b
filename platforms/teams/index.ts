/**
 * The Microsoft Teams adapter: botbuilder's CloudAdapter behind POST /api/messages, Adaptive Cards
 * with Action.Execute, proactive posts and edits through continueConversationAsync. Conversation
 * references and card state live in the shared key-value store, so any replica can serve any card.
 * botbuilder is imported nowhere outside this folder.
 */

import {
  type Activity,
  CallerIdConstants,
  CardFactory,
  CloudAdapter,
  ConfigurationBotFrameworkAuthentication,
  type ConversationReference,
  TurnContext,
} from 'botbuilder';
import { z } from 'zod';
import type {
  AdapterContext,
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
import { TeamsBot } from './bot.ts';
import type { TeamsConfig, TeamsTuning } from './config.ts';
import { TeamsUnknownConversationError, toPlatformError } from './errors.ts';
import { classifyAuthFailure, testModeServiceUrlRefusal } from './http.ts';
import { ConversationPace, type PaceClock, TEAMS_CONVERSATION_PACE } from './pace.ts';
import { activityIdOf, teamsMessageRef } from './parse.ts';
import { escapeTeamsText, renderTeamsCard, truncateText } from './render.ts';
import { TeamsStore } from './store.ts';
import { TEAMS_DEFAULT_RETRY, TeamsTransport } from './transport.ts';

export { readTeamsConfig, TEAMS_ENV_VARS, type TeamsConfig } from './config.ts';

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

type Reference = Partial<ConversationReference>;

/**
 * The public cloud's settings with the JWT signing keys read from `metadataUrl` (tests: a loopback
 * issuer). botbuilder takes all of them once any one is set, so the rest are its own defaults.
 */
function publicCloudWithKeysAt(metadataUrl: string): Record<string, string | boolean> {
  return {
    ToBotFromChannelOpenIdMetadataUrl: metadataUrl,
    ToBotFromEmulatorOpenIdMetadataUrl: metadataUrl,
    ToBotFromChannelTokenIssuer: 'https://api.botframework.com',
    ToChannelFromBotLoginUrl: 'https://login.microsoftonline.com/botframework.com',
    ToChannelFromBotOAuthScope: 'https://api.botframework.com',
    OAuthUrl: 'https://api.botframework.com',
    ValidateAuthority: true,
    CallerId: CallerIdConstants.PublicAzureChannel,
  };
}

type AuthResult = Awaited<
  ReturnType<ConfigurationBotFrameworkAuthentication['authenticateRequest']>
>;

/**
 * CloudAdapter with its turn run after our own authentication step: CloudAdapter.process answers a
 * failed authentication with 500 and the error text (a forged token's "invalid signature").
 */
class RelayCloudAdapter extends CloudAdapter {
  runAuthenticated(
    auth: AuthResult,
    activity: Activity,
    logic: (context: TurnContext) => Promise<void>,
  ) {
    return this.processActivity(auth, activity, logic);
  }
}

/** The thread of message `activityId`: channels thread by conversation id, chats by replyToId. */
function inThreadOf(
  reference: Reference,
  activityId: string,
): { reference: Reference; replyToId?: string } {
  const conversation = reference.conversation;
  if (conversation?.conversationType === 'channel') {
    return {
      reference: {
        ...reference,
        conversation: { ...conversation, id: `${conversation.id};messageid=${activityId}` },
      },
    };
  }
  return { reference, replyToId: activityId };
}

class TeamsAdapter implements PlatformAdapter {
  readonly platform = 'teams';
  readonly credentialEnv = 'TEAMS_APP_PASSWORD';
  readonly routes: HttpRoute[];
  private readonly cloud: RelayCloudAdapter;
  private readonly auth: ConfigurationBotFrameworkAuthentication;
  private readonly tuning: TeamsTuning;
  private ctx: AdapterContext | null = null;
  private store: TeamsStore | null = null;
  private bot: TeamsBot | null = null;

  constructor(
    private readonly config: TeamsConfig,
    clock: PaceClock,
  ) {
    if (!config.appId && !config.allowUnauthenticated) {
      // An empty app id makes botbuilder accept every request unauthenticated.
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
    const metadata = this.tuning.openIdMetadataUrl;
    this.auth = new ConfigurationBotFrameworkAuthentication(
      {
        MicrosoftAppId: config.appId,
        MicrosoftAppPassword: config.appPassword,
        MicrosoftAppType: config.appType,
        MicrosoftAppTenantId: config.tenantId,
        ...(metadata ? publicCloudWithKeysAt(metadata) : {}),
      },
      undefined,
      undefined,
      undefined,
      { httpClient: transport },
    );
    this.cloud = new RelayCloudAdapter(this.auth);
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
    if (!this.ctx || !bot) return { status: 503, body: { error: 'not_started' } };
    let body: unknown;
    try {
      body = JSON.parse(req.rawBody.toString('utf8'));
    } catch {
      return { status: 400, body: { error: 'invalid_json' } };
    }
    const shape = ACTIVITY_SHAPE.safeParse(body);
    if (!shape.success) {
      // botbuilder throws on activities without these; refuse them here with the field that is wrong.
      const issue = shape.error.issues[0];
      return {
        status: 400,
        body: {
          error: 'not_an_activity',
          message: `${issue?.path.join('.') || '(body)'}: ${issue?.message ?? 'invalid'}`,
        },
      };
    }
    const activity = body as Activity;
    const log = this.ctx.log;
    if (!this.config.appId) {
      // Nobody vouches for this activity, and the relay would send to its serviceUrl.
      const refusal = testModeServiceUrlRefusal(activity.serviceUrl);
      if (refusal) {
        log.warn({ platform: 'teams', reason: refusal }, 'teams activity refused');
        return { status: 403, body: { error: 'service_url_refused', message: refusal } };
      }
    }
    const authorization = req.headers.authorization ?? '';
    let auth: AuthResult;
    try {
      auth = await this.auth.authenticateRequest(activity, authorization);
    } catch (err) {
      const failure = classifyAuthFailure(err, authorization);
      if (failure.kind === 'unavailable') {
        log.error(
          { platform: 'teams', reason: failure.reason },
          'teams request not checked: the Bot Framework signing keys could not be read',
        );
        return { status: 503, headers: { 'retry-after': '5' }, body: { error: 'unavailable' } };
      }
      log.warn(
        { platform: 'teams', reason: failure.reason },
        'teams request refused: not authenticated',
      );
      return { status: 401, body: { error: 'unauthorized' } };
    }
    try {
      const answer = await this.cloud.runAuthenticated(auth, activity, (context) =>
        bot.turn(context),
      );
      return answer?.body === undefined
        ? { status: answer?.status ?? 200 }
        : { status: answer.status, body: answer.body as InboundResponse['body'] };
    } catch (err) {
      log.error({ platform: 'teams', err: scrub(String(err)) }, 'teams activity failed');
      return { status: 500, body: { error: 'internal_error' } };
    }
  }

  private requireStore(call: string): TeamsStore {
    if (!this.store) throw new PlatformError('teams', call, 'remote', 'adapter not started');
    return this.store;
  }

  private async reference(address: string, call: string): Promise<Reference> {
    const reference = await this.requireStore(call).loadReference(address);
    if (!reference) throw toPlatformError(new TeamsUnknownConversationError(address), call);
    return reference;
  }

  /** Runs `work` in a proactive turn of `reference`; errors leave as PlatformError naming `call`. */
  private async proactive<T>(
    reference: Reference,
    call: string,
    work: (context: TurnContext) => Promise<T>,
  ): Promise<T> {
    let outcome: { ok: true; value: T } | { ok: false; error: unknown } | undefined;
    try {
      await this.cloud.continueConversationAsync(this.config.appId, reference, async (context) => {
        try {
          outcome = { ok: true, value: await work(context) };
        } catch (error) {
          outcome = { ok: false, error };
        }
      });
    } catch (error) {
      throw toPlatformError(error, call);
    }
    if (!outcome)
      throw new PlatformError('teams', call, 'remote', 'the proactive turn did not run');
    if (!outcome.ok) throw toPlatformError(outcome.error, call);
    return outcome.value;
  }

  /** Sends one activity built on `reference` (no bogus replyToId: posts are top-level). */
  private async send(
    context: TurnContext,
    reference: Reference,
    partial: Partial<Activity>,
    call: string,
  ): Promise<string> {
    const activity = TurnContext.applyConversationReference(
      { type: 'message', ...partial },
      reference,
    );
    const [response] = await context.adapter.sendActivities(context, [activity]);
    if (!response?.id)
      throw new PlatformError('teams', call, 'remote', 'the connector returned no activity id');
    return response.id;
  }

  async post(address: string, card: Card, options?: PostOptions): Promise<MessageRef> {
    const store = this.requireStore('sendActivity');
    let reference = await this.reference(address, 'sendActivity');
    let replyToId: string | undefined;
    const parent = options?.replyTo ? activityIdOf(options.replyTo) : null;
    if (parent) ({ reference, replyToId } = inThreadOf(reference, parent));
    const attachments = [CardFactory.adaptiveCard(renderTeamsCard(card))];
    const summary = truncateText(card.title, 200);
    const activityId = await this.proactive(reference, 'sendActivity', (context) =>
      this.send(
        context,
        reference,
        { attachments, summary, ...(replyToId ? { replyToId } : {}) },
        'sendActivity',
      ),
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
    const attachments = [CardFactory.adaptiveCard(renderTeamsCard(card))];
    await this.proactive(reference, 'updateActivity', async (context) => {
      const activity = TurnContext.applyConversationReference(
        { type: 'message', id: activityId, attachments, summary: truncateText(card.title, 200) },
        reference,
      );
      await context.adapter.updateActivity(context, activity);
    });
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
    // Text and a card in one activity are split in two by Teams: the text goes inside the card.
    const partial: Partial<Activity> = link
      ? {
          attachments: [
            CardFactory.adaptiveCard({
              type: 'AdaptiveCard',
              version: '1.4',
              body: [{ type: 'TextBlock', text: escapeTeamsText(text), wrap: true }],
              actions: [{ type: 'Action.OpenUrl', title: link.label, url: link.url }],
            }),
          ],
          summary: truncateText(text, 200),
        }
      : { text, textFormat: 'plain' };
    if (thread.replyToId) partial.replyToId = thread.replyToId;
    await this.proactive(thread.reference, 'sendActivity', (context) =>
      this.send(context, thread.reference, partial, 'sendActivity'),
    );
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
  config: TeamsConfig,
  clock: PaceClock = realClock,
): PlatformAdapter {
  return new TeamsAdapter(config, clock);
}
