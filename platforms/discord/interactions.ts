/**
 * The interaction flow both receive modes share: PING, `/hitl id`, and button taps. The mode only
 * decides how the initial response travels (the HTTP answer, or a REST callback for the gateway).
 */
import type { AdapterContext, TapReply } from '../../src/adapter.ts';
import type { DiscordApi, DiscordInteractionResponse } from './api.ts';
import { DiscordErrorCode, discordCodeOf, isAnsweredElsewhere } from './errors.ts';
import {
  InteractionType,
  interactionChannelId,
  parseHitlCommand,
  parseTap,
  type RawInteraction,
} from './parse.ts';
import { NO_MENTIONS, renderMessage, renderNotice } from './render.ts';

/**
 * How long a tap may take before we answer with a deferred update. Discord allows 3 s for the
 * initial response; 2 s leaves room for the network and a slow replica.
 */
export const DISCORD_TAP_DEADLINE_MS = 2_000;
/** Interaction tokens live 15 minutes; a delivery seen within that time is a duplicate. */
export const DISCORD_INTERACTION_TOKEN_TTL_MS = 15 * 60_000;
/** Message flag EPHEMERAL: only the person who acted sees the message. */
export const DISCORD_FLAG_EPHEMERAL = 64;

/** Interaction callback types (Discord's numbers). */
export const CallbackType = {
  pong: 1,
  channelMessage: 4,
  deferredUpdate: 6,
  updateMessage: 7,
} as const;

/** Delivers the initial response; resolves once it is on its way. */
export type Respond = (response: DiscordInteractionResponse) => Promise<void>;

/** What the flow needs from the adapter. */
export interface InteractionFlowDeps {
  api: DiscordApi;
  applicationId: string;
  tapDeadlineMs?: number;
}

const FAILED_REPLY: TapReply = {
  outcome: 'failed',
  text: 'Something went wrong; nothing was decided. Try again in a moment or open Details.',
  card: null,
};

function ephemeral(content: string): DiscordInteractionResponse {
  return {
    type: CallbackType.channelMessage,
    data: { content, flags: DISCORD_FLAG_EPHEMERAL, allowed_mentions: NO_MENTIONS },
  };
}

/** Handles one interaction end to end (answer + follow-up). */
export class InteractionFlow {
  private readonly deadlineMs: number;

  constructor(private readonly deps: InteractionFlowDeps) {
    this.deadlineMs = deps.tapDeadlineMs ?? DISCORD_TAP_DEADLINE_MS;
  }

  /**
   * Answers `raw` through `respond` and then sends any follow-up. Resolves when all of it is done.
   * Returns false (without responding) for interaction types we do not answer.
   */
  async handle(raw: RawInteraction, respond: Respond, ctx: AdapterContext): Promise<boolean> {
    switch (raw.type) {
      case InteractionType.ping:
        await respond({ type: CallbackType.pong });
        return true;
      case InteractionType.applicationCommand:
        await respond(this.command(raw));
        return true;
      case InteractionType.messageComponent:
        await this.component(raw, respond, ctx);
        return true;
      default:
        return false;
    }
  }

  private command(raw: RawInteraction): DiscordInteractionResponse {
    const sub = parseHitlCommand(raw);
    const channelId = interactionChannelId(raw);
    if (sub === 'id' && channelId) {
      return ephemeral(
        `This channel's hitl-relay target is \`discord:${channelId}\`\nPut it in the agent's configuration to send review cases here.`,
      );
    }
    return ephemeral("Unknown command. Try `/hitl id` to get this channel's target.");
  }

  private async component(
    raw: RawInteraction,
    respond: Respond,
    ctx: AdapterContext,
  ): Promise<void> {
    const fresh = await ctx.kv.setIfAbsent(
      `discord:interaction:${raw.id}`,
      '1',
      DISCORD_INTERACTION_TOKEN_TTL_MS,
    );
    const tap = fresh ? parseTap(raw) : null;
    if (!tap) {
      // A duplicate delivery or a button that is not ours: acknowledge, change nothing.
      await respond({ type: CallbackType.deferredUpdate });
      return;
    }
    const pending = ctx.onTap(tap).catch((error: unknown) => {
      ctx.log.error(
        { err: error instanceof Error ? error.message : String(error) },
        'discord tap failed',
      );
      return FAILED_REPLY;
    });
    let timer: NodeJS.Timeout | undefined;
    const early = await Promise.race([
      pending,
      new Promise<null>((resolve) => {
        timer = setTimeout(() => resolve(null), this.deadlineMs);
      }),
    ]);
    clearTimeout(timer);
    if (early) {
      await respond(this.updateFor(early, ctx));
      await this.followUp(raw, early, ctx);
      return;
    }
    // Too slow for the 3 s window: acknowledge now; the engine edits the message when it is done.
    await respond({ type: CallbackType.deferredUpdate });
    await this.followUp(raw, await pending, ctx);
  }

  /** UPDATE_MESSAGE with the card as it stands, or a plain acknowledgement when there is none. */
  private updateFor(reply: TapReply, ctx: AdapterContext): DiscordInteractionResponse {
    if (!reply.card) return { type: CallbackType.deferredUpdate };
    try {
      return { type: CallbackType.updateMessage, data: renderMessage(reply.card) };
    } catch (error) {
      ctx.log.error(
        { err: error instanceof Error ? error.message : String(error) },
        'discord render failed',
      );
      return { type: CallbackType.deferredUpdate };
    }
  }

  /** Tells the person (only them) what became of the tap, unless the card change already says it. */
  private async followUp(raw: RawInteraction, reply: TapReply, ctx: AdapterContext): Promise<void> {
    if (reply.outcome === 'submitted' || !reply.text.trim()) return;
    const body = { ...renderNotice(reply.text, null), flags: DISCORD_FLAG_EPHEMERAL };
    const send = () => this.deps.api.followUp(this.deps.applicationId, raw.token, body);
    try {
      await send();
    } catch (error) {
      let failure = error;
      // Over HTTP our answer and this follow-up race; Discord says 10015 (Unknown Webhook) when the
      // follow-up wins. One retry a moment later settles it.
      if (isUnknownWebhook(error)) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        try {
          await send();
          return;
        } catch (again) {
          failure = again;
        }
      }
      logDeliveryFailure(ctx, 'follow-up', failure);
    }
  }
}

function isUnknownWebhook(error: unknown): boolean {
  return discordCodeOf(error) === DiscordErrorCode.unknownWebhook;
}

/** Best-effort deliveries log and go on; an interaction answered elsewhere or expired is routine. */
export function logDeliveryFailure(ctx: AdapterContext, what: string, error: unknown): void {
  const message = error instanceof Error ? error.message : String(error);
  if (isAnsweredElsewhere(error))
    ctx.log.debug({ err: message }, `discord ${what}: interaction already answered`);
  else ctx.log.warn({ err: message }, `discord ${what} failed`);
}
