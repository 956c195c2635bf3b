/** Button taps and commands: what the bot does with the updates it receives. */
import type { Context } from 'grammy';
import type { AdapterStrings, Tap, TapReply } from '../../src/adapter.ts';
import { stringsOf, tapWithin } from '../../src/adapter-kit.ts';
import type { Logger } from '../../src/log.ts';
import { type AskCallback, parseAskData } from './ask.ts';
import { toPlatformError } from './errors.ts';
import { parseCallbackQuery } from './parse.ts';
import { renderTapAnswer } from './render.ts';

/**
 * A callback query can be answered only once, and the spinner on the button runs until it is.
 * We wait this long for the relay's outcome; a slower submit is answered "Submitting…" and the
 * edited card shows the outcome.
 */
export const TELEGRAM_TAP_ANSWER_WAIT_MS = 2000;

/** The adapter's toast texts in English (the relay passes its LOCALE's in AdapterContext.strings). */
export const TAP_TEXTS = {
  submitting: stringsOf(null).submitting,
  unknownButton: stringsOf(null).unknownButton,
  failed: stringsOf(null).tapFailed,
} as const;

/** What the tap handler needs from the adapter. */
export interface TelegramTapDeps {
  onTap: ((tap: Tap) => Promise<TapReply>) | null;
  log: Logger | undefined;
  waitMs: number;
  /** The adapter's texts in the relay's LOCALE (default English). */
  strings?: AdapterStrings | undefined;
  /** Handles a tap on an ask's own button (toggles, ranks, flows); what to answer the query with. */
  ask?: ((ctx: Context, button: AskCallback) => Promise<QueryAnswer>) | null;
}

/** The answer to a callback query: a toast, or an alert the person must dismiss. */
export interface QueryAnswer {
  text: string;
  alert?: boolean;
  /** A group: said as an ephemeral message only the tapper sees (Bot API 10), else a toast. */
  ephemeral?: boolean;
}

/**
 * What is said to the tapper alone in a group, as a message that stays readable (a toast is gone
 * in a second): refusals of this person (allowlist, approvers, own request, a second vote), their
 * vote counted while more are needed, and the prompt to tap again to confirm. Nobody else in the
 * group sees it, so a busy group does not fill with notices.
 */
const EPHEMERAL_OUTCOMES = new Set<TapReply['outcome']>([
  'forbidden',
  'not_an_approver',
  'requester_may_not_approve',
  'already_voted',
  'vote_recorded',
  'confirm_required',
]);

/** `ephemeral: true` for an outcome said only to the tapper in a group. */
export const ephemeralIf = (outcome: TapReply['outcome']) =>
  EPHEMERAL_OUTCOMES.has(outcome) ? { ephemeral: true } : {};

/**
 * Submits `tap` and waits at most `waitMs` for the outcome: its text (an alert for a refused
 * answer), or "Submitting…" when it is slower (the edited card then shows the outcome).
 */
export async function submitWithin(
  onTap: (tap: Tap) => Promise<TapReply>,
  tap: Tap,
  deps: Pick<TelegramTapDeps, 'log' | 'waitMs' | 'strings'>,
): Promise<QueryAnswer & { reply?: TapReply }> {
  const within = await tapWithin({ onTap, log: deps.log, strings: deps.strings }, tap, deps.waitMs);
  if (within.late) return { text: stringsOf(deps).submitting };
  const reply = within.reply;
  return {
    text: reply.text,
    alert: reply.outcome === 'invalid_answer',
    ...ephemeralIf(reply.outcome),
    reply,
  };
}

/** Handles one callback query and always answers it, whatever happens. */
export async function handleCallbackQuery(ctx: Context, deps: TelegramTapDeps): Promise<void> {
  const query = ctx.callbackQuery;
  if (!query) return;
  const askButton = parseAskData(query.data);
  const tap = askButton ? null : parseCallbackQuery(query);
  let answer: QueryAnswer;
  try {
    if (askButton && deps.ask) answer = await deps.ask(ctx, askButton);
    else if (!tap || !deps.onTap) answer = { text: stringsOf(deps).unknownButton };
    else answer = await submitWithin(deps.onTap, tap, deps);
  } catch (err) {
    deps.log?.error({ err, data: askButton ? 'ask' : 'tap' }, 'telegram tap failed');
    answer = { text: stringsOf(deps).tapFailed };
  }
  try {
    const text = renderTapAnswer(answer.text);
    const said = text && answer.ephemeral ? await sayEphemerally(ctx, text, deps) : false;
    await ctx.answerCallbackQuery(
      text && !said ? { text, ...(answer.alert ? { show_alert: true } : {}) } : undefined,
    );
  } catch (err) {
    // Best effort: the query may be too old (Telegram allows about 15 s); the card edit still shows the outcome.
    deps.log?.warn(
      { err: toPlatformError(err, 'answerCallbackQuery') },
      'telegram tap answer failed',
    );
  }
}

/**
 * Sends `text` as an ephemeral message to the tapper in a group (Bot API 10
 * `ephemeral_message_parameters`, tied to the query); false in a private chat or when Telegram
 * refuses it (an older Bot API server), so the caller falls back to the toast.
 */
async function sayEphemerally(ctx: Context, text: string, deps: TelegramTapDeps): Promise<boolean> {
  const query = ctx.callbackQuery;
  const chat = query?.message?.chat;
  if (!query || !chat || (chat.type !== 'group' && chat.type !== 'supergroup')) return false;
  try {
    await ctx.api.sendMessage(chat.id, text, {
      ephemeral_message_parameters: {
        receiver_user_id: query.from.id,
        callback_query_id: query.id,
      },
    });
    return true;
  } catch (err) {
    deps.log?.warn(
      { err: toPlatformError(err, 'sendMessage') },
      'telegram ephemeral notice failed',
    );
    return false;
  }
}
