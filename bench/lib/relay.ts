/** A real relay for benchmarks: createRelay with the given adapters and store, in a temp dir, quiet logs. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PlatformAdapter } from '../../src/adapter.ts';
import { readConfig } from '../../src/config/config.ts';
import { createLogger } from '../../src/log.ts';
import { createRelay, type Relay } from '../../src/relay.ts';
import type { Store } from '../../src/store/store.ts';
import type { WatcherOptions } from '../../src/watch/watcher.ts';

/** A started relay and how to stop it. */
export interface BenchRelay {
  relay: Relay;
  url: string;
  dataDir: string;
  /** Log lines at warn and above (kept so a benchmark can show why something failed). */
  warnings: string[];
  stop(): Promise<void>;
}

/**
 * Starts a relay. Logs go through the real pino logger at `info` (what production runs) into a
 * sink, so the benchmark pays for logging but does not print it.
 */
export async function startBenchRelay(o: {
  adapters: PlatformAdapter[];
  store?: (dataDir: string) => Store | Promise<Store>;
  env?: Record<string, string>;
  watcher?: WatcherOptions;
}): Promise<BenchRelay> {
  const dataDir = mkdtempSync(join(tmpdir(), 'hitl-bench-'));
  const config = readConfig({
    PORT: '0',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    DEMO: '0',
    // Benchmarks measure the relay, not the per-API-key intake limit (600/min by default).
    INTAKE_RATE_LIMIT_PER_MINUTE: '0',
    ...o.env,
  });
  const warnings: string[] = [];
  const log = createLogger({
    level: 'info',
    destination: {
      write(line) {
        if (/"level":(40|50|60)/.test(line) && warnings.length < 1000) warnings.push(line);
      },
    },
  });
  const store = o.store ? await o.store(dataDir) : undefined;
  const relay = createRelay({
    config,
    adapters: o.adapters,
    log,
    ...(store ? { store } : {}),
    ...(o.watcher ? { watcher: o.watcher } : {}),
  });
  await relay.start();
  return {
    relay,
    url: relay.url,
    dataDir,
    warnings,
    async stop() {
      await relay.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
