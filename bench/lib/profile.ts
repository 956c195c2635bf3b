/**
 * CPU profile of the measured phase only (`--profile=<dir>`), with the same V8 profiler as
 * `node --cpu-prof`, so set-up work does not hide what the benchmark itself spends. Summarise the
 * file with `tsx bench/profile-top.ts <file>`. Also counts GC pauses over the phase.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';

/** A running phase profile; `stop` writes `<dir>/<name>.cpuprofile` when a directory was given. */
export interface PhaseProfile {
  stop(): Promise<{ gcCount: number; gcMs: number; gcMaxMs: number; file: string | null }>;
}

/** Starts profiling (when `dir` is set) and GC accounting. */
export async function startPhaseProfile(dir: string | null, name: string): Promise<PhaseProfile> {
  const gc = { count: 0, ms: 0, max: 0 };
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      gc.count++;
      gc.ms += e.duration;
      gc.max = Math.max(gc.max, e.duration);
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  let session: Session | null = null;
  if (dir) {
    session = new Session();
    session.connect();
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
        session.disconnect();
      }
      return { gcCount: gc.count, gcMs: gc.ms, gcMaxMs: gc.max, file };
    },
  };
}
