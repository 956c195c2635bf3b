/**
 * The asks benchmark's load generator in a process of its own, so the relay (or the baseline) has
 * its event loop and CPU to itself: creates asks (`POST .../asks`, expecting 202 with a `hitl`
 * object), learns each case's ETag with one poll, then polls with If-None-Match (expecting 304)
 * and times every request. Poll URLs and ETags stay in the child; only figures cross the IPC.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { percentile } from './stats.ts';

/** One load command. `set` names a list of created asks (one per side: relay, baseline). */
export type LoadCommand =
  | { cmd: 'create'; url: string; set: string; n: number; concurrency: number; rooms: number }
  | { cmd: 'prime'; set: string; limit: number }
  | { cmd: 'poll'; set: string; n: number; concurrency: number };

/** What a run measured. */
interface Timed {
  rate: number;
  /** Milliseconds, request sent to answer read. */
  p50: number;
  p99: number;
}

/** What a create run measured: `rate` counts every answer, `refused` the 503s among them. */
export interface CreateFigures extends Timed {
  refused: number;
  /** The first refusal's body. */
  firstRefusal?: string;
}

/** What a poll run measured. */
export interface PollFigures extends Timed {
  /** Polls that did not answer 304 (each one fails the run: the asks did not change). */
  changed: number;
}

/** The parent's handle on the child. */
export interface AsksLoad {
  create(o: Omit<Extract<LoadCommand, { cmd: 'create' }>, 'cmd'>): Promise<CreateFigures>;
  /** Polls the first `limit` asks of `set` once each (200 with an ETag); how many are primed. */
  prime(set: string, limit: number): Promise<number>;
  poll(set: string, n: number, concurrency: number): Promise<PollFigures>;
  stop(): Promise<void>;
}

/** Forks the load generator. */
export async function startAsksLoad(): Promise<AsksLoad> {
  const child = fork(fileURLToPath(import.meta.url), ['--child'], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let seq = 0;
  const waiting = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`asks load generator exited with ${code}`)));
    child.on('message', (m: { ready?: true; id?: number; answer?: unknown; error?: string }) => {
      if (m.ready) return resolve();
      const w = m.id === undefined ? undefined : waiting.get(m.id);
      if (!w) return;
      waiting.delete(m.id!);
      if (m.error) w.reject(new Error(m.error));
      else w.resolve(m.answer);
    });
  });
  child.removeAllListeners('exit');
  const ask = <T>(q: LoadCommand) =>
    new Promise<T>((resolve, reject) => {
      const id = seq++;
      waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      child.send({ id, q });
    });
  return {
    create: (o) => ask({ cmd: 'create', ...o }),
    prime: (set, limit) => ask({ cmd: 'prime', set, limit }),
    poll: (set, n, concurrency) => ask({ cmd: 'poll', set, n, concurrency }),
    async stop() {
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      child.send({ stop: true });
      await exited;
    },
  };
}

/** Runs `fn` over 0..n-1 with `limit` calls at once. */
async function pool(n: number, limit: number, fn: (i: number) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, n) }, async () => {
      while (next < n) await fn(next++);
    }),
  );
}

interface Known {
  pollUrl: string;
  etag?: string;
}

/** The child's side: one keep-alive agent, the created asks per set. */
function loadGenerator() {
  const dispatcher = new Agent({ connections: 128, keepAliveTimeout: 60_000 });
  const sets = new Map<string, Known[]>();
  let serial = 0;

  /** Times `n` calls of `one` at `concurrency`: rate and latency percentiles. */
  async function timed(n: number, concurrency: number, one: (i: number) => Promise<void>) {
    const took: number[] = [];
    const t0 = performance.now();
    await pool(n, concurrency, async (i) => {
      const s = performance.now();
      await one(i);
      took.push(performance.now() - s);
    });
    const rate = n / ((performance.now() - t0) / 1000);
    return { rate, p50: percentile(took, 50), p99: percentile(took, 99) };
  }

  async function create(q: Extract<LoadCommand, { cmd: 'create' }>): Promise<CreateFigures> {
    const list = sets.get(q.set) ?? [];
    sets.set(q.set, list);
    let refused = 0;
    let firstRefusal: string | undefined;
    const figures = await timed(q.n, q.concurrency, async () => {
      const i = serial++;
      const res = await request(q.url, {
        method: 'POST',
        dispatcher,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          target: `web:bench-${i % q.rooms}`,
          content: { type: 'approval', sub_type: 'binary', prompt: `Deploy build b${i}?` },
        }),
      });
      const text = await res.body.text();
      // A 503 (store unavailable, retry later) is the relay refusing under load: counted, shown.
      if (res.statusCode === 503) {
        refused++;
        firstRefusal ??= text.slice(0, 300);
        return;
      }
      if (res.statusCode !== 202)
        throw new Error(`create answered ${res.statusCode}: ${text.slice(0, 300)}`);
      const pollUrl = (JSON.parse(text) as { hitl?: { poll_url?: string } }).hitl?.poll_url;
      if (!pollUrl) throw new Error(`create answered without hitl.poll_url: ${text.slice(0, 300)}`);
      list.push({ pollUrl });
    });
    return { ...figures, refused, ...(firstRefusal && { firstRefusal }) };
  }

  async function prime(set: string, limit: number): Promise<number> {
    const list = (sets.get(set) ?? []).slice(0, limit);
    await pool(list.length, 16, async (i) => {
      const k = list[i]!;
      const res = await request(k.pollUrl, { dispatcher });
      await res.body.dump();
      const etag = res.headers.etag;
      if (res.statusCode !== 200 || typeof etag !== 'string')
        throw new Error(`poll answered ${res.statusCode} with etag ${String(etag)}`);
      k.etag = etag;
    });
    return list.length;
  }

  async function poll(q: Extract<LoadCommand, { cmd: 'poll' }>): Promise<PollFigures> {
    const list = (sets.get(q.set) ?? []).filter((k) => k.etag);
    if (list.length === 0) throw new Error(`no primed asks in ${q.set}`);
    let changed = 0;
    const figures = await timed(q.n, q.concurrency, async (i) => {
      const k = list[i % list.length]!;
      const res = await request(k.pollUrl, {
        dispatcher,
        headers: { 'if-none-match': k.etag! },
      });
      await res.body.dump();
      if (res.statusCode !== 304) changed++;
    });
    return { ...figures, changed };
  }

  return {
    run(q: LoadCommand): Promise<unknown> {
      if (q.cmd === 'create') return create(q);
      if (q.cmd === 'prime') return prime(q.set, q.limit);
      return poll(q);
    },
    close: () => dispatcher.close(),
  };
}

async function main() {
  const gen = loadGenerator();
  process.on('message', async (m: { id: number; q?: LoadCommand; stop?: boolean }) => {
    if (m.stop) {
      await gen.close();
      process.disconnect();
      return;
    }
    try {
      process.send?.({ id: m.id, answer: await gen.run(m.q!) });
    } catch (err) {
      process.send?.({ id: m.id, error: (err as Error).message });
    }
  });
  process.send?.({ ready: true });
}

if (process.argv[2] === '--child') await main();
