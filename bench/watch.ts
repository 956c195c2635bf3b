/**
 * Benchmark 3, watching at scale: N open cases polled every interval against a fast fake service
 * that answers 304 to If-None-Match. The relay side runs the real Watcher (src/watch/watcher.ts)
 * over cases inserted through the Store; the baseline is a bare undici loop issuing the same
 * conditional GETs on the same schedule. Each side and the service run in their own process
 * (bench/lib/watch-side.ts, bench/lib/fakes-host.ts), so CPU share and RSS are the side's own.
 * Lag is how late each poll arrived at the service after its due time (next_check_at).
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { benchArgs, wants } from './lib/args.ts';
import { startFakesHost } from './lib/fakes-host.ts';
import { type Figure, fmt, machine, report, summary } from './lib/stats.ts';
import type { SideReport, SideTask } from './lib/watch-side.ts';

const args = benchArgs();
const runs = args.full
  ? [
      { cases: 10_000, intervalMs: 30_000 },
      { cases: 100_000, intervalMs: 30_000 },
    ]
  : [{ cases: 10_000, intervalMs: 10_000 }];
/** `--cycles=N`: how often each case is looked at; full runs: the first cycle after start, then two of the steady state. */
const CYCLES = Number(
  /^--cycles=(\d+)$/.exec(process.argv.find((a) => a.startsWith('--cycles=')) ?? '')?.[1] ??
    (args.full ? 3 : 2),
);
/** `--tick-ms=N`: run the relay with a shorter Watcher tick than its default (an experiment). */
const tickMs = Number(
  /^--tick-ms=(\d+)$/.exec(process.argv.find((a) => a.startsWith('--tick-ms=')) ?? '')?.[1] ?? 0,
);
const MB = 1024 * 1024;

