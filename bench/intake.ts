/**
 * Benchmark 2, intake throughput: POST /v1/cases until the message is posted at a fake platform
 * with no rate limit (the 201 comes back after the card is posted), at 1, 16 and 64 concurrent
 * clients. Telegram (fake Bot API, webhook mode) on SQLite and PostgreSQL, and the web chat on
 * SQLite. Baseline: a bare undici loop POSTing sendMessage to the same fake at the same
 * concurrency. The fakes run in a child process (bench/lib/fakes-host.ts) and the load generator
 * in another (bench/lib/load-host.ts, for both sides), so the relay's event loop is its own, as
 * in production with the agents and the platform elsewhere. "relay CPU" is this process's CPU
 * time (all threads) while the relay side was loaded, per case.
 */

import { createWebAdapter } from '../platforms/web/index.ts';
import type { PlatformAdapter } from '../src/adapter.ts';
import { benchArgs, wants } from './lib/args.ts';
import { startFakesHost } from './lib/fakes-host.ts';
import { startLoadHost, type TargetSpec } from './lib/load-host.ts';
import { startPhaseProfile } from './lib/profile.ts';
import { startBenchRelay } from './lib/relay.ts';
import { type Figure, fmt, machine, percentile, report } from './lib/stats.ts';
import { type BenchStore, postgresStore, postgresUrl, sqliteStore } from './lib/stores.ts';
import { benchTelegramAdapter, NO_PACE } from './lib/telegram.ts';

const args = benchArgs();
// `--only=` may name client counts too (`--only=web,64`): then only those levels run.
const picked = (args.only ?? []).filter((x) => /^\d+$/.test(x));
const LEVELS = [1, 16, 64].filter((c) => !picked.length || picked.includes(String(c)));
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
const load = await startLoadHost();
const figures: Figure[] = [];
let notPosted = 0;
/** CPU time (ms) of this process, the relay's, spent while the relay side was loaded. */
let relayCpuMs = 0;

/** The bare loop: the same number of sendMessage calls to the same fake, from the same generator. */
async function baseline(n: number, concurrency: number): Promise<number> {
  const job = {
    kind: 'baseline',
    apiRoot: fake.apiRoot,
    token: fake.token,
    chat: CHAT,
    n,
    concurrency,
  } as const;
  return (await load.run(job)).rate;
}

/** POST /v1/cases n times with `concurrency` clients; returns cases/s. */
async function intake(url: string, target: TargetSpec, n: number, concurrency: number) {
  const job = {
    kind: 'intake',
    url,
    target,
    serviceUrl: fakes.serviceUrl,
    secret: fakes.secret,
    n,
    concurrency,
  } as const;
  const cpu0 = process.cpuUsage();
  const r = await load.run(job);
  const cpu = process.cpuUsage(cpu0);
  relayCpuMs += (cpu.user + cpu.system) / 1000;
  notPosted += r.notPosted;
  return r.rate;
}

async function run(platform: 'telegram' | 'web', store: BenchStore): Promise<void> {
  const adapters: PlatformAdapter[] =
    platform === 'telegram' ? [benchTelegramAdapter(fake, NO_PACE).adapter] : [createWebAdapter()];
  const r = await startBenchRelay({ adapters, store: (dir) => store.open(dir) });
  // The web chat keeps a room's message list as one JSON value, so rooms stay small (see the notes).
  const target: TargetSpec =
    platform === 'telegram' ? { fixed: `telegram:${CHAT}` } : { prefix: 'web:bench-', mod: 50 };
  const label = `${platform} + ${store.name}`;
  try {
    await intake(r.url, target, 100, 8); // warm-up
    for (const c of LEVELS) {
      const n = sizes[c as keyof typeof sizes];
      // Rounds alternate baseline and relay, so a change in the machine's load hits both.
      const before = await count();
      notPosted = 0;
      relayCpuMs = 0;
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
        `${label}, ${c} clients: ${n} cases in ${ROUNDS} rounds, median ${fmt(rate)} cases/s (${rates.map((x) => fmt(x)).join(', ')}); baseline ${fmt(base)}/s (${bases.map((x) => fmt(x)).join(', ')}); relay CPU ${(relayCpuMs / n).toFixed(3)} ms/case; GC ${fmt(phase.gcMs)} ms` +
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
await load.stop();
await fakes.stop();
