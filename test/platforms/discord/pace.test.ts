/**
 * Message create is paced per channel from the first send on (DISCORD_CHANNEL_PACE, counted from
 * Discord's answer): a burst into one channel never goes over the channel's bucket, even before
 * @discordjs/rest has learnt the bucket from a response. The fake enforces a fixed-window bucket
 * with Discord's headers and 429 body; the windows are scaled down so the test is quick.
 */
import { afterEach, expect, it } from 'vitest';
import { DiscordApi } from '../../../platforms/discord/api.ts';
import type { PaceWindow } from '../../../src/pace.ts';
import { type FakeDiscord, startFakeDiscord } from '../../fakes/discord-api.ts';

const TOKEN = 'MTEwMDAwMDAwMDAwMDAwMDAwMQ.GpaceT.discord-pace-token-0123456789abcdef';
const APP = '1100000000000000001';
const BUCKET = { limit: 3, windowMs: 300 };

let fake: FakeDiscord | undefined;
afterEach(async () => {
  await fake?.close();
});

/** A per-channel bucket as Discord keeps it: a window opens with its first request. */
function enforceBucket(f: FakeDiscord) {
  const seen = { created: 0, limited: 0 };
  const buckets = new Map<string, { start: number; count: number }>();
  f.setLimiter((method, route) => {
    const channel = method === 'POST' ? /^\/channels\/(\d+)\/messages$/.exec(route)?.[1] : null;
    if (!channel) return { headers: {} };
    const t = Date.now();
    let bucket = buckets.get(channel);
    if (!bucket || t - bucket.start >= BUCKET.windowMs) {
      bucket = { start: t, count: 0 };
      buckets.set(channel, bucket);
    }
    const resetAfter = (bucket.start + BUCKET.windowMs - t) / 1000;
    const headers = {
      'x-ratelimit-limit': String(BUCKET.limit),
      'x-ratelimit-reset-after': resetAfter.toFixed(3),
      'x-ratelimit-reset': ((bucket.start + BUCKET.windowMs) / 1000).toFixed(3),
      'x-ratelimit-bucket': 'messagecreate0',
      'x-ratelimit-scope': 'user',
    };
    if (bucket.count >= BUCKET.limit) {
      seen.limited++;
      return { headers: { ...headers, 'x-ratelimit-remaining': '0' }, retryAfter: resetAfter };
    }
    bucket.count++;
    seen.created++;
    return {
      headers: { ...headers, 'x-ratelimit-remaining': String(BUCKET.limit - bucket.count) },
    };
  });
  return seen;
}

async function burst(channelPace: PaceWindow[]) {
  fake = await startFakeDiscord({ token: TOKEN, applicationId: APP });
  const seen = enforceBucket(fake);
  const api = new DiscordApi({ token: TOKEN, apiUrl: fake.apiUrl, channelPace });
  const channels = ['1200000000000000001', '1200000000000000002'];
  const send = (i: number) =>
    api.createMessage(channels[i % 2]!, { content: `card ${i}`, components: [] } as never);
  // A first wave is queued before any answer; the second comes once the first cards are out, when
  // @discordjs/rest has learnt the bucket and opens a second queue beside the first one.
  const first = Array.from({ length: 8 }, (_, i) => send(i));
  await first[0];
  await first[1];
  await Promise.all([...first, ...Array.from({ length: 8 }, (_, i) => send(8 + i))]);
  const texts = channels.flatMap((c) => fake!.messages(c).map((m) => m.content));
  return { seen, texts };
}

it('a burst into two channels stays inside each channel bucket: no 429, each card once', async () => {
  const { seen, texts } = await burst([BUCKET]);
  expect(seen.limited).toBe(0);
  expect(texts.sort()).toEqual(Array.from({ length: 16 }, (_, i) => `card ${i}`).sort());
});
