/**
 * One side of the watch benchmark, in a child process of its own so its CPU time and RSS are its
 * own: `relay` (the real Watcher over N open cases in SQLite) or `baseline` (a bare undici loop
 * issuing the same conditional GETs on the same schedule). Reports over IPC what it scheduled
 * (case id, due time) so the parent can pair each with the poll's arrival at the service.
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { Agent, request } from 'undici';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { createSealer } from '../../src/store/sealer.ts';
import { openSqliteStore } from '../../src/store/sqlite-store.ts';
import type { StoredCase, StoredHitl } from '../../src/store/types.ts';
import { hitlBody } from './hitl-service.ts';
import { startPhaseProfile } from './profile.ts';
import { startBenchRelay } from './relay.ts';
import { sleep } from './run.ts';
import { type PeakMemory, ResourceMeter, summary } from './stats.ts';

/** What the parent asks for. */
export interface SideTask {
  side: 'relay' | 'baseline';
  cases: number;
  intervalMs: number;
  durationMs: number;
  serviceUrl: string;
  secret: string;
  /** Writes a CPU profile of the watching phase (not the set-up) here. */
  profileDir?: string;
  heapProfileDir?: string;
  /** Overrides the Watcher's tick (to measure what a shorter one would give). */
  tickMs?: number;
  /** Set by the relay side for its helper: write the open cases into this file (fillStore). */
  fill?: string;
}

/** What a side reports. */
export interface SideReport {
  /** [case id, due time in ms since the epoch] for every poll it started. */
  scheduled: Array<[string, number]>;
  cpuShare: number;
  /** CPU share after the first cycle (every case looked at once since start), to the end. */
  steadyCpuShare: number;
  wallSeconds: number;
  rssIdle: number;
  peakRss: number;
  /** What the RSS was made of at its peak. */
  peakMemory: PeakMemory;
  /** The JS heap in use after a full garbage collection at the end (what watching holds). */
  heapUsed: number;
  setupSeconds: number;
  /** Open cases whose due time had passed by more than a second when the run ended. */
  overdue: number;
  /** Relay only: how late each look started (the Watcher's batch wait), p50 and p99 in ms. */
  leaseLag?: { p50: number; p99: number };
}

const caseIdOf = (i: number) => `c${i}`;

/**
 * What a side scheduled (case index, due time), in flat typed arrays: kept as objects, 300k of them
 * would be a large part of the heap whose peak RSS the side reports.
 */
class Looks {
  private n = 0;
  private index: Int32Array;
  private due: Float64Array;
  constructor(t: SideTask) {
    const cap = Math.ceil(t.cases * (t.durationMs / t.intervalMs + 2));
    this.index = new Int32Array(cap);
    this.due = new Float64Array(cap);
  }
  add(i: number, due: number): void {
    if (this.n === this.index.length) return; // more looks than cycles allow: not recorded
    this.index[this.n] = i;
    this.due[this.n++] = due;
  }
  /** [case id, due] pairs, for the parent (built once, at the end). */
  list(): Array<[string, number]> {
    return Array.from({ length: this.n }, (_, k) => [caseIdOf(this.index[k]!), this.due[k]!]);
  }
}
/** The service's ETag for an untouched case, so every poll is answered 304. */
const etagOf = (id: string) => `"${id}-1"`;

/**
 * Writes the open cases into `file`, in a process of its own: inserting 100k cases here would leave
 * the relay side's heap grown by work that is not watching (its peak RSS is the figure).
 */
async function fillStore(t: SideTask, file: string): Promise<void> {
  const store = openSqliteStore(file);
  const sealer = createSealer(undefined);
  const now = Date.now();
  for (let i = 0; i < t.cases; i++) {
    const id = caseIdOf(i);
    const { submit_token, review_url, ...hitl } = hitlBody(t.serviceUrl, t.secret, id)
      .hitl as Record<string, unknown> & { submit_token: string; review_url: string };
    const c: StoredCase = {
      id: `hc_${id}`,
      key: `k${i}`,
      origin: new URL(t.serviceUrl).origin,
      case_id: id,
      target: 'web:bench',
      status: 'pending',
      version: 1,
      doc: { hitl: hitl as unknown as StoredHitl, warnings: [], reminders_sent: [] },
      secrets: sealer.seal({ submit_token, review_url }),
      // Far ahead: at start the relay brings every open case forward, spread over one interval
      // (store.rescheduleOpen), which is the spread this benchmark wants.
      next_check_at: now + 24 * 3600_000,
      etag: etagOf(id),
      poll_failures: 0,
      claim: null,
      created_at: now,
      updated_at: now,
    };
    await store.createCase(c);
    // A posted, current card: what an open case has (the reconcile query scans messages).
    await store.reserveMessage({
      case_id: c.id,
      target: 'web:bench',
      platform: 'web',
      address: 'bench',
      ref_id: `m${i}`,
      state: 'posted',
      rendered_version: 1,
      error: null,
      posted_at: now,
    });
  }
  await store.close();
}

