/**
 * Benchmark 4, pacing under platform limits: a burst of cases into one Telegram chat, into 100
 * chats (and, with --full, into one group), with the fake Bot API enforcing Telegram's flood limits
 * (bench/lib/telegram-limits.ts) and 3 injected 429s. The relay runs its production pace
 * (platforms/telegram/pace.ts defaults). Reported: delivered rate as a share of what the limits
 * allow (the ideal schedule's duration over the real one), 429s received, every case delivered
 * exactly once. Baseline: a bare undici sender that sends on the ideal schedule to the same fake.
 * Then the same for Slack and Discord (bench/lib/pace-chat.ts), each fake enforcing its limits.
 * Then a 100-case burst to one WhatsApp person (bench/lib/pace-whatsapp.ts) and one to a Google
 * Chat space (bench/lib/pace-googlechat.ts).
 * `--only=slack,discord,whatsapp` (or 1chat, 100chats, 1group, slack1, discord10, ...) picks parts.
 */
import { Agent, request } from 'undici';
import { FakeTelegramApi } from '../test/fakes/telegram-api.ts';
import { benchArgs, wants } from './lib/args.ts';
import { startFastService } from './lib/hitl-service.ts';
import { runChatPacing } from './lib/pace-chat.ts';
import { runGooglechatPacing } from './lib/pace-googlechat.ts';
import { runWhatsAppPacing } from './lib/pace-whatsapp.ts';
import { startBenchRelay } from './lib/relay.ts';
import { jsonClient, sleep } from './lib/run.ts';
import { type Figure, fmt, machine, report } from './lib/stats.ts';
import { benchTelegramAdapter } from './lib/telegram.ts';
import {
  type Delivered,
  enforceTelegramLimits,
  TELEGRAM_LIMITS,
  type TelegramLimits,
} from './lib/telegram-limits.ts';

interface Scenario {
  name: string;
  /** Chat ids for the relay (cases go round-robin), and as many distinct ones for the baseline. */
  chats: (side: number) => number[];
  cases: number;
  baseline: number;
}

const args = benchArgs();
const PRIVATE = (side: number) => [700_000_001 + side];
const GROUPS = (side: number) =>
  Array.from({ length: 100 }, (_, i) => -1_002_000_000_000 - side * 1000 - i);
const GROUP = (side: number) => [-1_003_000_000_000 - side];
const scenarios: Scenario[] = args.full
  ? [
      { name: '1 chat', chats: PRIVATE, cases: 1000, baseline: 60 },
      { name: '100 chats', chats: GROUPS, cases: 1000, baseline: 300 },
      { name: '1 group', chats: GROUP, cases: 60, baseline: 30 },
    ]
  : [
      { name: '1 chat', chats: PRIVATE, cases: 40, baseline: 10 },
      { name: '100 chats', chats: GROUPS, cases: 300, baseline: 150 },
    ];
const INJECTED = 3;

/** The earliest send times the limits allow for messages to `chats` in order (greedy). */
function idealSchedule(chats: number[], limits: TelegramLimits): number[] {
  const last = new Map<number, number>();
  const group = new Map<number, number[]>();
  const global: number[] = [];
  const out: number[] = [];
  for (const chat of chats) {
    let t = Math.max(out[out.length - 1] ?? 0, (last.get(chat) ?? -Infinity) + limits.perChatMs);
    if (global.length >= limits.globalLimit)
      t = Math.max(t, global[global.length - limits.globalLimit]! + limits.globalWindowMs);
    const g = group.get(chat) ?? [];
    if (chat < 0 && g.length >= limits.groupLimit)
      t = Math.max(t, g[g.length - limits.groupLimit]! + limits.groupWindowMs);
    out.push(t);
    last.set(chat, t);
    global.push(t);
    g.push(t);
    group.set(chat, g);
  }
  return out;
}

