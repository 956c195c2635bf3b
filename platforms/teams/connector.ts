/**
 * The narrow seam to the Bot Framework SDK: the inbound JWT check and turn, and the two connector
 * calls (send, update). This is the only module that imports botbuilder; everything else in
 * platforms/teams speaks TeamsActivity / TeamsReference (activity.ts), so replacing botbuilder
 * (archived upstream) later means writing this one module again.
 */
import {
  type Activity,
  CallerIdConstants,
  CloudAdapter,
  ConfigurationBotFrameworkAuthentication,
  type ConversationReference,
  TurnContext,
} from 'botbuilder';
import { PlatformError } from '../../src/errors.ts';
import type { OutgoingActivity, TeamsActivity, TeamsReference } from './activity.ts';
import type { TeamsConfig } from './config.ts';
import { toPlatformError } from './errors.ts';
import { classifyAuthFailure } from './http.ts';
import type { TeamsTransport } from './transport.ts';

/** An invoke's answer body (Universal Actions: a card or a message). */
export interface InvokeBody {
  statusCode: number;
  type: string;
  value: unknown;
}

/** What one inbound turn produced: messages to send in its conversation, and an invoke answer. */
export interface TurnResult {
  replies?: OutgoingActivity[];
  invoke?: InvokeBody;
}

/** What became of an inbound request. */
export type Inbound =
  | { kind: 'refused'; reason: string }
  | { kind: 'unavailable'; reason: string }
  | { kind: 'done'; status: number; body?: unknown };

/** The Bot Framework, as the adapter uses it. */
export interface TeamsConnector {
  /**
   * Checks the request's Bot Framework JWT (skipped without an app id: the test mode), then runs
   * `turn` and sends its replies in the activity's conversation; the invoke answer is the body.
   */
  receive(
    activity: TeamsActivity,
    authorization: string,
    turn: (activity: TeamsActivity) => Promise<TurnResult>,
  ): Promise<Inbound>;
  /** Posts `activity` in the conversation of `reference`; resolves to its activity id. */
  send(reference: TeamsReference, activity: OutgoingActivity): Promise<string>;
  /** Replaces activity `activityId` in the conversation of `reference`. */
  update(reference: TeamsReference, activityId: string, activity: OutgoingActivity): Promise<void>;
  /**
   * Opens (or finds: Teams answers the same id again) the personal chat of user `userId` with the
   * bot, in the tenant and service of `reference`; resolves to its reference.
   */
  openPrivate(reference: TeamsReference, userId: string): Promise<TeamsReference>;
}

/** The audience of the bot's outbound token in the public cloud (ToChannelFromBotOAuthScope). */
const CONNECTOR_AUDIENCE = 'https://api.botframework.com';

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

type CompatHttpClient = NonNullable<
  NonNullable<
    ConstructorParameters<typeof ConfigurationBotFrameworkAuthentication>[4]
  >['httpClient']
>;

/** Our transport is structurally botbuilder's compat HttpClient: checked here, at compile time. */
function compatHttpClient(transport: TeamsTransport): CompatHttpClient {
  return transport;
}

/** Our stored reference in botbuilder's shape. */
function toConversationReference(ref: TeamsReference): Partial<ConversationReference> {
  const { id, type, tenantId } = ref.conversation;
  return {
    serviceUrl: ref.serviceUrl,
    channelId: ref.channelId,
    conversation: {
      id,
      isGroup: type !== 'personal',
      conversationType: type ?? '',
      name: '',
      ...(tenantId ? { tenantId } : {}),
    },
    ...(ref.botId ? { bot: { id: ref.botId, name: '' } } : {}),
  };
}

/** botbuilder's CloudAdapter, sending through our paced, retrying transport. */
class BotbuilderConnector implements TeamsConnector {
  private readonly auth: ConfigurationBotFrameworkAuthentication;
  private readonly cloud: RelayCloudAdapter;

  constructor(
    private readonly config: TeamsConfig,
    transport: TeamsTransport,
    metadataUrl: string | undefined,
  ) {
    this.auth = new ConfigurationBotFrameworkAuthentication(
      {
        MicrosoftAppId: config.appId,
        MicrosoftAppPassword: config.appPassword,
        MicrosoftAppType: config.appType,
        MicrosoftAppTenantId: config.tenantId,
        ...(metadataUrl ? publicCloudWithKeysAt(metadataUrl) : {}),
      },
      undefined,
      undefined,
      undefined,
      { httpClient: compatHttpClient(transport) },
    );
    this.cloud = new RelayCloudAdapter(this.auth);
  }

