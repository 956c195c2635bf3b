/**
 * The Slack and Discord part of benchmark 4: a burst of cases into one channel and into several,
 * with each fake enforcing the platform's limits (chat-limits.ts) and 3 injected 429s. The relay
 * runs its production pace: the shared SendPace (src/pace.ts) with Slack's limits, and for Discord
 * its per-channel and global windows in front of @discordjs/rest's own per-bucket queue. Baseline:
 * a bare undici sender on the ideal schedule.
 */
import { randomBytes } from 'node:crypto';
import { Agent, request } from 'undici';
import { createDiscordAdapter } from '../../platforms/discord/index.ts';
import { createSlackAdapter } from '../../platforms/slack/index.ts';
import type { PlatformAdapter } from '../../src/adapter.ts';
import { type FakeDiscord, startFakeDiscord } from '../../test/fakes/discord-api.ts';
import { FakeSlack } from '../../test/fakes/slack-api.ts';
import { type BenchArgs, wants } from './args.ts';
import {
  type ChatLimitStats,
  DISCORD_BUCKET,
  enforceDiscordLimits,
  enforceSlackLimits,
  SLACK_POST_INTERVAL_MS,
} from './chat-limits.ts';
import type { FastService } from './hitl-service.ts';
import { startBenchRelay } from './relay.ts';
import { type JsonClient, sleep } from './run.ts';
import { type Figure, fmt } from './stats.ts';

const INJECTED = 3;
const SLACK_TOKEN = 'xoxb-1111-2222-benchBotTokenForPacing';
const DISCORD_TOKEN = 'MTEwMDAwMDAwMDAwMDAwMDAwMQ.GbenchT.discord-bench-token-0123456789abcdef';
const DISCORD_APP = '1100000000000000001';

interface Scenario {
  name: string;
  channels: number;
  cases: number;
  baseline: number;
}

interface Platform {
  name: 'slack' | 'discord';
  limitOf: string;
  stats: ChatLimitStats;
  channel(side: number, i: number): string;
  /** When the k-th card of one channel may go at the earliest (ms after the first). */
  slot(k: number): number;
  adapter(): PlatformAdapter;
  inject(): void;
  /** One bare send of a card, as a minimal client would make it; true when accepted. */
  bare(channel: string, key: string): Promise<{ ok: boolean; retryAfterMs: number }>;
  close(): Promise<void>;
}

/** Ideal durations: every channel gets its cases in parallel, each at its earliest slot. */
function idealMs(p: Platform, s: Scenario, n: number): number {
  const perChannel = Math.ceil(n / s.channels);
  return p.slot(perChannel - 1);
}

function judge(stats: ChatLimitStats, from: number, keys: Set<string>, ideal: number) {
  const mine = stats.delivered.slice(from).filter((d) => keys.has(d.key));
  const first = new Map<string, number>();
  for (const d of mine) if (!first.has(d.key)) first.set(d.key, d.at);
  const times = [...first.values()].sort((a, b) => a - b);
  const took = times.length > 1 ? times[times.length - 1]! - times[0]! : 0;
  return {
    distinct: first.size,
    duplicates: mine.length - first.size,
    seconds: took / 1000,
    share: took > 0 ? Math.min(1, ideal / took) : 1,
  };
}

