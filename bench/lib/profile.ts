/**
 * CPU profile of the measured phase only (`--profile=<dir>`), with the same V8 profiler as
 * `node --cpu-prof`, so set-up work does not hide what the benchmark itself spends. Summarise the
 * file with `tsx bench/profile-top.ts <file>`. Also counts GC pauses over the phase.
 *
 * `--heap-profile=DIR` samples the phase's allocations that outlived the young generation: those
 * still live at the end and those a full GC collected (promoted garbage is what grows the old
 * generation, and the RSS, between full collections). Objects that died young are left out.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';

/**
 * A running phase profile; `stop` writes `<dir>/<name>.cpuprofile` and `<heapDir>/<name>.heapprofile`
 * when those directories were given.
 */
export interface PhaseProfile {
  stop(): Promise<{ gcCount: number; gcMs: number; gcMaxMs: number; file: string | null }>;
}

/** Starts profiling (when `dir` is set) and GC accounting. */
export async function startPhaseProfile(
  dir: string | null,
  name: string,
  heapDir: string | null = null,
): Promise<PhaseProfile> {
  const gc = { count: 0, ms: 0, max: 0 };
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      gc.count++;
      gc.ms += e.duration;
      gc.max = Math.max(gc.max, e.duration);
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  const session = dir || heapDir ? new Session() : null;
  session?.connect();
  if (session && heapDir) {
    // A variable, not a literal: Node's types predate includeObjectsCollectedByMajorGC.
    const sampling = { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true };
    await session.post('HeapProfiler.startSampling', sampling);
  }
  if (session && dir) {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 200 });
    await session.post('Profiler.start');
  }
  return {
    async stop() {
      observer.disconnect();
      let file: string | null = null;
      if (session && dir) {
        const { profile } = await session.post('Profiler.stop');
        mkdirSync(dir, { recursive: true });
        file = join(dir, `${name}.cpuprofile`);
        writeFileSync(file, JSON.stringify(profile));
      }
      if (session && heapDir) {
        const { profile } = await session.post('HeapProfiler.stopSampling');
        mkdirSync(heapDir, { recursive: true });
        writeFileSync(join(heapDir, `${name}.heapprofile`), JSON.stringify(profile));
      }
      session?.disconnect();
      return { gcCount: gc.count, gcMs: gc.ms, gcMaxMs: gc.max, file };
    },
  };
}
