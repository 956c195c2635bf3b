/**
 * Benchmark 5, the relay's own HITL service (asks, `POST /v1/asks` and its `/asks` service):
 * (a) intake: asks created at 1, 16 and 64 concurrent clients, each until its 202 (the card is
 * posted to the web chat before the 202); (b) polls: open asks polled with If-None-Match at 64
 * clients, every answer a 304; on SQLite, and on PostgreSQL when DATABASE_URL or PG_TEST_URL is
 * set (the relay's store and the asks service both there). Baseline in the same run: a bare
 * node:http + Map service doing the same create and conditional poll (bench/lib/bare-asks.ts).
 * The load generator is a child process (bench/lib/asks-load.ts), so the relay's event loop and
 * CPU are its own; "CPU per ask/poll" is this process's CPU over a side's rounds (PostgreSQL's own
 * CPU not included).
 */
import { join } from 'node:path';
import { createWebAdapter } from '../platforms/web/index.ts';
import { openPostgresStore } from '../src/store/postgres-store.ts';
import { openSqliteStore } from '../src/store/sqlite-store.ts';
import { benchArgs } from './lib/args.ts';
import { type CreateFigures, type PollFigures, startAsksLoad } from './lib/asks-load.ts';
import { startBareAsks } from './lib/bare-asks.ts';
import { startPhaseProfile } from './lib/profile.ts';
import { type BenchRelay, startBenchRelay } from './lib/relay.ts';
import { type Figure, fmt, machine, percentile, report } from './lib/stats.ts';
import { freshSchema, postgresUrl } from './lib/stores.ts';

const args = benchArgs();
const LEVELS = [1, 16, 64] as const;
/** Asks per concurrency level (split over the rounds). */
const sizes = args.full ? { 1: 1500, 16: 6000, 64: 6000 } : { 1: 300, 16: 1500, 64: 1500 };
/** Open asks polled, and polls per side (split over the rounds). */
const POLL_SET = args.full ? 5000 : 1000;
const POLLS = args.full ? 150_000 : 30_000;
const POLL_CLIENTS = 64;
const ROUNDS = 3;
/** Rooms the asks go to: the web chat keeps a room's messages as one value, so rooms stay small. */
const ROOMS = 200;
const median = (xs: number[]) => percentile(xs, 50);
/** `--only=` picks stores (sqlite, postgres) and parts (intake, poll); naming none of a group runs all of it. */
const part = (name: string, group: string[]) =>
  args.only === null || args.only.includes(name) || !group.some((g) => args.only!.includes(g));
const STORES = ['sqlite', 'postgres'];
const PARTS = ['intake', 'poll'];

const load = await startAsksLoad();
const bare = await startBareAsks();
const figures: Figure[] = [];

/** This process's CPU milliseconds while `fn` runs (the load generator is another process). */
async function cpuOf<T>(fn: () => Promise<T>): Promise<{ value: T; cpuMs: number }> {
  const start = process.cpuUsage();
  const value = await fn();
  const used = process.cpuUsage(start);
  return { value, cpuMs: (used.user + used.system) / 1000 };
}

interface Side {
  rates: number[];
  p50: number[];
  p99: number[];
  cpuMs: number;
  refused: number;
  firstRefusal?: string;
}
const side = (): Side => ({ rates: [], p50: [], p99: [], cpuMs: 0, refused: 0 });
const add = (s: Side, f: CreateFigures | PollFigures, cpuMs: number) => {
  s.rates.push(f.rate);
  s.p50.push(f.p50);
  s.p99.push(f.p99);
  s.cpuMs += cpuMs;
  if ('refused' in f) {
    s.refused += f.refused;
    s.firstRefusal ??= f.firstRefusal;
  }
};

function push(figure: string, value: number, unit: string, baseline: number | null) {
  figures.push({ bench: 'asks', figure, value, unit, baseline, goal: '', met: null });
}

async function intake(r: BenchRelay, label: string): Promise<void> {
  for (const c of LEVELS) {
    const n = Math.round(sizes[c] / ROUNDS);
    const base = side();
    const relay = side();
    // Rounds alternate baseline and relay, so a change in the machine's load hits both.
    for (let round = 0; round < ROUNDS; round++) {
      const b = await cpuOf(() =>
        load.create({
          url: `${bare.url}/asks`,
          set: `base ${label}`,
          n,
          concurrency: c,
          rooms: ROOMS,
        }),
      );
      add(base, b.value, b.cpuMs);
      const profile = await startPhaseProfile(
        round === 0 ? args.profile : null,
        `asks-intake-${label}-${c}`,
      );
      const a = await cpuOf(() =>
        load.create({
          url: `${r.url}/v1/asks`,
          set: `relay ${label}`,
          n,
          concurrency: c,
          rooms: ROOMS,
        }),
      );
      await profile.stop();
      add(relay, a.value, a.cpuMs);
    }
    const total = n * ROUNDS;
    console.log(
      `${label} intake, ${c} clients: ${total} asks, median ${fmt(median(relay.rates))}/s (${relay.rates.map((x) => fmt(x)).join(', ')}), p99 ${fmt(median(relay.p99))} ms, CPU ${fmt(relay.cpuMs / total)} ms/ask; baseline ${fmt(median(base.rates))}/s, p99 ${fmt(median(base.p99))} ms, CPU ${fmt(base.cpuMs / total, 3)} ms/ask`,
    );
    if (relay.refused)
      console.log(
        `  ${relay.refused} of ${total} asks refused with 503 (counted in the rate); first: ${relay.firstRefusal}`,
      );
    const who = `${label}, ${c} client${c > 1 ? 's' : ''}`;
    push(`intake ${who}`, median(relay.rates), 'asks/s', median(base.rates));
    figures.push({
      bench: 'asks',
      figure: `intake ${who}: refused (503)`,
      value: relay.refused,
      unit: 'asks',
      baseline: null,
      goal: '0',
      met: relay.refused === 0,
    });
    if (c === 64) {
      push(`intake ${who}: p99`, median(relay.p99), 'ms', median(base.p99));
      push(`intake ${who}: CPU per ask`, relay.cpuMs / total, 'ms', base.cpuMs / total);
    }
  }
}

