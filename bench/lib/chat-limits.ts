/**
 * Slack's and Discord's rate limits, enforced on their fakes for the pacing benchmark, answering
 * 429 as each platform does. Slack: chat.postMessage about 1 a second per channel (429 +
 * Retry-After seconds). Discord: message create 5 per 5 s per channel (a route bucket with
 * X-RateLimit-* headers, 429 JSON `{retry_after, global}`), 50 requests a second per bot overall.
 */
import type { DiscordLimitDecision, FakeDiscord } from '../../test/fakes/discord-api.ts';
import type { FakeSlack } from '../../test/fakes/slack-api.ts';

/** One delivered card. */
export interface ChatDelivered {
  channel: string;
  key: string;
  at: number;
}

/** What a limiter saw. */
export interface ChatLimitStats {
  delivered: ChatDelivered[];
  /** 429s the limiter answered (a sender went over a limit). */
  limited: number;
}

const KEY = /hitl:([A-Za-z0-9_-]+):/;

export const SLACK_POST_INTERVAL_MS = 1000;
export const DISCORD_BUCKET = { limit: 5, windowMs: 5000 };
export const DISCORD_GLOBAL = { limit: 50, windowMs: 1000 };

/** Slack: chat.postMessage once a second per channel (10 % tolerance for jitter). */
export function enforceSlackLimits(fake: FakeSlack, now: () => number = Date.now): ChatLimitStats {
  const stats: ChatLimitStats = { delivered: [], limited: 0 };
  const last = new Map<string, number>();
  fake.setLimiter((method, fields) => {
    if (method !== 'chat.postMessage') return null;
    const channel = String(fields.channel ?? '');
    const t = now();
    const prev = last.get(channel);
    if (prev !== undefined && t - prev < SLACK_POST_INTERVAL_MS * 0.9) {
      stats.limited++;
      if (process.env.PACE_DEBUG) console.log(`slack 429: ${channel} gap ${t - prev} ms`);
      return Math.max(1, Math.ceil((prev + SLACK_POST_INTERVAL_MS - t) / 1000));
    }
    last.set(channel, t);
    const key = KEY.exec(JSON.stringify(fields.blocks ?? ''))?.[1];
    if (key && !fields.thread_ts) stats.delivered.push({ channel, key, at: t });
    return null;
  });
  return stats;
}

/** Discord: a 5-per-5-s bucket per channel for message create, 50 requests a second overall. */
export function enforceDiscordLimits(
  fake: FakeDiscord,
  now: () => number = Date.now,
): ChatLimitStats {
  const stats: ChatLimitStats = { delivered: [], limited: 0 };
  const buckets = new Map<string, { start: number; count: number }>();
  const global: number[] = [];
  fake.setLimiter((method, route, body): DiscordLimitDecision => {
    const t = now();
    while (global.length && global[0]! <= t - DISCORD_GLOBAL.windowMs) global.shift();
    if (global.length >= DISCORD_GLOBAL.limit) {
      stats.limited++;
      if (process.env.PACE_DEBUG) console.log(`discord global 429 at ${t % 100_000}`);
      return {
        headers: { 'x-ratelimit-scope': 'global' },
        retryAfter: (global[0]! + DISCORD_GLOBAL.windowMs - t) / 1000,
        global: true,
      };
    }
    const channel = method === 'POST' ? /^\/channels\/(\d+)\/messages$/.exec(route)?.[1] : null;
    if (!channel) {
      global.push(t);
      return { headers: {} };
    }
    let bucket = buckets.get(channel);
    if (!bucket || t - bucket.start >= DISCORD_BUCKET.windowMs) {
      bucket = { start: t, count: 0 };
      buckets.set(channel, bucket);
    }
    const resetAfter = (bucket.start + DISCORD_BUCKET.windowMs - t) / 1000;
    const headers = {
      'x-ratelimit-limit': String(DISCORD_BUCKET.limit),
      'x-ratelimit-reset-after': resetAfter.toFixed(3),
      'x-ratelimit-reset': ((bucket.start + DISCORD_BUCKET.windowMs) / 1000).toFixed(3),
      'x-ratelimit-bucket': 'messagecreate0',
      'x-ratelimit-scope': 'user',
    };
    if (bucket.count >= DISCORD_BUCKET.limit) {
      stats.limited++;
      if (process.env.PACE_DEBUG)
        console.log(
          `discord bucket 429 ${channel.slice(-4)} at ${t % 100_000}, window from ${bucket.start % 100_000}`,
        );
      return { headers: { ...headers, 'x-ratelimit-remaining': '0' }, retryAfter: resetAfter };
    }
    bucket.count++;
    global.push(t);
    const key = KEY.exec(body)?.[1];
    if (key && !body.includes('"message_reference"')) stats.delivered.push({ channel, key, at: t });
    return {
      headers: {
        ...headers,
        'x-ratelimit-remaining': String(DISCORD_BUCKET.limit - bucket.count),
      },
    };
  });
  return stats;
}
