/**
 * Benchmark 2, intake throughput: POST /v1/cases until the message is posted at a fake platform
 * with no rate limit (the 201 comes back after the card is posted), at 1, 16 and 64 concurrent
 * clients. Telegram (fake Bot API, webhook mode) on SQLite and PostgreSQL, and the web chat on
 * SQLite. Baseline: a bare undici loop POSTing sendMessage to the same fake at the same
 * concurrency. The fakes run in a child process (bench/lib/fakes-host.ts), so the relay's event
 * loop is not shared with them; the load generator shares it, as it does with the baseline.
 */

import { createWebAdapter } from '../platforms/web/index.ts';
import type { PlatformAdapter } from '../src/adapter.ts';
import { benchArgs, wants } from './lib/args.ts';
import { startFakesHost } from './lib/fakes-host.ts';
import { hitlBody } from './lib/hitl-service.ts';
import { startPhaseProfile } from './lib/profile.ts';
import { startBenchRelay } from './lib/relay.ts';
import { jsonClient, pool } from './lib/run.ts';
import { type Figure, fmt, machine, percentile, report } from './lib/stats.ts';
import { type BenchStore, postgresStore, postgresUrl, sqliteStore } from './lib/stores.ts';
import { benchTelegramAdapter, NO_PACE } from './lib/telegram.ts';

const args = benchArgs();
const LEVELS = [1, 16, 64];
/** Cases per concurrency level: enough for a few seconds each. */
const sizes = args.full ? { 1: 3000, 16: 12_000, 64: 12_000 } : { 1: 300, 16: 1500, 64: 1500 };
const CHAT = -1001000000003;
// Issue 22's goals, at 64 clients: web chat + SQLite, Telegram + SQLite, Telegram + PostgreSQL.
const GOALS: Record<string, number> = {
  'web + sqlite': 3000,
  'telegram + sqlite': 2000,
  'telegram + postgres': 1500,
};
const GOAL_CLIENTS = 64;
const ROUNDS = 3;
const median = (xs: number[]) => percentile(xs, 50);

const fakes = await startFakesHost({ telegram: true });
const fake = fakes.telegram!;
const count = () => fakes.ask<number>({ cmd: 'count', chat: CHAT });
const client = jsonClient(128);
const figures: Figure[] = [];
let serial = 0;
let notPosted = 0;

/** The bare loop: the same number of sendMessage calls to the same fake. */
async function baseline(n: number, concurrency: number): Promise<number> {
  const url = `${fake.apiRoot}/bot${fake.token}/sendMessage`;
  const t0 = performance.now();
  await pool(n, concurrency, async (i) => {
    const res = await client.post(url, {
      chat_id: CHAT,
      text: `<b>Approval needed</b>\n\nDeploy build b${i} to production?\n\n<i>Waiting for a decision</i>`,
      parse_mode: 'HTML',
      reply_markup: {
        inline_keyboard: [
          [
            { text: 'Approve', callback_data: `hitl:b${i}:approve` },
            { text: 'Reject', callback_data: `hitl:b${i}:reject` },
          ],
          [{ text: 'Details', url: `https://relay.example/r/b${i}` }],
        ],
      },
    });
    if (res.status !== 200) throw new Error(`fake answered ${res.status}`);
  });
  return n / ((performance.now() - t0) / 1000);
}

/** POST /v1/cases n times with `concurrency` clients; returns cases/s. */
async function intake(url: string, target: (i: number) => string, n: number, concurrency: number) {
  const t0 = performance.now();
  await pool(n, concurrency, async (i) => {
    const id = `i${serial++}`;
    const res = await client.post(`${url}/v1/cases`, {
      target: target(i),
      response: hitlBody(fakes.serviceUrl, fakes.secret, id),
    });
    if (res.status !== 201)
      throw new Error(`intake answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
    // A failed post is kept and retried by the relay's reconcile loop; counted, not fatal.
    if (res.body.messages?.[0]?.state !== 'posted') notPosted++;
  });
  return n / ((performance.now() - t0) / 1000);
}

async function run(platform: 'telegram' | 'web', store: BenchStore): Promise<void> {
  const adapters: PlatformAdapter[] =
    platform === 'telegram' ? [benchTelegramAdapter(fake, NO_PACE).adapter] : [createWebAdapter()];
  const r = await startBenchRelay({ adapters, store: (dir) => store.open(dir) });
  // The web chat keeps a room's message list as one JSON value, so rooms stay small (see the notes).
  const target =
    platform === 'telegram' ? () => `telegram:${CHAT}` : (i: number) => `web:bench-${i % 50}`;
  const label = `${platform} + ${store.name}`;
  try {
    await intake(r.url, target, 100, 8); // warm-up
    for (const c of LEVELS) {
      const n = sizes[c as keyof typeof sizes];
      // Rounds alternate baseline and relay, so a change in the machine's load hits both.
      const before = await count();
      notPosted = 0;
      const bases: number[] = [];
      const rates: number[] = [];
      const profile = await startPhaseProfile(
        args.profile,
        `intake-${platform}-${store.name}-${c}`,
      );
      for (let round = 0; round < ROUNDS; round++) {
        bases.push(await baseline(n / ROUNDS, c));
        rates.push(await intake(r.url, target, n / ROUNDS, c));
      }
      const phase = await profile.stop();
      const base = median(bases);
      const rate = median(rates);
      if (platform === 'telegram' && (await count()) - before !== 2 * n - notPosted)
        throw new Error('the fake did not receive one message per posted case');
      console.log(
        `${label}, ${c} clients: ${n} cases in ${ROUNDS} rounds, median ${fmt(rate)} cases/s (${rates.map((x) => fmt(x)).join(', ')}); baseline ${fmt(base)}/s (${bases.map((x) => fmt(x)).join(', ')}); GC ${fmt(phase.gcMs)} ms` +
          (notPosted
            ? `; ${notPosted} cards not posted by the time intake answered (left to reconcile)`
            : ''),
      );
      const goal = c === GOAL_CLIENTS ? GOALS[label] : undefined;
      figures.push({
        bench: 'intake',
        figure: `${label}, ${c} client${c > 1 ? 's' : ''}`,
        value: rate,
        unit: 'cases/s',
        baseline: base,
        goal: goal ? `>= ${goal} cases/s` : '',
        met: goal ? rate >= goal : null,
      });
    }
  } finally {
    if (r.warnings.length)
      console.log(
        `relay warnings: ${r.warnings.length}; first 2:\n${r.warnings.slice(0, 2).join('')}`,
      );
    await r.stop();
    await store.dispose();
  }
}

if (wants(args, 'sqlite')) await run('telegram', sqliteStore());
const pgUrl = postgresUrl();
if (wants(args, 'postgres')) {
  if (pgUrl) await run('telegram', postgresStore(pgUrl));
  else console.log('PostgreSQL skipped: set DATABASE_URL or run under scripts/with-postgres.mjs');
}
if (wants(args, 'web')) await run('web', sqliteStore());

console.log(`\nintake throughput; ${machine()}`);
report(figures);
await client.close();
await fakes.stop();
