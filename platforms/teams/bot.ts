/**
 * One inbound turn: the bot added to a conversation (capture its reference, say the target), the
 * `hitl id` command, Action.Execute invokes (answered with the refreshed card) and Action.Submit
 * messages from older clients (a refusal is said in the conversation). Speaks TeamsActivity and
 * returns what to send (connector.ts does the sending), so no SDK is needed here.
 */
import type {
  AdapterContext,
  AdapterStrings,
  MessageRef,
  Tap,
  TapReply,
} from '../../src/adapter.ts';
import { pendingCommand, stringsOf, tapWithin, truncateCodePoints } from '../../src/adapter-kit.ts';
import { scrub } from '../../src/log.ts';
import type { Card } from '../../src/render/card.ts';
import {
  type OutgoingActivity,
  referenceOf,
  type TeamsActivity,
  type TeamsReference,
  textWithoutBotMention,
} from './activity.ts';
import { type AskRetry, askInputs } from './ask.ts';
import type { InvokeBody, TurnResult } from './connector.ts';
import {
  activityIdOf,
  conversationKey,
  parseExecuteInvoke,
  parseSubmitMessage,
  TEAMS_CARD_ACTION_INVOKE,
} from './parse.ts';
import { isPendingPayload, pendingMessage, pendingNext } from './pending.ts';
import { isBulkPayload, pendingBulk } from './pending-bulk.ts';
import { isRepostPayload, repostPress } from './pending-repost.ts';
import { renderTeamsCard, TEAMS_PAYLOAD_FIELD } from './render.ts';
import type { TeamsStore } from './store.ts';

/** What a turn needs from the adapter around it. */
export interface TeamsBotDeps {
  ctx: AdapterContext;
  store: TeamsStore;
  invokeDeadlineMs: number;
  /** False in the unauthenticated test mode: its activities never replace a stored reference. */
  authenticated: boolean;
  /** Re-sends the stored card of `ref` to everyone (after a late tap answer). */
  refresh(ref: MessageRef): Promise<void>;
  /** Sends `message` to the personal chat of `userId` with the bot (opened when needed). */
  sendPrivately(from: TeamsReference, userId: string, message: OutgoingActivity): Promise<void>;
}

const HITL_ID = /^\/?hitl\s+id$/i;
/** A reply in the conversation stays short (Teams shows long texts folded anyway). */
const REPLY_MAX_CHARS = 2000;

function cardAnswer(
  card: Card,
  notice: string | null,
  submitting: boolean | string = false,
  askRetry?: AskRetry,
  strings?: AdapterStrings,
): InvokeBody {
  return {
    statusCode: 200,
    type: 'application/vnd.microsoft.card.adaptive',
    value: renderTeamsCard(card, {
      notice,
      submitting,
      strings,
      ...(askRetry ? { askRetry } : {}),
    }),
  };
}

function messageAnswer(text: string): InvokeBody {
  return { statusCode: 200, type: 'application/vnd.microsoft.activity.message', value: text };
}

function plainReply(text: string): TurnResult {
  return { replies: [{ text: truncateCodePoints(text, REPLY_MAX_CHARS), textFormat: 'plain' }] };
}

/** The turn logic the connector runs for each authenticated activity. */
export class TeamsBot {
  constructor(private readonly deps: TeamsBotDeps) {}

  async turn(activity: TeamsActivity): Promise<TurnResult> {
    try {
      if (activity.type === 'conversationUpdate') return await this.onConversationUpdate(activity);
      if (activity.type === 'invoke' && activity.name === TEAMS_CARD_ACTION_INVOKE) {
        return { invoke: await this.onExecute(activity) };
      }
      if (activity.type === 'message') return await this.onMessage(activity);
    } catch (err) {
      this.deps.ctx.log.error(
        { platform: 'teams', activity: activity.type, err: scrub(String(err)) },
        'teams turn failed',
      );
      if (activity.type === 'invoke')
        return { invoke: messageAnswer(stringsOf(this.deps.ctx).tapFailed) };
    }
    return {};
  }

  private async onConversationUpdate(activity: TeamsActivity): Promise<TurnResult> {
    const botAdded = (activity.membersAdded ?? []).some((m) => m.id === activity.recipient?.id);
    if (!botAdded) return {};
    const key = await this.capture(activity);
    this.deps.ctx.log.info({ platform: 'teams', target: `teams:${key}` }, 'teams bot added');
    return plainReply(stringsOf(this.deps.ctx).welcome(`teams:${key}`, '"hitl id"'));
  }

  private async onMessage(activity: TeamsActivity): Promise<TurnResult> {
    const submitted = parseSubmitMessage(activity);
    if (submitted) return this.onSubmit(activity, submitted);
    const text = textWithoutBotMention(activity);
    const pending = pendingCommand(text);
    if (pending) return this.onPending(activity, pending.mine);
    if (!HITL_ID.test(text)) return {};
    const key = await this.capture(activity);
    const words = stringsOf(this.deps.ctx);
    return plainReply(
      `${words.target(`teams:${key}`)}\n${words.yourUserId(activity.from?.id ?? '?')}`,
    );
  }

  /**
   * `/pending [mine]`: in the person's personal chat the list is the answer; anywhere else it goes
   * there (Teams shows every channel message to everyone) and the channel hears only that it went.
   */
  private async onPending(activity: TeamsActivity, mine: boolean): Promise<TurnResult> {
    const { ctx } = this.deps;
    const from = activity.from;
    if (!from?.id) return {};
    const key = conversationKey(activity.conversation.id);
    const query = { platform: 'teams', address: key, user: { id: from.id }, mine };
    const message = await pendingMessage(ctx, query);
    if (activity.conversation.conversationType === 'personal') return { replies: [message] };
    const words = stringsOf(ctx).pending;
    try {
      await this.deps.sendPrivately(referenceOf(activity), from.id, message);
    } catch (err) {
      ctx.log.warn(
        { platform: 'teams', target: `teams:${key}`, err: scrub(String(err)) },
        'teams /pending: the private chat could not be opened',
      );
      return plainReply(words.privateUnreachable(activity.recipient?.name || 'hitl-relay'));
    }
    return plainReply(words.sentPrivately);
  }