async function slackPlatform(bare: Agent): Promise<Platform> {
  const fake = await FakeSlack.start({ botToken: SLACK_TOKEN });
  const stats = enforceSlackLimits(fake);
  return {
    name: 'slack',
    limitOf: '1/s per channel',
    stats,
    channel: (side, i) => `C${side}BENCH${String(i).padStart(3, '0')}`,
    slot: (k) => k * SLACK_POST_INTERVAL_MS,
    adapter: () =>
      createSlackAdapter(
        {
          botToken: SLACK_TOKEN,
          signingSecret: 'benchSigningSecret0123456789',
          apiUrl: fake.apiUrl,
          mode: 'http',
          botId: fake.botId,
          botUserId: fake.botUserId,
        },
        { retryConfig: { retries: 0 } },
      ),
    inject: () => fake.rateLimit('chat.postMessage', INJECTED, 1),
    async bare(channel, key) {
      const res = await request(`${fake.apiUrl}chat.postMessage`, {
        method: 'POST',
        dispatcher: bare,
        headers: {
          'content-type': 'application/json; charset=utf-8',
          authorization: `Bearer ${SLACK_TOKEN}`,
        },
        body: JSON.stringify({
          channel,
          text: `case ${key}`,
          blocks: [
            {
              type: 'actions',
              elements: [
                {
                  type: 'button',
                  action_id: 'a',
                  text: { type: 'plain_text', text: 'Approve' },
                  value: `hitl:${key}:approve`,
                },
              ],
            },
          ],
        }),
      });
      await res.body.text();
      return {
        ok: res.statusCode === 200,
        retryAfterMs: Number(res.headers['retry-after'] ?? 1) * 1000,
      };
    },
    close: () => fake.close(),
  };
}

async function discordPlatform(bare: Agent): Promise<Platform> {
  const fake: FakeDiscord = await startFakeDiscord({
    token: DISCORD_TOKEN,
    applicationId: DISCORD_APP,
  });
  const stats = enforceDiscordLimits(fake);
  return {
    name: 'discord',
    limitOf: '5 per 5 s per channel',
    stats,
    channel: (side, i) => String(1_200_000_000_000_000_000n + BigInt(side * 1000 + i)),
    slot: (k) => Math.floor(k / DISCORD_BUCKET.limit) * DISCORD_BUCKET.windowMs,
    adapter: () =>
      createDiscordAdapter({
        token: DISCORD_TOKEN,
        applicationId: DISCORD_APP,
        publicKey: randomBytes(32).toString('hex'),
        apiUrl: fake.apiUrl,
        mode: 'http',
      }),
    inject: () =>
      fake.rateLimitNext(INJECTED, {
        retryAfter: 1,
        global: true,
        match: /^POST \/channels\/\d+\/messages$/,
      }),
    async bare(channel, key) {
      const res = await request(`${fake.apiUrl}/v10/channels/${channel}/messages`, {
        method: 'POST',
        dispatcher: bare,
        headers: { 'content-type': 'application/json', authorization: `Bot ${DISCORD_TOKEN}` },
        body: JSON.stringify({
          content: `case ${key}`,
          components: [
            {
              type: 1,
              components: [{ type: 2, style: 1, label: 'Approve', custom_id: `hitl:${key}:ok` }],
            },
          ],
        }),
      });
      const body = (await res.body.json().catch(() => ({}))) as { retry_after?: number };
      return { ok: res.statusCode === 200, retryAfterMs: (body.retry_after ?? 1) * 1000 };
    },
    close: () => fake.close(),
  };
}

async function runBaseline(p: Platform, s: Scenario) {
  const channels = Array.from({ length: s.channels }, (_, i) => p.channel(1, i));
  const from = p.stats.delivered.length;
  const limitedBefore = p.stats.limited;
  const keys = new Set<string>();
  const t0 = Date.now() + 50;
  await Promise.all(
    Array.from({ length: s.baseline }, async (_, i) => {
      const channel = channels[i % channels.length]!;
      const k = Math.floor(i / channels.length);
      const key = `b${p.name}${s.channels}x${i}`;
      keys.add(key);
      // 2 % behind the limits: on a loaded machine a late timer would otherwise bunch sends.
      await sleep(t0 + p.slot(k) * 1.02 - Date.now());
      for (let attempt = 0; attempt < 5; attempt++) {
        const r = await p.bare(channel, key);
        if (r.ok) break;
        await sleep(r.retryAfterMs);
      }
    }),
  );
  return {
    ...judge(p.stats, from, keys, idealMs(p, s, s.baseline)),
    limited: p.stats.limited - limitedBefore,
  };
}

