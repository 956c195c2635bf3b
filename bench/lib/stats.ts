/** Percentiles, CPU/RSS sampling and the one-line result format every benchmark prints. */
import { cpus, loadavg } from 'node:os';

/** The p-th percentile (0-100) of `values` (nearest rank); NaN when empty. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

/** p50, p99 and max of a sample. */
export function summary(values: readonly number[]): { p50: number; p99: number; max: number } {
  return {
    p50: percentile(values, 50),
    p99: percentile(values, 99),
    max: values.reduce((m, v) => Math.max(m, v), Number.NEGATIVE_INFINITY),
  };
}

/** Rounds for printing: 3 significant-ish digits. */
export function fmt(n: number, digits = 2): string {
  if (!Number.isFinite(n) || Number.isInteger(n)) return String(n);
  return n.toFixed(Math.abs(n) >= 100 ? 0 : digits);
}

/** One figure of a benchmark, as the results table wants it. */
export interface Figure {
  bench: string;
  figure: string;
  value: number;
  unit: string;
  baseline: number | null;
  goal: string;
  /** Whether the goal is met (null when the figure has no goal of its own). */
  met: boolean | null;
}

/** The ratio value / baseline, or null. */
export function ratio(f: Figure): number | null {
  return f.baseline ? f.value / f.baseline : null;
}

/** Prints figures as an aligned table plus one machine-readable JSON line each (prefix "RESULT "). */
export function report(figures: Figure[]): void {
  const rows = figures.map((f) => {
    const r = ratio(f);
    return [
      f.figure,
      `${fmt(f.value)} ${f.unit}`,
      f.baseline === null ? '-' : `${fmt(f.baseline)} ${f.unit}`,
      r === null ? '-' : `${fmt(r)}x`,
      f.goal || '-',
      f.met === null ? '' : f.met ? 'met' : 'NOT MET',
    ];
  });
  const head = ['figure', 'hitl-relay', 'baseline', 'ratio', 'goal', ''];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
  console.log(line(head));
  for (const r of rows) console.log(line(r));
  for (const f of figures) console.log(`RESULT ${JSON.stringify({ ...f, ratio: ratio(f) })}`);
}

/** The machine line for docs/BENCHMARKS.md, with the load average (other work skews absolute figures). */
export function machine(): string {
  const load = loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');
  return `${cpus().length} cores (${cpus()[0]?.model.trim() ?? 'unknown'}), Node ${process.versions.node}, load ${load}`;
}

/** What the process's memory was made of when its RSS peaked (bytes). */
export interface PeakMemory {
  rss: number;
  /** V8's heap (reserved pages, live and garbage), and what it held in use. */
  heapTotal: number;
  heapUsed: number;
  /** Memory V8 objects own outside the heap (buffers, SQLite's are not counted here). */
  external: number;
}

/** CPU time and peak RSS of this process over a stretch of wall time. */
export class ResourceMeter {
  private readonly startCpu = process.cpuUsage();
  private readonly startWall = performance.now();
  private peak: PeakMemory = process.memoryUsage();
  private readonly timer: NodeJS.Timeout;

  constructor(sampleMs = 250) {
    this.timer = setInterval(() => this.sample(), sampleMs);
    this.timer.unref();
  }

  private sample(): void {
    const m = process.memoryUsage();
    if (m.rss > this.peak.rss) this.peak = m;
  }

  /** Stops sampling: CPU share of one core (0-1+), wall seconds, peak RSS bytes and its make-up. */
  stop(): {
    cpuShare: number;
    cpuSeconds: number;
    wallSeconds: number;
    peakRss: number;
    peakMemory: PeakMemory;
  } {
    clearInterval(this.timer);
    this.sample();
    const cpu = process.cpuUsage(this.startCpu);
    const cpuSeconds = (cpu.user + cpu.system) / 1e6;
    const wallSeconds = (performance.now() - this.startWall) / 1000;
    const { rss, heapTotal, heapUsed, external } = this.peak;
    return {
      cpuShare: cpuSeconds / wallSeconds,
      cpuSeconds,
      wallSeconds,
      peakRss: rss,
      peakMemory: { rss, heapTotal, heapUsed, external },
    };
  }
}