/** Runs a task in a child process of this module and waits for its report. */
function inChild<T>(task: SideTask): Promise<T> {
  const child = fork(fileURLToPath(import.meta.url), ['--child'], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  child.send(task);
  return new Promise((resolve, reject) => {
    child.once('message', (m) => resolve(m as T));
    child.once('exit', (code) => code && reject(new Error(`fill exited with ${code}`)));
  });
}

async function relaySide(t: SideTask): Promise<SideReport> {
  const setup = performance.now();
  const dir = mkdtempSync(join(tmpdir(), 'hitl-bench-watch-'));
  const file = join(dir, 'bench.sqlite');
  await inChild({ ...t, fill: file });
  const store = openSqliteStore(file);
  const rssIdle = process.memoryUsage().rss;
  const looks = new Looks(t);
  const leaseLag: number[] = [];
  // Each look as it starts (a held case's from the watcher's memory, the others as leased).
  const onLook = (c: Pick<StoredCase, 'case_id'>, dueAt: number) => {
    looks.add(Number(c.case_id.slice(1)), dueAt);
    leaseLag.push(Date.now() - dueAt);
  };
  const setupSeconds = (performance.now() - setup) / 1000;
  const profile = await startPhaseProfile(
    t.profileDir ?? null,
    `watch-relay-${t.cases}`,
    t.heapProfileDir ?? null,
  );
  const meter = new ResourceMeter();
  const r = await startBenchRelay({
    adapters: [createWebAdapter()],
    store: () => store,
    env: { POLL_INTERVAL_MIN_SECONDS: String(t.intervalMs / 1000) },
    watcher: { onLook, ...(t.tickMs ? { tickMs: t.tickMs } : {}) },
  });
  const steady = await afterFirstCycle(t);
  const end = Date.now();
  const used = meter.stop();
  await profile.stop();
  const heapUsed = heapAfterGc();
  const db = new Database(file, { readonly: true });
  const overdue = (
    db
      .prepare(
        'SELECT count(*) AS n FROM cases WHERE next_check_at IS NOT NULL AND next_check_at < ?',
      )
      .get(end - 1000) as { n: number }
  ).n;
  db.close();
  await r.stop();
  rmSync(dir, { recursive: true, force: true });
  const { p50, p99 } = summary(leaseLag);
  return {
    scheduled: looks.list(),
    ...used,
    steadyCpuShare: steady.cpuShare,
    rssIdle,
    heapUsed,
    setupSeconds,
    overdue,
    leaseLag: { p50, p99 },
  };
}

/** The heap in use after a full collection (the sides run with --expose-gc for this). */
function heapAfterGc(): number {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().heapUsed;
}

/** Waits out the run; the CPU share from the end of the first cycle on is metered apart. */
async function afterFirstCycle(t: SideTask) {
  const first = Math.min(t.intervalMs, t.durationMs / 2);
  await sleep(first);
  const meter = new ResourceMeter();
  await sleep(t.durationMs - first);
  return meter.stop();
}

/** A binary min-heap of [due, index]. */
class Heap {
  private readonly a: Array<[number, number]> = [];
  get size() {
    return this.a.length;
  }
  peek() {
    return this.a[0];
  }
  push(x: [number, number]) {
    const a = this.a;
    a.push(x);
    for (let i = a.length - 1; i > 0; ) {
      const p = (i - 1) >> 1;
      if (a[p]![0] <= a[i]![0]) break;
      [a[p], a[i]] = [a[i]!, a[p]!];
      i = p;
    }
  }
  pop() {
    const a = this.a;
    const top = a[0];
    const last = a.pop()!;
    if (a.length) {
      a[0] = last;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && a[l]![0] < a[m]![0]) m = l;
        if (r < a.length && a[r]![0] < a[m]![0]) m = r;
        if (m === i) break;
        [a[m], a[i]] = [a[i]!, a[m]!];
        i = m;
      }
    }
    return top;
  }
}

async function baselineSide(t: SideTask): Promise<SideReport> {
  const rssIdle = process.memoryUsage().rss;
  const meter = new ResourceMeter();
  const dispatcher = new Agent({ connections: 64, keepAliveTimeout: 30_000 });
  const heap = new Heap();
  const start = Date.now();
  for (let i = 0; i < t.cases; i++) heap.push([start + (i / t.cases) * t.intervalMs, i]);
  const looks = new Looks(t);
  let inflight = 0;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const poll = async (due: number, i: number) => {
    const id = caseIdOf(i);
    looks.add(i, due);
    inflight++;
    try {
      const res = await request(`${t.serviceUrl}/cases/${id}/status`, {
        dispatcher,
        headers: { accept: 'application/json', 'if-none-match': etagOf(id) },
      });
      await res.body.dump();
    } finally {
      inflight--;
      heap.push([Date.now() + t.intervalMs * (0.9 + Math.random() * 0.2), i]);
      pump();
    }
  };
  const pump = () => {
    if (stopped) return;
    const now = Date.now();
    while (inflight < 64 && heap.size && heap.peek()![0] <= now) {
      const [due, i] = heap.pop()!;
      void poll(due, i);
    }
    clearTimeout(timer);
    if (heap.size && inflight < 64) timer = setTimeout(pump, Math.max(1, heap.peek()![0] - now));
  };
  pump();
  const steady = await afterFirstCycle(t);
  stopped = true;
  clearTimeout(timer);
  const end = Date.now();
  let overdue = 0;
  while (heap.size && heap.peek()![0] < end - 1000) {
    heap.pop();
    overdue++;
  }
  const used = meter.stop();
  const heapUsed = heapAfterGc();
  await dispatcher.close();
  return {
    scheduled: looks.list(),
    ...used,
    steadyCpuShare: steady.cpuShare,
    rssIdle,
    heapUsed,
    setupSeconds: 0,
    overdue,
  };
}

if (process.argv[2] === '--child') {
  process.once('message', async (task: SideTask) => {
    if (task.fill) {
      await fillStore(task, task.fill);
      process.send?.('filled', () => process.disconnect());
      return;
    }
    const report = task.side === 'relay' ? await relaySide(task) : await baselineSide(task);
    process.send?.(report, () => process.disconnect());
  });
}
