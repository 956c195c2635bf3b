/**
 * Benchmark of the MCP front (src/mcp): (a) an ask through MCP `tools/call` against the same ask
 * through `POST /v1/asks`, each until the card is posted, on one relay in one run; twice, once
 * for a client that declares the Tasks extension (`roundtrip`: MCP answers with the task) and once
 * for one that does not (`progress`: timed to the progress notification that says the card is
 * posted). CPU per ask comes from bursts of one front at a time (rounds alternate which goes
 * first); latency from bursts that alternate the fronts ask by ask, so a GC pause, a store
 * checkpoint or another process's burst lands on both alike (with separate bursts such a stall
 * fell on whichever front was running and moved the p99 difference by +-20 ms between runs). The
 * difference is what the MCP front adds: JSON-RPC, the SDK's checks, the tool schemas, the result.
 * The goals: at most +1 ms at p99 and at most +10 % CPU per ask. (b) 1,000 open MCP calls
 * in progress mode (each holds its stream open with progress notifications), every card posted:
 * the store reads their waits make while nothing changes, counted by the relay's own gauge
 * (hitl_relay_mcp_wait_reads), over an idle window and a change elsewhere. The load of (a) runs
 * in a child process (bench/lib/mcp-load.ts, one generator for every front), so CPU per ask is
 * the relay's own: this process's CPU over the burst, which holds the relay and nothing else busy.
 * `MCP_ROUNDS` sets the rounds (3 by default), `MCP_CLIENTS` the concurrent clients (8);
 * `--profile=DIR` profiles the measured rounds; `MCP_LEAN=0` leaves every call to the SDK path
 * (no lean path, src/mcp/lean-call.ts).
 */
import { Agent, request } from 'undici';
import { createWebAdapter } from '../platforms/web/index.ts';
import { benchArgs, wants } from './lib/args.ts';
import { type McpFront, REVISION, startMcpLoad } from './lib/mcp-load.ts';
import { startPhaseProfile } from './lib/profile.ts';
import { startBenchRelay } from './lib/relay.ts';
import { type Figure, fmt, machine, percentile, report } from './lib/stats.ts';

const args = benchArgs();
const ASKS = args.full ? 3000 : 600;
const ROUNDS = Number(process.env.MCP_ROUNDS ?? 3);
const CONCURRENCY = Number(process.env.MCP_CLIENTS ?? 8);
const WAITS = args.full ? 1000 : Number(process.env.MCP_WAITS ?? 1000);
const ROOMS = 100;
const dispatcher = new Agent({ connections: WAITS + 64, pipelining: 0 });
const figures: Figure[] = [];

const relay = await startBenchRelay({ adapters: [createWebAdapter()] });
const base = relay.url;
let seq = 0;

const envelope = (tasks: boolean) => ({
  'io.modelcontextprotocol/protocolVersion': REVISION,
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': tasks
    ? { extensions: { 'io.modelcontextprotocol/tasks': {} } }
    : {},
});

/** A 2026-07-28 tools/call of ask_confirm as the wire has it. */
function toolCall(i: number, tasks: boolean, progress: boolean) {
  const id = ++seq;
  const meta = { ...envelope(tasks), ...(progress ? { progressToken: id } : {}) };
  return {
    id,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id,
      method: 'tools/call',
      params: {
        name: 'ask_confirm',
        arguments: { prompt: `Is #${i} fine?`, target: `web:bench-${i % ROOMS}` },
        _meta: meta,
      },
    }),
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': REVISION,
      'mcp-method': 'tools/call',
      'mcp-name': 'ask_confirm',
    },
  };
}

/** The same ask through POST /v1/asks (its 202 comes once the card is posted). */
async function httpAsk(i: number): Promise<void> {
  const res = await request(`${base}/v1/asks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      target: `web:bench-${i % ROOMS}`,
      content: { type: 'context', sub_type: 'confirm', prompt: `Is #${i} fine?` },
    }),
    dispatcher,
  });
  const text = await res.body.text();
  if (res.statusCode !== 202)
    throw new Error(`POST /v1/asks ${res.statusCode}: ${text.slice(0, 300)}`);
}

/** `n` asks through `fronts` from the load generator: latencies (ms) and the relay's CPU (ms). */
async function run(load: Load, fronts: McpFront[], n: number) {
  const cpu = process.cpuUsage();
  const times = await load.run({ fronts, url: base, n, concurrency: CONCURRENCY, rooms: ROOMS });
  const used = process.cpuUsage(cpu);
  return { times, cpuMs: (used.user + used.system) / 1000 };
}

type Load = Awaited<ReturnType<typeof startMcpLoad>>;
type McpMode = 'mcp' | 'progress';
const MODE_NAME: Record<McpMode, string> = {
  mcp: 'tools/call (Tasks) to card posted',
  progress: 'tools/call (progress mode) to "posted" progress',
};

/**
 * `mode` against `POST /v1/asks`: CPU per ask from one front at a time (rounds alternate which
 * goes first), latencies from bursts that alternate the two fronts ask by ask.
 */
async function measure(load: Load, mode: McpMode) {
  // Warm-up: JIT, the SDK's schemas, the store's statements.
  await run(load, [mode], 100);
  await run(load, ['http'], 100);
  const cpu = { [mode]: 0, http: 0 } as Record<McpMode | 'http', number>;
  const paired = { mcp: [] as number[], http: [] as number[] };
  const per = Math.round(ASKS / ROUNDS);
  const profile = await startPhaseProfile(args.profile, `mcp-${mode}`);
  for (let r = 0; r < ROUNDS; r++) {
    const order: (McpMode | 'http')[] = r % 2 === 0 ? ['http', mode] : [mode, 'http'];
    for (const front of order) cpu[front] += (await run(load, [front], per)).cpuMs;
    const mixed = await run(load, [mode, 'http'], 2 * per);
    paired.mcp.push(...mixed.times[mode]);
    paired.http.push(...mixed.times.http);
  }
  const prof = await profile.stop();
  if (prof.file) console.log(`profile: ${prof.file}`);
  const total = per * ROUNDS;
  return { paired, mCpu: cpu[mode] / total, hCpu: cpu.http / total, calls: 100 + 2 * total };
}