function runSide(task: SideTask): Promise<SideReport> {
  // gc() is called once, at the end, to read the heap that watching holds (heapUsed).
  const execArgv = ['--import', 'tsx', '--expose-gc'];
  const child = fork(fileURLToPath(new URL('./lib/watch-side.ts', import.meta.url)), ['--child'], {
    execArgv,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  child.send(task);
  return new Promise((resolve, reject) => {
    child.once('message', (m) => resolve(m as SideReport));
    child.once(
      'exit',
      (code) => code && reject(new Error(`${task.side} side exited with ${code}`)),
    );
  });
}

/** Pairs the k-th due time of each case with the k-th arrival of its poll at the service. */
function lags(scheduled: Array<[string, number]>, arrivals: Array<[string, number]>) {
  const arrived = new Map<string, number[]>();
  for (const [id, t] of arrivals) {
    const list = arrived.get(id);
    if (list) list.push(t);
    else arrived.set(id, [t]);
  }
  const seen = new Map<string, number>();
  const out: number[] = [];
  let unmatched = 0;
  for (const [id, due] of scheduled) {
    const k = seen.get(id) ?? 0;
    seen.set(id, k + 1);
    const t = arrived.get(id)?.[k];
    if (t === undefined) unmatched++;
    else out.push(t - due);
  }
  return { lags: out, unmatched };
}

const figures: Figure[] = [];
for (const { cases, intervalMs } of runs) {
  if (!wants(args, `${cases / 1000}k`)) continue;
  const fakes = await startFakesHost({ telegram: false, recordPolls: true });
  const task = (side: SideTask['side']): SideTask => ({
    side,
    cases,
    intervalMs,
    durationMs: CYCLES * intervalMs + 1000,
    serviceUrl: fakes.serviceUrl,
    secret: fakes.secret,
    ...(args.profile ? { profileDir: args.profile } : {}),
    ...(args.heapProfile ? { heapProfileDir: args.heapProfile } : {}),
    ...(tickMs ? { tickMs } : {}),
  });
  const results: Record<
    string,
    { rep: SideReport; lag: ReturnType<typeof summary>; polls: number; unmatched: number }
  > = {};
  for (const side of ['baseline', 'relay'] as const) {
    await fakes.ask({ cmd: 'polls' }); // clears
    const rep = await runSide(task(side));
    const arrivals = await fakes.ask<Array<[string, number]>>({ cmd: 'polls' });
    const l = lags(rep.scheduled, arrivals);
    results[side] = { rep, lag: summary(l.lags), polls: l.lags.length, unmatched: l.unmatched };
    console.log(
      `${side}: ${cases} cases every ${intervalMs / 1000} s, ${l.lags.length} polls in ${fmt(rep.wallSeconds)} s ` +
        `(${fmt(l.lags.length / rep.wallSeconds)}/s), lag p50 ${fmt(results[side]!.lag.p50)} ms p99 ${fmt(results[side]!.lag.p99)} ms ` +
        `max ${fmt(results[side]!.lag.max)} ms, overdue at end ${rep.overdue}, CPU ${fmt(rep.cpuShare * 100)}% of a core, ` +
        `RSS idle ${fmt(rep.rssIdle / MB)} MB peak ${fmt(rep.peakRss / MB)} MB ` +
        `(V8 heap ${fmt(rep.peakMemory.heapTotal / MB)} MB, ${fmt(rep.peakMemory.heapUsed / MB)} MB in use; ` +
        `external ${fmt(rep.peakMemory.external / MB)} MB)` +
        (rep.leaseLag
          ? `; of the lag, the watcher (due -> look started) p50 ${fmt(rep.leaseLag.p50)} ms p99 ${fmt(rep.leaseLag.p99)} ms; set-up (insert) ${fmt(rep.setupSeconds)} s`
          : ''),
    );
  }
  await fakes.stop();
  const rel = results.relay!;
  const bas = results.baseline!;
  const label = `${cases / 1000}k open cases / ${intervalMs / 1000} s`;
  const is100k = cases >= 100_000;
  figures.push(
    {
      bench: 'watch',
      figure: `${label}: lag p50`,
      value: rel.lag.p50,
      unit: 'ms',
      baseline: bas.lag.p50,
      goal: '',
      met: null,
    },
    {
      bench: 'watch',
      figure: `${label}: lag p99`,
      value: rel.lag.p99,
      unit: 'ms',
      baseline: bas.lag.p99,
      goal: is100k ? '< 500 ms' : '< 1000 ms',
      met: rel.lag.p99 < (is100k ? 500 : 1000) && rel.rep.overdue === 0,
    },
    {
      bench: 'watch',
      figure: `${label}: polls per second`,
      value: rel.polls / rel.rep.wallSeconds,
      unit: '/s',
      baseline: bas.polls / bas.rep.wallSeconds,
      goal: `${fmt(cases / (intervalMs / 1000))}/s due`,
      met: null,
    },
    {
      bench: 'watch',
      figure: `${label}: CPU share`,
      value: rel.rep.cpuShare * 100,
      unit: '% core',
      baseline: bas.rep.cpuShare * 100,
      goal: '',
      met: null,
    },
    {
      bench: 'watch',
      figure: `${label}: CPU share after the first cycle`,
      value: rel.rep.steadyCpuShare * 100,
      unit: '% core',
      baseline: bas.rep.steadyCpuShare * 100,
      goal: is100k ? '<= 1.5x' : '',
      met: is100k ? rel.rep.steadyCpuShare <= 1.5 * bas.rep.steadyCpuShare : null,
    },
    {
      bench: 'watch',
      figure: `${label}: peak RSS`,
      value: rel.rep.peakRss / MB,
      unit: 'MB',
      baseline: bas.rep.peakRss / MB,
      goal: is100k ? '< 300 MB' : '',
      met: is100k ? rel.rep.peakRss < 300 * MB : null,
    },
    {
      bench: 'watch',
      figure: `${label}: JS heap in use after a full GC at the end`,
      value: rel.rep.heapUsed / MB,
      unit: 'MB',
      baseline: bas.rep.heapUsed / MB,
      goal: '',
      met: null,
    },
    {
      bench: 'watch',
      figure: `${label}: bytes per open case`,
      value: (rel.rep.peakRss - rel.rep.rssIdle) / cases,
      unit: 'B',
      baseline: (bas.rep.peakRss - bas.rep.rssIdle) / cases,
      goal: '',
      met: null,
    },
  );
}
console.log(`\nwatching at scale, ${CYCLES} cycles each; ${machine()}`);
report(figures);
