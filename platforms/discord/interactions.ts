/**
 * The interaction flow both receive modes share: PING, `/hitl id`, and button taps. The mode only
 * decides how the initial response travels (the HTTP answer, or a REST callback for the gateway).
 */
import type { AdapterContext, Tap, TapReply } from '../../src/adapter.ts';
import { firstDelivery, stringsOf, tapWithin, truncateUtf16 } from '../../src/adapter-kit.ts';
import type { DiscordApi, DiscordInteractionResponse } from './api.ts';
import { type AskContent, askRefusal, loadAsk } from './ask-flow.ts';
import {
  askModal,
  CALLBACK_MODAL,
  choiceAnswer,
  modalAnswer,
  modalValues,
  parseModalId,
  parseOpen,
  parseRankId,
  rankStep,
} from './ask-modal.ts';
import { DiscordErrorCode, discordCodeOf, isAnsweredElsewhere } from './errors.ts';
import {
  discordMessageRef,
  InteractionType,
  interactionChannelId,
  interactionUser,
  parseHitlCommand,
  parseTap,
  type RawInteraction,
} from './parse.ts';
import { answerPendingCommand, answerPendingMore, parsePendingCommand } from './pending.ts';
import { answerPendingBulk } from './pending-bulk.ts';
import { answerRepost } from './pending-repost.ts';
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

function ephemeral(content: string): DiscordInteractionResponse {
  return {
    type: CallbackType.channelMessage,
    data: { content, flags: DISCORD_FLAG_EPHEMERAL, allowed_mentions: NO_MENTIONS },
  };
}

/** An ephemeral message updated in place (a ranking step, or what became of it). */
function ephemeralUpdate(content: string): DiscordInteractionResponse {
  return {
    type: CallbackType.updateMessage,
    data: { content, components: [], allowed_mentions: NO_MENTIONS },
  };
}

/** A refused answer: the relay's text and each problem with its field (bounded). */
function refusal(reply: TapReply, ctx: AdapterContext): string {
  return truncateUtf16(stringsOf(ctx).refusal(reply.text, reply.issues ?? []), 1900);
}