async function roundTrip(mode: McpMode): Promise<void> {
  const load = await startMcpLoad();
  const leanBefore = await gauge('hitl_relay_mcp_lean_calls');
  const { paired, mCpu, hCpu, calls } = await measure(load, mode);
  const lean = (await gauge('hitl_relay_mcp_lean_calls')) - leanBefore;
  await load.stop();
  // The progress-mode calls end with the generator (their asks withdrawn): done before what follows.
  await until('open calls ended', async () => (await gauge('hitl_relay_mcp_waiting_calls')) === 0);
  console.log(`${MODE_NAME[mode]}: lean path ${lean} of ${calls} MCP calls (MCP_LEAN=0: none)`);
  const p = (xs: number[], q: number) => percentile(xs, q);
  const [m99, h99] = [p(paired.mcp, 99), p(paired.http, 99)];
  console.log(
    `${paired.mcp.length} asks per side at ${CONCURRENCY} clients, interleaved: MCP p50 ${fmt(p(paired.mcp, 50))} ms, p99 ${fmt(m99)} ms; POST /v1/asks p50 ${fmt(p(paired.http, 50))} ms, p99 ${fmt(h99)} ms; CPU per ask (one front at a time) MCP ${fmt(mCpu)} ms, POST /v1/asks ${fmt(hCpu)} ms`,
  );
  console.log(
    `MCP adds ${fmt(m99 - h99)} ms at p99 (goal ≤ 1 ms) and ${fmt((mCpu / hCpu - 1) * 100, 1)} % CPU per ask (goal ≤ 10 %)`,
  );
  figures.push(
    {
      bench: 'mcp',
      figure: `${MODE_NAME[mode]}, p99`,
      value: m99,
      unit: 'ms',
      baseline: h99,
      goal: '≤ baseline + 1 ms',
      met: m99 - h99 <= 1,
    },
    {
      bench: 'mcp',
      figure: `${MODE_NAME[mode]}, CPU per ask`,
      value: mCpu,
      unit: 'ms',
      baseline: hCpu,
      goal: '≤ 1.10x',
      met: mCpu <= hCpu * 1.1,
    },
  );
}

/** A gauge of the relay's /metrics. */
async function gauge(name: string): Promise<number> {
  const text = await (await request(`${base}/metrics`, { dispatcher })).body.text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return Number(line?.split(' ')[1] ?? Number.NaN);
}

const until = async (what: string, check: () => Promise<boolean>, ms = 300_000) => {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

/** One progress-mode call held open; resolves `posted` once its card is reported posted. */
function openWait(i: number, posted: Set<number>) {
  const call = toolCall(i, false, true);
  return request(`${base}/mcp`, {
    method: 'POST',
    headers: call.headers,
    body: call.body,
    dispatcher,
  })
    .then(async (res) => {
      for await (const chunk of res.body) if (String(chunk).includes('posted to ')) posted.add(i);
    })
    .catch(() => undefined);
}

async function openWaits(): Promise<void> {
  const posted = new Set<number>();
  const t0 = performance.now();
  const calls: Promise<void>[] = [];
  for (let i = 0; i < WAITS; i++) {
    calls.push(openWait(ASKS + i, posted));
    // In batches, so the listen backlog never overflows.
    if (calls.length % 100 === 0)
      await until('a batch posted', async () => posted.size >= calls.length - 20);
  }
  await until('every card posted', async () => posted.size === WAITS);
  await until('the gauge', async () => (await gauge('hitl_relay_mcp_waiting_calls')) === WAITS);
  const openMs = performance.now() - t0;
  const before = await gauge('hitl_relay_mcp_wait_reads');
  const mem = process.memoryUsage().rss;
  // Nothing changes for these asks: an idle window, then a change elsewhere (another ask).
  await new Promise((r) => setTimeout(r, 5000));
  await httpAsk(999_999);
  await new Promise((r) => setTimeout(r, 1000));
  const reads = (await gauge('hitl_relay_mcp_wait_reads')) - before;
  console.log(
    `${WAITS} open MCP waits (progress mode) in ${fmt(openMs / 1000, 1)} s, every card posted; store reads by their waits over 6 s idle and a change elsewhere: ${reads} (reads before, while posting: ${before}); RSS ${fmt(mem / 2 ** 20, 0)} MiB`,
  );
  figures.push({
    bench: 'mcp',
    figure: `store reads of ${WAITS} idle open waits`,
    value: reads,
    unit: 'reads',
    baseline: null,
    goal: '0',
    met: reads === 0,
  });
  held.push(...calls);
}

/** The open calls of (b): they end when the relay stops (which leaves their asks open). */
const held: Promise<void>[] = [];

console.log(`bench mcp on ${machine()}`);
try {
  if (wants(args, 'roundtrip')) await roundTrip('mcp');
  if (wants(args, 'progress')) await roundTrip('progress');
  if (wants(args, 'waits')) await openWaits();
  report(figures);
} catch (err) {
  for (const w of relay.warnings.slice(0, 5)) console.error(w);
  throw err;
} finally {
  // Stopping the relay ends the open calls without withdrawing their asks.
  await relay.stop();
  await Promise.all(held);
  await dispatcher.close();
}
