/**
 * Telegram's flood limits, enforced on the fake Bot API for the pacing benchmark (the fake itself
 * only injects 429s on request): about one message a second per chat, 20 a minute per group,
 * 30 a second overall. Sends and edits count. Over a limit the fake answers 429 with retry_after,
 * worded as Telegram words it. Telegram's limits are approximate, so windows get a small tolerance.
 */
import type { FakeTelegramApi, MethodResult } from '../../test/fakes/telegram-api.ts';

/** The limits; times in ms. */
export interface TelegramLimits {
  perChatMs: number;
  groupLimit: number;
  groupWindowMs: number;
  globalLimit: number;
  globalWindowMs: number;
  /** Share of each window forgiven (clock and network jitter). */
  tolerance: number;
}

/** Telegram's published guidance (core.telegram.org/bots/faq). */
export const TELEGRAM_LIMITS: TelegramLimits = {
  perChatMs: 1000,
  groupLimit: 20,
  groupWindowMs: 60_000,
  globalLimit: 30,
  globalWindowMs: 1000,
  tolerance: 0.1,
};

/** One delivered card. */
export interface Delivered {
  chat: number;
  /** The case key from the card's callback_data. */
  key: string;
  at: number;
}

/** What the limiter saw. */
export interface LimitStats {
  delivered: Delivered[];
  /** 429s the limiter answered (the relay went over a limit). */
  limited: number;
}

const COUNTED = new Set(['sendMessage', 'editMessageText', 'editMessageReplyMarkup']);

/** Installs the limits on `fake` (wraps its method dispatch); returns live statistics. */
export function enforceTelegramLimits(
  fake: FakeTelegramApi,
  limits: TelegramLimits = TELEGRAM_LIMITS,
  now: () => number = Date.now,
): LimitStats {
  const stats: LimitStats = { delivered: [], limited: 0 };
  const slack = 1 - limits.tolerance;
  const lastByChat = new Map<number, number>();
  const groupSends = new Map<number, number[]>();
  const globalSends: number[] = [];
  const tooMany = (waitMs: number): MethodResult => {
    stats.limited++;
    const retryAfter = Math.max(1, Math.ceil(waitMs / 1000));
    return {
      ok: false,
      error_code: 429,
      description: `Too Many Requests: retry after ${retryAfter}`,
      parameters: { retry_after: retryAfter },
    };
  };
  const call = fake.call.bind(fake);
  fake.call = (method, p) => {
    if (!COUNTED.has(method)) return call(method, p);
    const t = now();
    const chat = Number(p.chat_id);
    const last = lastByChat.get(chat);
    if (last !== undefined && t - last < limits.perChatMs * slack)
      return tooMany(limits.perChatMs - (t - last));
    while (globalSends.length && (globalSends[0] as number) <= t - limits.globalWindowMs * slack)
      globalSends.shift();
    if (globalSends.length >= limits.globalLimit)
      return tooMany(limits.globalWindowMs - (t - (globalSends[0] as number)));
    let group: number[] | undefined;
    if (chat < 0) {
      group = groupSends.get(chat) ?? [];
      groupSends.set(chat, group);
      while (group.length && (group[0] as number) <= t - limits.groupWindowMs * slack)
        group.shift();
      if (group.length >= limits.groupLimit)
        return tooMany(limits.groupWindowMs - (t - (group[0] as number)));
    }
    const answer = call(method, p);
    if (!answer.ok) return answer;
    lastByChat.set(chat, t);
    globalSends.push(t);
    group?.push(t);
    if (method === 'sendMessage') {
      const markup = p.reply_markup as
        | { inline_keyboard?: Array<Array<{ callback_data?: string }>> }
        | undefined;
      const data = markup?.inline_keyboard?.flat().find((b) => b.callback_data)?.callback_data;
      stats.delivered.push({ chat, key: data?.split(':')[1] ?? '', at: t });
    }
    return answer;
  };
  return stats;
}
