/**
 * A killed replica's poll leases are taken over after LEASE_SECONDS, not before (issue 18), read
 * with a clock the test moves: the dead replica's lease is what leaseDue leaves behind when the
 * process dies before giving it back; the live replica's watcher passes are run by the test.
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
import { type SpecDouble, startSpecDouble } from '../fakes/spec-double.ts';

const LEASE_SECONDS = 7;
let clock = Date.now();
let double: SpecDouble;
let relay: Relay;
const dataDir = mkdtempSync(join(tmpdir(), 'hitl-lease-'));

beforeAll(async () => {
  double = await startSpecDouble();
  relay = createRelay({
    config: readConfig({
      PORT: '0',
      DATA_DIR: dataDir,
      DEMO: '0',
      POLL_INTERVAL_MIN_SECONDS: '1',
      LEASE_SECONDS: String(LEASE_SECONDS),
    }),
    adapters: [createWebAdapter()],
    log: createLogger({ level: 'silent' }),
    now: () => clock,
    // The relay's own loop stays idle; the test runs each pass itself.
    watcher: { tickMs: 2 ** 31 - 1 },
  });
  await relay.start();
});
afterAll(async () => {
  await relay?.stop();
  await double?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

it('a dead replica holds its poll leases for LEASE_SECONDS, then a live one polls the case', async () => {
  const body = double.create();
  delete body.hitl.events_url;
  const { case: c } = await relay.services.intake.ingest({
    target: 'web:lease',
    hitl: parse202Body(body).hitl,
  });
  clock += 2000; // the case is due
  const store = relay.services.store;
  // What a replica killed in the middle of a poll leaves behind.
  expect(
    await store.leaseDue(clock, 10, 'dead-replica', relay.services.config.leaseMs),
  ).toHaveLength(1);
  const live = new Watcher(relay.services);
  const polls = () => double.seen('poll', c.case_id).length;
  const before = polls();

  clock += LEASE_SECONDS * 1000 - 1;
  expect(await live.tick()).toBe(0);
  await live.idle();
  expect(polls()).toBe(before);

  clock += 2;
  expect(await live.tick()).toBe(1);
  await live.idle();
  expect(polls()).toBe(before + 1);
  // Its look gave the lease back: the case is due again on its own schedule, for anyone.
  const after = await store.getCase(c.id);
  expect(after?.next_check_at).toBeGreaterThan(clock);
});