  private async capture(activity: TeamsActivity): Promise<string> {
    const key = conversationKey(activity.conversation.id);
    const reference = referenceOf(activity);
    // An activity nobody vouched for may add a conversation, never redirect one already known.
    if (this.deps.authenticated) await this.deps.store.saveReference(key, reference);
    else await this.deps.store.addReference(key, reference);
    return key;
  }

  /**
   * Action.Submit (older clients): there is no invoke answer to carry a notice, so an outcome
   * other than "submitted" (a refused ask answer with its field messages, "not allowed", ...) is
   * said in the conversation, naming the person; a submitted one shows in the card update.
   */
  private async onSubmit(activity: TeamsActivity, tap: Tap): Promise<TurnResult> {
    if (activity.id && !(await this.deps.store.claimActivity(activity.id))) return {};
    const { ctx } = this.deps;
    const reply = await ctx.onTap(tap).catch((err): TapReply => {
      ctx.log.error({ platform: 'teams', err: scrub(String(err)) }, 'teams tap failed');
      return { outcome: 'failed', text: stringsOf(ctx).tapFailed, card: null };
    });
    ctx.log.info({ platform: 'teams', outcome: reply.outcome }, 'teams submit tap');
    if (reply.outcome === 'submitted' || !reply.text.trim()) return {};
    const text = stringsOf(ctx).refusal(reply.text, reply.issues ?? []);
    return plainReply(tap.user.name ? `${tap.user.name}: ${text}` : text);
  }

  private async currentCard(ref: MessageRef | null): Promise<Card | null> {
    const activityId = ref ? activityIdOf(ref) : null;
    return ref && activityId ? this.deps.store.loadCard(ref.address, activityId) : null;
  }

  private async answerFor(
    reply: TapReply,
    ref: MessageRef | null,
    inputs: Record<string, unknown> = {},
  ): Promise<InvokeBody> {
    const card = reply.card ?? (await this.currentCard(ref));
    // A refused ask answer: the same card with the person's values and each problem by its field;
    // an irreversible pick to confirm keeps the values too, so tapping again sends the same answer.
    const retry =
      reply.outcome === 'invalid_answer'
        ? { values: inputs, issues: reply.issues ?? [] }
        : reply.outcome === 'confirm_required'
          ? { values: inputs }
          : undefined;
    return card
      ? cardAnswer(card, reply.text || null, false, retry, this.deps.ctx.strings)
      : messageAnswer(reply.text);
  }

  /** The card as it stands, marked "Submitting…" (or the bare text when there is no card). */
  private async submitting(ref: MessageRef | null): Promise<InvokeBody> {
    const current = await this.currentCard(ref);
    const submitting = stringsOf(this.deps.ctx).submitting;
    return current
      ? cardAnswer(current, null, submitting, undefined, this.deps.ctx.strings)
      : messageAnswer(submitting);
  }

  private async onExecute(activity: TeamsActivity): Promise<InvokeBody> {
    const value = activity.value as { action?: { data?: Record<string, unknown> } } | undefined;
    const payload = value?.action?.data?.[TEAMS_PAYLOAD_FIELD];
    if (isPendingPayload(payload) && activity.from?.id)
      return pendingNext(this.deps.ctx, payload, activity.from.id);
    if (isRepostPayload(payload) && activity.from?.id)
      return repostPress(this.deps.ctx, payload, activity.from);
    if (isBulkPayload(payload) && activity.from?.id)
      return pendingBulk(this.deps.ctx, payload, activity.from.id);
    const tap = parseExecuteInvoke(activity);
    if (!tap) return messageAnswer(stringsOf(this.deps.ctx).notOurs);
    const { store } = this.deps;
    if (activity.id && !(await store.claimActivity(activity.id))) {
      // A retry of an invoke we (or another replica) already took: same answer, or "Submitting…".
      const earlier = await store.loadAnswer(activity.id);
      return (earlier as InvokeBody | null) ?? (await this.submitting(tap.ref));
    }
    // A failed tap still gets an answer (and the same one on a retry).
    const within = await tapWithin(this.deps.ctx, tap, this.deps.invokeDeadlineMs);
    if (!within.late) {
      const data = (activity.value as { action?: { data?: unknown } } | undefined)?.action?.data;
      const body = await this.answerFor(within.reply, tap.ref, askInputs(data));
      if (activity.id) await store.saveAnswer(activity.id, body);
      return body;
    }
    // Teams gives an invoke about 5 s: answer now with the card as it stands, marked "Submitting…".
    const body = await this.submitting(tap.ref);
    this.settleLate(activity.id, tap, within.late);
    return body;
  }

  /** After a late answer: keep it for retries and send the card again to everyone. */
  private settleLate(activityId: string | undefined, tap: Tap, late: Promise<TapReply>): void {
    const { store } = this.deps;
    void late
      .then(async (reply) => {
        if (activityId) await store.saveAnswer(activityId, await this.answerFor(reply, tap.ref));
        // The "Submitting…" view may have landed after the relay's own update: send the card again.
        if (tap.ref) await this.deps.refresh(tap.ref);
      })
      .catch((err) =>
        this.deps.ctx.log.warn(
          { platform: 'teams', err: scrub(String(err)) },
          'late teams tap failed',
        ),
      );
  }
}