async function polls(label: string): Promise<void> {
  const primed = await load.prime(`relay ${label}`, POLL_SET);
  await load.prime(`base ${label}`, POLL_SET);
  const n = Math.round(POLLS / ROUNDS);
  const base = side();
  const relay = side();
  for (let round = 0; round < ROUNDS; round++) {
    const b = await cpuOf(() => load.poll(`base ${label}`, n, POLL_CLIENTS));
    if (b.value.changed) throw new Error(`baseline: ${b.value.changed} polls did not answer 304`);
    add(base, b.value, b.cpuMs);
    const profile = await startPhaseProfile(
      round === 0 ? args.profile : null,
      `asks-poll-${label}`,
    );
    const a = await cpuOf(() => load.poll(`relay ${label}`, n, POLL_CLIENTS));
    await profile.stop();
    if (a.value.changed) throw new Error(`relay: ${a.value.changed} polls did not answer 304`);
    add(relay, a.value, a.cpuMs);
  }
  const total = n * ROUNDS;
  console.log(
    `${label} polls (304), ${POLL_CLIENTS} clients over ${primed} open asks: ${total} polls, median ${fmt(median(relay.rates))}/s (${relay.rates.map((x) => fmt(x)).join(', ')}), p50 ${fmt(median(relay.p50))} ms, p99 ${fmt(median(relay.p99))} ms, CPU ${fmt(relay.cpuMs / total, 3)} ms/poll; baseline ${fmt(median(base.rates))}/s, p50 ${fmt(median(base.p50))} ms, p99 ${fmt(median(base.p99))} ms, CPU ${fmt(base.cpuMs / total, 3)} ms/poll`,
  );
  const who = `${label}, ${POLL_CLIENTS} clients, ${primed} open`;
  push(`poll 304 ${who}`, median(relay.rates), 'polls/s', median(base.rates));
  push(`poll 304 ${who}: p50`, median(relay.p50), 'ms', median(base.p50));
  push(`poll 304 ${who}: p99`, median(relay.p99), 'ms', median(base.p99));
  push(`poll 304 ${who}: CPU per poll`, relay.cpuMs / total, 'ms', base.cpuMs / total);
}

async function run(store: 'sqlite' | 'postgres', pgUrl?: string): Promise<void> {
  const schema = pgUrl ? await freshSchema(pgUrl) : undefined;
  const r = await startBenchRelay({
    adapters: [createWebAdapter()],
    store: (dir) =>
      schema ? openPostgresStore(schema.url) : openSqliteStore(join(dir, 'bench.sqlite')),
    // With DATABASE_URL the asks service keeps its cases in PostgreSQL too.
    ...(schema && { env: { DATABASE_URL: schema.url } }),
  });
  const label = `web + ${store}`;
  try {
    // Warm-up (and, on PostgreSQL, the asks service's tables opened in the background).
    await load.create({
      url: `${r.url}/v1/asks`,
      set: 'warm',
      n: 100,
      concurrency: 8,
      rooms: ROOMS,
    });
    await load.create({
      url: `${bare.url}/asks`,
      set: 'warm',
      n: 100,
      concurrency: 8,
      rooms: ROOMS,
    });
    if (part('intake', PARTS)) await intake(r, label);
    else {
      // The open asks to poll, made without measuring.
      const made = { n: POLL_SET, concurrency: 16, rooms: ROOMS };
      await load.create({ url: `${r.url}/v1/asks`, set: `relay ${label}`, ...made });
      await load.create({ url: `${bare.url}/asks`, set: `base ${label}`, ...made });
    }
    if (part('poll', PARTS)) await polls(label);
  } finally {
    if (r.warnings.length)
      console.log(
        `relay warnings: ${r.warnings.length}; first 2:\n${r.warnings.slice(0, 2).join('')}`,
      );
    await r.stop();
    await schema?.drop();
  }
}

if (part('sqlite', STORES)) await run('sqlite');
if (part('postgres', STORES)) {
  const url = postgresUrl();
  if (url) await run('postgres', url);
  else console.log('PostgreSQL skipped: set DATABASE_URL or run under scripts/with-postgres.mjs');
}

console.log(`\nasks (the relay's own HITL service); ${machine()}`);
report(figures);
await load.stop();
await bare.stop();
