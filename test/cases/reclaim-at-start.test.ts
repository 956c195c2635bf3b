/**
 * Issue 18: a relay that starts gives back the poll leases of a process that is gone, so its cases
 * are polled within one minimum poll interval (spread, like every open case at start) rather than
 * after LEASE_SECONDS. A first relay takes the case in; what a killed
 * replica leaves behind (a 10-minute poll lease, no liveness key) is written into the same store;
 * a second relay started on that store on the test's clock polls the case in its first pass.
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

let clock = Date.now();
let double: SpecDouble;
const relays: Relay[] = [];
const lines: string[] = [];
const dataDir = mkdtempSync(join(tmpdir(), 'hitl-reclaim-start-'));

function relay(): Relay {
  const r = createRelay({
    config: readConfig({
      PORT: '0',
      DATA_DIR: dataDir,
      DEMO: '0',
      POLL_INTERVAL_MIN_SECONDS: '1',
      LEASE_SECONDS: '600',
    }),
    adapters: [createWebAdapter()],
    log: createLogger({
      level: 'info',
      format: 'json',
      destination: { write: (l) => void lines.push(l) },
    }),
    now: () => clock,
    // The relay's own loop stays idle; the test runs each pass itself.
    watcher: { tickMs: 2 ** 31 - 1 },
  });
  relays.push(r);
  return r;
}

beforeAll(async () => {
  double = await startSpecDouble();
});
afterAll(async () => {
  for (const r of relays) await r.stop();
  await double?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

it("a dead replica's poll lease is given back at start: the case is polled within one poll interval", async () => {
  const first = relay();
  await first.start();
  const body = double.create();
  delete body.hitl.events_url;
  const { case: c } = await first.services.intake.ingest({
    target: 'web:reclaim',
    hitl: parse202Body(body).hitl,
  });
  clock += 2000; // the case is due
  // What a replica killed in the middle of a poll leaves behind: its lease, and no liveness key.
  const leased = await first.services.store.leaseDue(clock, 10, 'dead-replica', 600_000);
  expect(leased.map((x) => x.id)).toEqual([c.id]);
  await first.stop();

  const second = relay();
  await second.start();
  const line = lines
    .map((l) => JSON.parse(l))
    .find((l) => l.pollOwners !== undefined && l.poll > 0);
  expect(line).toMatchObject({ poll: 1, pollOwners: 1 });
  const polls = () => double.seen('poll', c.case_id).length;
  const before = polls();
  const live = new Watcher(second.services);
  clock += 1000; // POLL_INTERVAL_MIN_SECONDS, not LEASE_SECONDS
  expect(await live.tick()).toBe(1);
  await live.idle();
  expect(polls()).toBe(before + 1);
});
