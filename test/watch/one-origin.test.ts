/**
 * One service with many due cases (the usual deployment: one agent's service, thousands of open
 * reviews). The per-origin cap keeps a hanging service from taking every poll slot, but it must not
 * throttle a healthy one: a pass leases only what can start now and leaves the rest due and
 * unleased, so the next free slot takes the next case at once. Before, a pass leased up to the
 * free total, started the origin's 16, and pushed the others back by 0.5-1.5 poll intervals: a
 * single service was polled at 64/s whatever its size (bench:watch, 100k cases: lag p99 56 s).
 * The clock is the test's; the relay's own loop stays idle.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { readConfig } from '../../src/config/config.ts';
import { createLogger } from '../../src/log.ts';
import { parse202Body } from '../../src/protocol/hitl.ts';
import { createRelay, type Relay } from '../../src/relay.ts';
import { Watcher } from '../../src/watch/watcher.ts';
import { type DemoHandle, startDemo } from '../helpers/relay-env.ts';

const CASES = 40;
const PER_ORIGIN = 4;
let clock = Date.now();
let demo: DemoHandle;
let relay: Relay;
const dataDir = mkdtempSync(join(tmpdir(), 'hitl-one-origin-'));

beforeAll(async () => {
  demo = await startDemo();
  relay = createRelay({
    config: readConfig({ PORT: '0', DATA_DIR: dataDir, DEMO: '0' }),
    adapters: [createWebAdapter()],
    log: createLogger({ level: 'silent' }),
    now: () => clock,
    watcher: { tickMs: 2 ** 31 - 1 },
  });
  await relay.start();
  for (let i = 0; i < CASES; i++) {
    const body = await demo.create('approval', false);
    delete body.hitl.events_url;
    await relay.services.intake.ingest({ target: 'web:one', hitl: parse202Body(body).hitl });
  }
});
afterAll(async () => {
  await relay?.stop();
  await demo?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

it('a pass starts one origin only as many polls as it has slots, and leaves the rest due for the next slot', async () => {
  clock += 3_600_000; // every case is due
  const watcher = new Watcher(relay.services, { perOrigin: PER_ORIGIN, concurrency: 64 });
  expect(await watcher.tick()).toBe(PER_ORIGIN);
  // The others are neither leased nor pushed back: any replica (here a probe) may take them now.
  const left = await relay.services.store.leaseDue(clock, 100, 'probe', 1);
  expect(left).toHaveLength(CASES - PER_ORIGIN);
  for (const c of left) expect(c.next_check_at).toBeLessThanOrEqual(clock);
  await watcher.idle();
  // The probe's 1 ms leases have lapsed: the next pass takes the next four at once.
  clock += 10;
  expect(await watcher.tick()).toBe(PER_ORIGIN);
  await watcher.idle();
});
