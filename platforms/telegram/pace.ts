/**
 * Telegram's send pace: the shared scheduler (src/pace.ts) with Telegram's flood limits, about one
 * message a second per chat, 20 a minute per group, 30 a second overall (edits count too).
 */
import { SendPace as Pace, type PaceRules } from '../../src/pace.ts';

/** The rates; tests pass tiny values so nothing waits. */
export interface PaceOptions {
  /** Least time between two sends to one chat. */
  perChatIntervalMs: number;
  /** Most sends to one group (negative chat id) within groupWindowMs. */
  groupLimit: number;
  groupWindowMs: number;
  /** Most sends overall within globalWindowMs. */
  globalLimit: number;
  globalWindowMs: number;
}

/** Telegram's published guidance (core.telegram.org/bots/faq#my-bot-is-hitting-limits-how-do-i-avoid-this). */
export const TELEGRAM_DEFAULT_PACE: PaceOptions = {
  perChatIntervalMs: 1000,
  groupLimit: 20,
  groupWindowMs: 60_000,
  globalLimit: 30,
  globalWindowMs: 1000,
};

/** The pace rules for Telegram's limits. */
export function telegramPaceRules(options: Partial<PaceOptions> = {}): PaceRules {
  const o = { ...TELEGRAM_DEFAULT_PACE, ...options };
  return {
    lane: [{ limit: 1, windowMs: o.perChatIntervalMs }],
    // Negative ids are groups and channels, where the per-minute limit applies.
    group: {
      windows: [{ limit: o.groupLimit, windowMs: o.groupWindowMs }],
      applies: (chatId) => chatId.startsWith('-'),
    },
    global: [{ limit: o.globalLimit, windowMs: o.globalWindowMs }],
    // Progress and notices fill at most three quarters of a group's minute (15 of 20): a new card
    // or a final edit always finds a slot within the chat's own pace.
    lowShare: 0.75,
  };
}

/** Hands out send slots per chat; `acquire` resolves when the caller may send. */
export class TelegramSendPace extends Pace {
  constructor(options: Partial<PaceOptions> = {}, now: () => number = Date.now) {
    super(telegramPaceRules(options), now, 'telegram send pace');
  }
}