/** True for the first delivery of an interaction (Discord redelivers what it thinks was lost). */
function firstOf(raw: RawInteraction, ctx: AdapterContext): Promise<boolean> {
  return firstDelivery(ctx.kv, `discord:interaction:${raw.id}`, DISCORD_INTERACTION_TOKEN_TTL_MS);
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
        await respond(await this.command(raw, ctx));
        return true;
      case InteractionType.messageComponent:
        await this.component(raw, respond, ctx);
        return true;
      case InteractionType.modalSubmit:
        await this.modalSubmit(raw, respond, ctx);
        return true;
      default:
        return false;
    }
  }

  private async command(
    raw: RawInteraction,
    ctx: AdapterContext,
  ): Promise<DiscordInteractionResponse> {
    const pending = parsePendingCommand(raw);
    if (pending) return answerPendingCommand(raw, pending.mine, ctx);
    const sub = parseHitlCommand(raw);
    const channelId = interactionChannelId(raw);
    if (sub === 'id' && channelId)
      return ephemeral(stringsOf(ctx).target(`\`discord:${channelId}\``));
    return ephemeral(stringsOf(ctx).unknownCommand('`/hitl id`'));
  }

  private async component(
    raw: RawInteraction,
    respond: Respond,
    ctx: AdapterContext,
  ): Promise<void> {
    const fresh = await firstOf(raw, ctx);
    const more = fresh
      ? ((await answerPendingMore(raw, ctx)) ?? (await answerRepost(raw, ctx)))
      : null;
    if (more) {
      await respond(more);
      return;
    }
    const late = {
      deadlineMs: this.deadlineMs,
      followUp: (body: object) => this.sendFollowUp(raw, body, ctx),
    };
    if (fresh && (await answerPendingBulk(raw, ctx, respond, late))) return;
    if (fresh && (await this.askComponent(raw, respond, ctx))) return;
    const tap = fresh ? parseTap(raw) : null;
    if (!tap) {
      // A duplicate delivery or a button that is not ours: acknowledge, change nothing.
      await respond({ type: CallbackType.deferredUpdate });
      return;
    }
    await this.submit(raw, tap, respond, ctx);
  }

  /**
   * Submits `tap` within the 3 s window: the card as it stands (UPDATE_MESSAGE), or a refused
   * answer as an ephemeral reply (nothing recorded); a slow one is acknowledged and followed up.
   */
  private async submit(
    raw: RawInteraction,
    tap: Tap,
    respond: Respond,
    ctx: AdapterContext,
    inEphemeral = false,
  ): Promise<void> {
    const within = await tapWithin(ctx, tap, this.deadlineMs);
    const early = within.late ? null : within.reply;
    if (early?.outcome === 'invalid_answer') {
      const text = refusal(early, ctx);
      await respond(inEphemeral ? ephemeralUpdate(text) : ephemeral(text));
      return;
    }
    if (early && inEphemeral) {
      await respond(
        ephemeralUpdate(early.outcome === 'submitted' ? stringsOf(ctx).answerRecorded : early.text),
      );
      return;
    }
    if (early) {
      await respond(this.updateFor(early, ctx));
      await this.followUp(raw, early, ctx);
      return;
    }
    // Too slow for the 3 s window: acknowledge now; the relay edits the message when it is done.
    await respond({ type: CallbackType.deferredUpdate });
    if (within.late) await this.followUp(raw, await within.late, ctx);
  }

  /** An ask's "Answer…" / "Rank…" button or a ranking step; false when the component is not one. */
  private async askComponent(
    raw: RawInteraction,
    respond: Respond,
    ctx: AdapterContext,
  ): Promise<boolean> {
    const open = parseOpen(raw.data?.custom_id);
    const rank = open ? null : parseRankId(raw.data?.custom_id);
    if (!open && !rank) return false;
    const key = (open ?? rank)!.key;
    const content = await loadAsk(ctx, key);
    const user = interactionUser(raw);
    if (!content || !user) {
      await respond(ephemeral(stringsOf(ctx).notAnswerable));
      return true;
    }
    const at: AskAt = { raw, key, content, user, respond, ctx };
    if (open?.what === 'choice') await this.askChoice(at, open.n);
    // The first step of a modal or a ranking: refused at once when this person may not answer.
    else if (open && (await this.refused(at))) return true;
    else if (open?.what === 'open') {
      const modal = askModal(key, content, stringsOf(ctx).asks.steps);
      await respond(
        modal ? { type: CALLBACK_MODAL, data: modal } : ephemeral(stringsOf(ctx).useDetails),
      );
    } else await this.askRank(at, rank?.places ?? null);
    return true;
  }

  /** An approval's own choice button: its answer goes to the relay. */
  private async askChoice(at: AskAt, n: number): Promise<void> {
    const answer = choiceAnswer(at.content, n);
    if (!answer) {
      await at.respond(ephemeral(stringsOf(at.ctx).unknownButton));
      return;
    }
    const channelId = interactionChannelId(at.raw);
    const ref =
      channelId && at.raw.message?.id ? discordMessageRef(channelId, at.raw.message.id) : null;
    const tap: Tap = { platform: 'discord', key: at.key, ...answer, user: at.user, ref };
    await this.submit(at.raw, tap, at.respond, at.ctx);
  }

  /**
   * Whether the context refuses this person before any input (allowlist, policy, closed case):
   * then the refusal is the ephemeral answer and no modal or ranking opens.
   */
  private async refused(at: AskAt): Promise<boolean> {
    const channelId = interactionChannelId(at.raw);
    const ref =
      channelId && at.raw.message?.id ? discordMessageRef(channelId, at.raw.message.id) : null;
    const text = await askRefusal(at.ctx, at.key, at.content, at.user, ref);
    if (text !== null) await at.respond(ephemeral(text));
    return text !== null;
  }

  /** A ranking's next step (`places` null: the first, from the card's "Rank…" button). */
  private async askRank(at: AskAt, places: number[] | null): Promise<void> {
    const picked = at.raw.data?.values?.[0];
    if (places && !/^\d{1,2}$/.test(picked ?? '')) {
      await at.respond(ephemeralUpdate(stringsOf(at.ctx).choiceInvalid));
      return;
    }
    const step = rankStep(
      at.key,
      at.content,
      places ? [...places, Number(picked)] : [],
      stringsOf(at.ctx).asks.steps,
    );
    if (!step) {
      await at.respond(ephemeral(stringsOf(at.ctx).useDetails));
      return;
    }
    if ('ranking' in step) {
      // The ranking is complete: the answer goes to the relay; the ephemeral says what became of it.
      const tap: Tap = {
        platform: 'discord',
        key: at.key,
        action: 'submit',
        data: step,
        user: at.user,
        ref: null,
      };
      await this.submit(at.raw, tap, at.respond, at.ctx, true);
      return;
    }
    const message = {
      content: step.content,
      components: [{ type: 1 as const, components: [step.select] as [typeof step.select] }],
      allowed_mentions: NO_MENTIONS,
    };
    await at.respond(
      places
        ? { type: CallbackType.updateMessage, data: message }
        : {
            type: CallbackType.channelMessage,
            data: { ...message, flags: DISCORD_FLAG_EPHEMERAL },
          },
    );
  }

  /** A submitted ask modal: typed and checked by the relay; a refusal is an ephemeral reply. */
  private async modalSubmit(
    raw: RawInteraction,
    respond: Respond,
    ctx: AdapterContext,
  ): Promise<void> {
    const fresh = await firstOf(raw, ctx);
    const key = fresh ? parseModalId(raw.data?.custom_id) : null;
    const content = key ? await loadAsk(ctx, key) : undefined;
    const user = interactionUser(raw);
    const answer = content ? modalAnswer(content, modalValues(raw.data?.components)) : null;
    if (!key || !user || !answer) {
      await respond(
        fresh ? ephemeral(stringsOf(ctx).notAnswerable) : { type: CallbackType.deferredUpdate },
      );
      return;
    }
    const channelId = interactionChannelId(raw);
    const ref = channelId && raw.message?.id ? discordMessageRef(channelId, raw.message.id) : null;
    await this.submit(raw, { platform: 'discord', key, ...answer, user, ref }, respond, ctx);
  }

  /** UPDATE_MESSAGE with the card as it stands, or a plain acknowledgement when there is none. */
  private updateFor(reply: TapReply, ctx: AdapterContext): DiscordInteractionResponse {
    if (!reply.card) return { type: CallbackType.deferredUpdate };
    try {
      return { type: CallbackType.updateMessage, data: renderMessage(reply.card, ctx.strings) };
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
    await this.sendFollowUp(raw, body, ctx);
  }

  /** Sends a follow-up (best effort: a failure is logged), once more if it raced our answer. */
  private async sendFollowUp(
    raw: RawInteraction,
    body: object,
    ctx: AdapterContext,
  ): Promise<void> {
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

/** An ask interaction being answered: its case, content and person. */
interface AskAt {
  raw: RawInteraction;
  key: string;
  content: AskContent;
  user: Tap['user'];
  respond: Respond;
  ctx: AdapterContext;
}