/** How a run went, from the limiter's records. */
function judge(delivered: Delivered[], from: number, keys: Set<string>, ideal: number[]) {
  const mine = delivered.slice(from).filter((d) => keys.has(d.key));
  const first = new Map<string, number>();
  for (const d of mine) if (!first.has(d.key)) first.set(d.key, d.at);
  const times = [...first.values()].sort((a, b) => a - b);
  const took = times.length > 1 ? times[times.length - 1]! - times[0]! : 0;
  const idealTook = ideal[ideal.length - 1]! - ideal[0]!;
  return {
    distinct: first.size,
    duplicates: mine.length - first.size,
    seconds: took / 1000,
    share: took > 0 ? idealTook / took : 1,
    rate: took > 0 ? (times.length - 1) / (took / 1000) : 0,
  };
}

const fake = await FakeTelegramApi.start();
const stats = enforceTelegramLimits(fake);
const service = await startFastService();
const client = jsonClient(1100);
const bare = new Agent({ connections: 64 });
const figures: Figure[] = [];

async function runBaseline(s: Scenario) {
  const chats = s.chats(1);
  const order = Array.from({ length: s.baseline }, (_, i) => chats[i % chats.length]!);
  const ideal = idealSchedule(order, TELEGRAM_LIMITS);
  // Sends 2% behind the limits: on a loaded machine a late timer would otherwise bunch sends.
  const plan = idealSchedule(order, {
    ...TELEGRAM_LIMITS,
    perChatMs: TELEGRAM_LIMITS.perChatMs * 1.02,
    groupWindowMs: TELEGRAM_LIMITS.groupWindowMs * 1.02,
    globalWindowMs: TELEGRAM_LIMITS.globalWindowMs * 1.02,
  });
  const from = stats.delivered.length;
  const limitedBefore = stats.limited;
  const keys = new Set<string>();
  const t0 = Date.now() + 50;
  await Promise.all(
    order.map(async (chat, i) => {
      const key = `b${s.name.replace(/\W/g, '')}${i}`;
      keys.add(key);
      await sleep(t0 + plan[i]! - Date.now());
      // A late timer on a loaded machine can bunch sends: then wait retry_after and send again.
      for (let attempt = 0; attempt < 5; attempt++) {
        const res = await request(`${fake.apiRoot}/bot${fake.token}/sendMessage`, {
          method: 'POST',
          dispatcher: bare,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            chat_id: chat,
            text: `case ${key}`,
            reply_markup: {
              inline_keyboard: [[{ text: 'Approve', callback_data: `hitl:${key}:approve` }]],
            },
          }),
        });
        const answer = (await res.body.json()) as {
          ok: boolean;
          parameters?: { retry_after?: number };
        };
        if (answer.ok) break;
        await sleep((answer.parameters?.retry_after ?? 1) * 1000);
      }
    }),
  );
  return { ...judge(stats.delivered, from, keys, ideal), limited: stats.limited - limitedBefore };
}

