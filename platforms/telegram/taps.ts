/** Button taps and commands: what the bot does with the updates it receives. */
import type { Context } from 'grammy';
import type { Tap, TapReply } from '../../src/adapter.ts';
import type { Logger } from '../../src/log.ts';
import { toPlatformError } from './errors.ts';
import { parseCallbackQuery } from './parse.ts';
import { renderTapAnswer } from './render.ts';

/**
 * A callback query can be answered only once, and the spinner on the button runs until it is.
 * We wait this long for the engine's outcome; a slower submit is answered "Submitting…" and the
 * edited card shows the outcome.
 */
export const TELEGRAM_TAP_ANSWER_WAIT_MS = 2000;

/** Toast texts of the adapter itself. */
export const TAP_TEXTS = {
  submitting: 'Submitting…',
  unknownButton: 'This button is no longer active.',
  failed: 'Something went wrong; nothing was decided. Please try again.',
} as const;

/** What the tap handler needs from the adapter. */
export interface TapDeps {
  onTap: ((tap: Tap) => Promise<TapReply>) | null;
  log: Logger | undefined;
  waitMs: number;
}

type Settled = { reply: TapReply } | { error: unknown } | null;

/** Waits for `pending` at most `ms`; null when it took longer. */
async function settleWithin(pending: Promise<TapReply>, ms: number): Promise<Settled> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), ms);
  });
  try {
    return await Promise.race([
      pending.then(
        (reply) => ({ reply }),
        (error: unknown) => ({ error }),
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Handles one callback query and always answers it, whatever happens. */
export async function handleCallbackQuery(ctx: Context, deps: TapDeps): Promise<void> {
  const query = ctx.callbackQuery;
  if (!query) return;
  const tap = parseCallbackQuery(query);
  let text: string;
  if (!tap || !deps.onTap) {
    text = TAP_TEXTS.unknownButton;
  } else {
    const pending = deps.onTap(tap);
    const settled = await settleWithin(pending, deps.waitMs);
    if (settled === null) {
      text = TAP_TEXTS.submitting;
      pending.then(
        (reply) =>
          deps.log?.info({ key: tap.key, outcome: reply.outcome }, 'telegram tap settled late'),
        (err: unknown) => deps.log?.error({ err, key: tap.key }, 'telegram tap failed'),
      );
    } else if ('error' in settled) {
      deps.log?.error({ err: settled.error, key: tap.key }, 'telegram tap failed');
      text = TAP_TEXTS.failed;
    } else {
      text = settled.reply.text;
    }
  }
  try {
    const answer = renderTapAnswer(text);
    await ctx.answerCallbackQuery(answer ? { text: answer } : undefined);
  } catch (err) {
    // Best effort: the query may be too old (Telegram allows about 15 s); the card edit still shows the outcome.
    deps.log?.warn(
      { err: toPlatformError(err, 'answerCallbackQuery') },
      'telegram tap answer failed',
    );
  }
}
