/**
 * One inbound turn: the bot added to a conversation (capture its reference, say the target), the
 * `hitl id` command, Action.Execute invokes (answered with the refreshed card) and Action.Submit
 * messages from older clients.
 */
import { type Activity, type ConversationReference, TurnContext } from 'botbuilder';
import type { AdapterContext, MessageRef, Tap, TapReply } from '../../src/adapter.ts';
import { scrub } from '../../src/log.ts';
import type { Card } from '../../src/render/card.ts';
import { type AskRetry, askInputs } from './ask.ts';
import {
  activityIdOf,
  baseConversationId,
  conversationKey,
  parseExecuteInvoke,
  parseSubmitMessage,
  TEAMS_CARD_ACTION_INVOKE,
} from './parse.ts';
import { renderTeamsCard } from './render.ts';
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
}

type InvokeBody = { statusCode: number; type: string; value: unknown };

const HITL_ID = /^\/?hitl\s+id$/i;

/** The conversation reference to keep: the channel itself (no thread), no activity to reply to. */
export function storableReference(activity: Activity): Partial<ConversationReference> {
  const reference = TurnContext.getConversationReference(activity);
  delete reference.activityId;
  const conversation = {
    ...activity.conversation,
    id: baseConversationId(activity.conversation.id),
  };
  const tenant = (activity.channelData as { tenant?: { id?: string } } | undefined)?.tenant?.id;
  if (!conversation.tenantId && tenant) conversation.tenantId = tenant;
  return { ...reference, conversation };
}

function cardAnswer(
  card: Card,
  notice: string | null,
  submitting = false,
  askRetry?: AskRetry,
): InvokeBody {
  return {
    statusCode: 200,
    type: 'application/vnd.microsoft.card.adaptive',
    value: renderTeamsCard(card, { notice, submitting, ...(askRetry ? { askRetry } : {}) }),
  };
}

function messageAnswer(text: string): InvokeBody {
  return { statusCode: 200, type: 'application/vnd.microsoft.activity.message', value: text };
}

async function answerInvoke(context: TurnContext, body: InvokeBody): Promise<void> {
  await context.sendActivity({ type: 'invokeResponse', value: { status: 200, body } });
}

/** The turn logic handed to CloudAdapter.process. */
export class TeamsBot {
  constructor(private readonly deps: TeamsBotDeps) {}

  async turn(context: TurnContext): Promise<void> {
    const activity = context.activity;
    try {
      if (activity.type === 'conversationUpdate') return await this.onConversationUpdate(context);
      if (activity.type === 'invoke' && activity.name === TEAMS_CARD_ACTION_INVOKE) {
        return await this.onExecute(context);
      }
      if (activity.type === 'message') return await this.onMessage(context);
    } catch (err) {
      this.deps.ctx.log.error(
        { platform: 'teams', activity: activity.type, err: scrub(String(err)) },
        'teams turn failed',
      );
      if (activity.type === 'invoke') {
        await answerInvoke(context, messageAnswer('Something went wrong; nothing was decided.'));
      }
    }
  }

  private async onConversationUpdate(context: TurnContext): Promise<void> {
    const { activity } = context;
    const botAdded = (activity.membersAdded ?? []).some((m) => m.id === activity.recipient?.id);
    if (!botAdded) return;
    const key = await this.capture(activity);
    this.deps.ctx.log.info({ platform: 'teams', target: `teams:${key}` }, 'teams bot added');
    await context.sendActivity({
      type: 'message',
      textFormat: 'plain',
      text: `Hello! I post HITL review cases here. The target for this conversation is teams:${key} (ask me "hitl id" any time).`,
    });
  }

  private async onMessage(context: TurnContext): Promise<void> {
    const { activity } = context;
    const submitted = parseSubmitMessage(activity);
    if (submitted) return this.onSubmit(activity, submitted);
    const text = TurnContext.removeRecipientMention(activity)?.trim() ?? '';
    if (!HITL_ID.test(text)) return;
    const key = await this.capture(activity);
    await context.sendActivity({
      type: 'message',
      textFormat: 'plain',
      text: `The target for this conversation is teams:${key}. Your Teams user id is ${activity.from.id}.`,
    });
  }

  private async capture(activity: Activity): Promise<string> {
    const key = conversationKey(activity.conversation.id);
    const reference = storableReference(activity);
    // An activity nobody vouched for may add a conversation, never redirect one already known.
    if (this.deps.authenticated) await this.deps.store.saveReference(key, reference);
    else await this.deps.store.addReference(key, reference);
    return key;
  }

  /** Action.Submit (older clients): no answer reaches the person; the card update tells the rest. */
  private async onSubmit(activity: Activity, tap: Tap): Promise<void> {
    if (activity.id && !(await this.deps.store.claimActivity(activity.id))) return;
    const reply = await this.deps.ctx.onTap(tap);
    this.deps.ctx.log.info({ platform: 'teams', outcome: reply.outcome }, 'teams submit tap');
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
    return card ? cardAnswer(card, reply.text || null, false, retry) : messageAnswer(reply.text);
  }

  private async onExecute(context: TurnContext): Promise<void> {
    const { activity } = context;
    const tap = parseExecuteInvoke(activity);
    if (!tap) {
      await answerInvoke(context, messageAnswer("This button is not one of hitl-relay's."));
      return;
    }
    const { store } = this.deps;
    if (activity.id && !(await store.claimActivity(activity.id))) {
      // A retry of an invoke we (or another replica) already took: same answer, or "Submitting…".
      const earlier = await store.loadAnswer(activity.id);
      const current = await this.currentCard(tap.ref);
      const body =
        (earlier as InvokeBody | null) ??
        (current ? cardAnswer(current, null, true) : messageAnswer('Submitting…'));
      await answerInvoke(context, body);
      return;
    }
    // A failed tap still gets an answer (and the same one on a retry).
    const work = this.deps.ctx.onTap(tap).catch((err): TapReply => {
      this.deps.ctx.log.error({ platform: 'teams', err: scrub(String(err)) }, 'teams tap failed');
      return { outcome: 'failed', text: 'Something went wrong; nothing was decided.', card: null };
    });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), this.deps.invokeDeadlineMs);
    });
    const first = await Promise.race([work, late]).finally(() => clearTimeout(timer));
    if (first !== 'late') {
      const inputs = askInputs(
        (activity.value as { action?: { data?: unknown } } | undefined)?.action?.data,
      );
      const body = await this.answerFor(first, tap.ref, inputs);
      if (activity.id) await store.saveAnswer(activity.id, body);
      await answerInvoke(context, body);
      return;
    }
    // Teams gives an invoke about 5 s: answer now with the card as it stands, marked "Submitting…".
    const current = await this.currentCard(tap.ref);
    await answerInvoke(
      context,
      current ? cardAnswer(current, null, true) : messageAnswer('Submitting…'),
    );
    void work
      .then(async (reply) => {
        if (activity.id) await store.saveAnswer(activity.id, await this.answerFor(reply, tap.ref));
        // The "Submitting…" view may have landed after the engine's own update: send the card again.
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