async function runRelay(p: Platform, s: Scenario, service: FastService, client: JsonClient) {
  const channels = Array.from({ length: s.channels }, (_, i) => p.channel(0, i));
  const ideal = idealMs(p, s, s.cases);
  const r = await startBenchRelay({ adapters: [p.adapter()] });
  const from = p.stats.delivered.length;
  const limitedBefore = p.stats.limited;
  p.inject();
  const deadline = Date.now() + ideal + 120_000;
  await Promise.all(
    Array.from({ length: s.cases }, async (_, i) => {
      const res = await client.post(`${r.url}/v1/cases`, {
        target: `${p.name}:${channels[i % channels.length]}`,
        response: service.create(`p${p.name}${s.channels}x${i}x${Date.now()}`),
      });
      if (res.status !== 201) throw new Error(`intake answered ${res.status}`);
    }),
  );
  const mineKeys = () =>
    new Set(
      p.stats.delivered
        .slice(from)
        .filter((d) => channels.includes(d.channel))
        .map((d) => d.key),
    );
  while (mineKeys().size < s.cases && Date.now() < deadline) await sleep(250);
  // Then until sending has been quiet for 6 s (late duplicates would show up here).
  for (let seen = -1; seen !== p.stats.delivered.length && Date.now() < deadline; ) {
    seen = p.stats.delivered.length;
    await sleep(6000);
  }
  const result = judge(p.stats, from, mineKeys(), ideal);
  const warnings = r.warnings.length;
  await r.stop();
  return { ...result, limited: p.stats.limited - limitedBefore, warnings };
}

/** Runs the Slack and Discord scenarios; appends their figures. */
export async function runChatPacing(
  args: BenchArgs,
  service: FastService,
  client: JsonClient,
  figures: Figure[],
): Promise<void> {
  const scenarios: Scenario[] = args.full
    ? [
        { name: '1 channel', channels: 1, cases: 120, baseline: 30 },
        { name: '10 channels', channels: 10, cases: 500, baseline: 200 },
      ]
    : [
        { name: '1 channel', channels: 1, cases: 30, baseline: 10 },
        { name: '10 channels', channels: 10, cases: 200, baseline: 100 },
      ];
  const bare = new Agent({ connections: 64 });
  for (const make of [slackPlatform, discordPlatform]) {
    const p = await make(bare);
    for (const s of scenarios) {
      if (!wants(args, `${p.name}${s.channels}`) && !wants(args, p.name)) continue;
      const b = await runBaseline(p, s);
      await sleep(1500);
      const rel = await runRelay(p, s, service, client);
      await sleep(1500);
      const label = `${p.name} ${s.name}`;
      console.log(
        `${label}: relay delivered ${rel.distinct}/${s.cases} cases (${rel.duplicates} duplicates) in ${fmt(rel.seconds)} s = ` +
          `${fmt(rel.share * 100)}% of the limit (${p.limitOf}); 429s: ${rel.limited} over the limit + ${INJECTED} injected; ` +
          `${rel.warnings} warnings logged. Baseline ${b.distinct}/${s.baseline} at ${fmt(b.share * 100)}%, ${b.limited} over-limit 429s`,
      );
      figures.push(
        {
          bench: 'pace',
          figure: `${label} (${s.cases} cases): delivered rate, share of ${p.limitOf}`,
          value: rel.share * 100,
          unit: '%',
          baseline: b.share * 100,
          goal: '>= 90%',
          met: rel.share >= 0.9,
        },
        {
          bench: 'pace',
          figure: `${label}: cases delivered once / duplicates / lost`,
          value: rel.distinct,
          unit: `of ${s.cases} (${rel.duplicates} dup, ${s.cases - rel.distinct} lost)`,
          baseline: null,
          goal: 'all, once',
          met: rel.distinct === s.cases && rel.duplicates === 0,
        },
        {
          bench: 'pace',
          figure: `${label}: 429s over the limit (besides ${INJECTED} injected)`,
          value: rel.limited,
          unit: '',
          baseline: b.limited,
          goal: '0',
          met: rel.limited === 0,
        },
      );
    }
    await p.close();
  }
  await bare.close();
}
