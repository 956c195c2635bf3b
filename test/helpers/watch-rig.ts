/**
 * A relay on SQLite whose own loops stay idle, a counted store, and a Watcher with the real watching
 * hooks that the test drives pass by pass on its own clock (watch tests that count store calls).
 */
import { join } from 'node:path';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { readConfig } from '../../src/config/config.ts';
import { createLogger } from '../../src/log.ts';
import { createRelay, type Relay } from '../../src/relay.ts';
import { openSqliteStore } from '../../src/store/sqlite-store.ts';
import { Watcher, type WatcherOptions } from '../../src/watch/watcher.ts';
import { createWatching } from '../../src/watching.ts';
import { type CountedStore, countStore } from './store-counter.ts';

/** Starts the rig: poll intervals between `minMs` and twice that. */
export async function startWatchRig(o: {
  dataDir: string;
  minMs: number;
  now: () => number;
  /** The driven watcher's options (its loop never runs on its own). */
  watcher?: WatcherOptions;
}): Promise<{ relay: Relay; counted: CountedStore; watcher: Watcher }> {
  const counted = countStore(openSqliteStore(join(o.dataDir, 'relay.sqlite'), o.now));
  const relay = createRelay({
    config: readConfig({
      PORT: '0',
      DATA_DIR: o.dataDir,
      DEMO: '0',
      POLL_INTERVAL_MIN_SECONDS: String(o.minMs / 1000),
      POLL_INTERVAL_MAX_SECONDS: String((2 * o.minMs) / 1000),
    }),
    adapters: [createWebAdapter()],
    store: counted.store,
    log: createLogger({ level: 'silent' }),
    now: o.now,
    watcher: { tickMs: 2 ** 31 - 1 },
    reconcileEveryMs: 2 ** 31 - 1,
  });
  await relay.start();
  const watcher = new Watcher(relay.services, o.watcher, createWatching(relay.services).hooks);
  return { relay, counted, watcher };
}