  async receive(
    activity: TeamsActivity,
    authorization: string,
    turn: (activity: TeamsActivity) => Promise<TurnResult>,
  ): Promise<Inbound> {
    let auth: AuthResult;
    try {
      auth = await this.auth.authenticateRequest(activity as Activity, authorization);
    } catch (err) {
      return classifyAuthFailure(err, authorization);
    }
    const answer = await this.cloud.runAuthenticated(
      auth,
      activity as Activity,
      async (context) => {
        const result = await turn(context.activity as TeamsActivity);
        for (const reply of result.replies ?? [])
          await context.sendActivity({ type: 'message', ...reply });
        if (result.invoke) {
          await context.sendActivity({
            type: 'invokeResponse',
            value: { status: 200, body: result.invoke },
          });
        }
      },
    );
    return { kind: 'done', status: answer?.status ?? 200, body: answer?.body };
  }

  /** Runs `work` in a proactive turn of `reference`; errors leave as PlatformError naming `call`. */
  private async proactive<T>(
    reference: TeamsReference,
    call: string,
    work: (context: TurnContext, ref: Partial<ConversationReference>) => Promise<T>,
  ): Promise<T> {
    const ref = toConversationReference(reference);
    let outcome: { ok: true; value: T } | { ok: false; error: unknown } | undefined;
    try {
      await this.cloud.continueConversationAsync(this.config.appId, ref, async (context) => {
        try {
          outcome = { ok: true, value: await work(context, ref) };
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

  send(reference: TeamsReference, partial: OutgoingActivity): Promise<string> {
    return this.proactive(reference, 'sendActivity', async (context, ref) => {
      // Built on the reference alone: no bogus replyToId, posts are top-level unless asked.
      const activity = TurnContext.applyConversationReference({ type: 'message', ...partial }, ref);
      const [response] = await context.adapter.sendActivities(context, [activity]);
      if (!response?.id)
        throw new PlatformError(
          'teams',
          'sendActivity',
          'remote',
          'the connector returned no activity id',
        );
      return response.id;
    });
  }

  async update(
    reference: TeamsReference,
    activityId: string,
    partial: OutgoingActivity,
  ): Promise<void> {
    await this.proactive(reference, 'updateActivity', async (context, ref) => {
      const activity = TurnContext.applyConversationReference(
        { type: 'message', id: activityId, ...partial },
        ref,
      );
      await context.adapter.updateActivity(context, activity);
    });
  }

  openPrivate(reference: TeamsReference, userId: string): Promise<TeamsReference> {
    return createPersonalConversation(this.cloud, this.config.appId, reference, userId);
  }
}

/** BotbuilderConnector.openPrivate, on its own to keep the class short. */
async function createPersonalConversation(
  cloud: CloudAdapter,
  appId: string,
  reference: TeamsReference,
  userId: string,
): Promise<TeamsReference> {
  const { tenantId } = reference.conversation;
  let id: string | undefined;
  try {
    await cloud.createConversationAsync(
      appId,
      reference.channelId,
      reference.serviceUrl,
      CONNECTOR_AUDIENCE,
      {
        isGroup: false,
        bot: { id: reference.botId ?? `28:${appId}`, name: '' },
        members: [{ id: userId, name: '' }],
        channelData: tenantId ? { tenant: { id: tenantId } } : {},
        ...(tenantId ? { tenantId } : {}),
      },
      async (context) => {
        id = context.activity.conversation?.id;
      },
    );
  } catch (error) {
    throw toPlatformError(error, 'createConversation');
  }
  if (!id) {
    throw new PlatformError('teams', 'createConversation', 'remote', 'no conversation id returned');
  }
  return {
    ...reference,
    conversation: { id, type: 'personal', ...(tenantId ? { tenantId } : {}) },
  };
}

/** The Bot Framework connector of `config`, sending through `transport`. */
export function createTeamsConnector(
  config: TeamsConfig,
  transport: TeamsTransport,
  metadataUrl: string | undefined,
): TeamsConnector {
  return new BotbuilderConnector(config, transport, metadataUrl);
}