async function runRelay(s: Scenario) {
  const chats = s.chats(0);
  const order = Array.from({ length: s.cases }, (_, i) => chats[i % chats.length]!);
  const ideal = idealSchedule(order, TELEGRAM_LIMITS);
  // The production pace (no options): Telegram's published limits, 429s retried after retry_after.
  const { adapter } = benchTelegramAdapter(fake, undefined);
  const r = await startBenchRelay({ adapters: [adapter] });
  const from = stats.delivered.length;
  const limitedBefore = stats.limited;
  fake.inject429('sendMessage', INJECTED, 1);
  const posted = { ok: 0, notYet: 0 };
  const t0 = performance.now();
  // The run ends two minutes after the limits would let the last case out, however it goes.
  const deadline = Date.now() + ideal[ideal.length - 1]! + 120_000;
  await Promise.all(
    order.map(async (chat, i) => {
      const res = await client.post(`${r.url}/v1/cases`, {
        target: `telegram:${chat}`,
        response: service.create(`p${s.name.replace(/\W/g, '')}${i}`),
      });
      if (res.status !== 201) throw new Error(`intake answered ${res.status}`);
      if (res.body.messages?.[0]?.state === 'posted') posted.ok++;
      else posted.notYet++;
    }),
  );
  const answeredSeconds = (performance.now() - t0) / 1000;
  // Case keys are not in the intake answer: read them from what reached the fake.
  const mineKeys = () =>
    new Set(
      stats.delivered
        .slice(from)
        .filter((d) => chats.includes(d.chat))
        .map((d) => d.key),
    );
  // Wait until every case is delivered, then until sending has been quiet for 6 s (late duplicates).
  while (mineKeys().size < s.cases && Date.now() < deadline) await sleep(250);
  for (let seen = -1; seen !== stats.delivered.length && Date.now() < deadline; ) {
    seen = stats.delivered.length;
    await sleep(6000);
  }
  const result = judge(stats.delivered, from, mineKeys(), ideal);
  // PACE_DEBUG=1 prints deliveries per second (shows a slow tail, see docs/BENCHMARKS.md).
  if (process.env.PACE_DEBUG) {
    const mine = stats.delivered.slice(from);
    const t0d = mine[0]!.at;
    const hist = new Map<number, number>();
    for (const d of mine) {
      const second = Math.floor((d.at - t0d) / 1000);
      hist.set(second, (hist.get(second) ?? 0) + 1);
    }
    console.log([...hist].map(([k, v]) => `${k}:${v}`).join(' '));
  }
  const warnings = r.warnings.length;
  // What the warnings say, by message (a paced burst should not need any).
  const byMsg = new Map<string, number>();
  for (const line of r.warnings) {
    const msg = String((JSON.parse(line) as { msg?: unknown }).msg ?? line.slice(0, 80));
    byMsg.set(msg, (byMsg.get(msg) ?? 0) + 1);
  }
  for (const [msg, n] of byMsg) console.log(`  warn x${n}: ${msg}`);
  await r.stop();
  return { ...result, limited: stats.limited - limitedBefore, posted, answeredSeconds, warnings };
}

for (const s of scenarios) {
  if (!wants(args, s.name.replace(/\W/g, ''))) continue;
  const b = await runBaseline(s);
  await sleep(1500);
  const rel = await runRelay(s);
  await sleep(1500);
  const limitOf = s.name === '1 chat' ? '1/s' : s.name === '1 group' ? '20/min' : '30/s';
  console.log(
    `${s.name}: relay delivered ${rel.distinct}/${s.cases} cases (${rel.duplicates} duplicates) in ${fmt(rel.seconds)} s, ` +
      `${fmt(rel.rate)}/s = ${fmt(rel.share * 100)}% of the limit (${limitOf}); 429s received: ${rel.limited} over the limit + ${INJECTED} injected; ` +
      `intake answered ${rel.posted.ok} posted / ${rel.posted.notYet} not yet posted after ${fmt(rel.answeredSeconds)} s; ${rel.warnings} warnings logged. ` +
      `Baseline ${b.distinct}/${s.baseline} at ${fmt(b.share * 100)}% of the limit, ${b.limited} over-limit 429s`,
  );
  figures.push(
    {
      bench: 'pace',
      figure: `${s.name} (${s.cases} cases): delivered rate, share of ${limitOf}`,
      value: rel.share * 100,
      unit: '%',
      baseline: b.share * 100,
      // Issue 22 asks 95 % of 1/s for one chat; 90 % elsewhere.
      goal: s.name === '1 chat' ? '>= 95%' : '>= 90%',
      met: rel.share >= (s.name === '1 chat' ? 0.95 : 0.9),
    },
    {
      bench: 'pace',
      figure: `${s.name}: cases delivered once / duplicates / lost`,
      value: rel.distinct,
      unit: `of ${s.cases} (${rel.duplicates} dup, ${s.cases - rel.distinct} lost)`,
      baseline: null,
      goal: 'all, once',
      met: rel.distinct === s.cases && rel.duplicates === 0,
    },
    {
      bench: 'pace',
      figure: `${s.name}: 429s over the limit (besides ${INJECTED} injected)`,
      value: rel.limited,
      unit: '',
      baseline: b.limited,
      goal: '0',
      met: rel.limited === 0,
    },
  );
}
await runChatPacing(args, service, client, figures);
await runWhatsAppPacing(args, service, client, figures);
await runGooglechatPacing(args, service, client, figures);
console.log(`\npacing under Telegram's, Slack's and Discord's limits; ${machine()}`);
report(figures);
await client.close();
await bare.close();
await fake.close();
await service.stop();
