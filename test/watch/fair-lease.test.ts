/**
 * Fair watching end to end (issue 32 item 3): 100 origins whose polls hang, 16 cases each, must not
 * delay another service beyond one poll interval. Measured on the 100-origin attack: a look of the
 * answering service came up to 6.7 s late, and the passes' counters showed why. Its case, once its
 * hold ended, was due behind the 1,600 overdue cases of origins the pool had not seen yet; a pass
 * leased those first, could start none (the hanging origins' lane was full), put them back one
 * write each and stopped, having learned one origin: the answering case waited about one pass per
 * hanging origin. Now a pass goes on past the origins it has just learned to skip, and puts a
 * round back in one write. Driven pass by pass on the test's clock; the hanging services are real.
 *
 * Poll durations (what marks an origin slow) are timed on the test's clock too: on the real one,
 * a loaded machine made the answering service's own first poll take over slowPollMs (2 s) now and
 * then, marking it slow, and the last pass then rightly left it in the full lane (17 of 20 runs
 * under load passed). The hanging origins are limited for what this test is about: none of their
 * polls has ever ended.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parse202Body } from '../../src/protocol/hitl.ts';
import type { Relay } from '../../src/relay.ts';
import type { Watcher } from '../../src/watch/watcher.ts';
import type { CountedStore } from '../helpers/store-counter.ts';
import { startWatchRig } from '../helpers/watch-rig.ts';
import { type HostileService, startHostileService } from '../reliability/hostile-service.ts';

const ORIGINS = 100;
const CASES_PER_ORIGIN = 16;
const POLL_MS = 2000;
let clock = Date.now();
let relay: Relay;
let counted: CountedStore;
let watcher: Watcher;
let good: HostileService;
const hanging: HostileService[] = [];
const held: ServerResponse[] = [];
const looks: string[] = [];
const dataDir = mkdtempSync(join(tmpdir(), 'hitl-fair-lease-'));

beforeAll(async () => {
  good = await startHostileService(); // answers every poll at once: "pending"
  for (let i = 0; i < ORIGINS; i++) {
    const svc = await startHostileService();
    svc.handle((req, res) => {
      if (!req.url?.includes('/status')) return false;
      held.push(res); // never answered: the poll hangs
      return true;
    });
    hanging.push(svc);
  }
  ({ relay, counted, watcher } = await startWatchRig({
    dataDir,
    minMs: POLL_MS,
    now: () => clock,
    watcher: { onLook: (c) => void looks.push(c.id), monotonicNow: () => clock },
  }));
});
afterAll(async () => {
  for (const r of held) r.destroy();
  await relay?.stop();
  await Promise.all([good, ...hanging].map((s) => s?.close()));
  rmSync(dataDir, { recursive: true, force: true });
});

const ingest = async (svc: HostileService, target: string) =>
  (await relay.services.intake.ingest({ target, hitl: parse202Body(svc.body202()).hitl })).case;

/** Waits (on real time, for real HTTP) until `ok()` holds. */
async function until(ok: () => boolean, what: string) {
  const t0 = Date.now();
  while (!ok()) {
    if (Date.now() - t0 > 30_000) throw new Error(`not within 30 s: ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

it(`FAIR-WATCH-1: with ${ORIGINS} hanging origins × ${CASES_PER_ORIGIN} cases, another service is looked at in its first pass`, async () => {
  const answering = await ingest(good, 'web:fair-good');
  clock += POLL_MS;
  await watcher.tick();
  await watcher.idle();
  expect(looks).toEqual([answering.id]); // its origin is now known to answer

  // The attack: every case overdue before the answering one is due again.
  for (const svc of hanging)
    await Promise.all(Array.from({ length: CASES_PER_ORIGIN }, () => ingest(svc, 'web:fair-hang')));
  clock += POLL_MS;
  await watcher.tick();
  const open = () => held.filter((r) => !r.destroyed && !r.writableEnded).length;
  await until(() => open() >= 48, 'the hanging polls holding the lane');
  expect(open()).toBe(48); // the lane: three quarters of 64
  // Its next look is at least one interval after the first, so this pass did not start one (no
  // poll of it can still be running when the next pass is measured).
  expect(looks.slice(1)).not.toContain(answering.id);

  // The answering case's hold ends (it is due from the store again), behind 1,600 overdue cases
  // of origins that cannot start: the very next pass looks at it.
  clock += 20 * POLL_MS;
  counted.reset();
  looks.length = 0;
  await watcher.tick();
  expect(looks).toEqual([answering.id]);
  // The hanging cases it leased and could not start went back in one write per round.
  const writes = counted.calls.filter((c) => c.method === 'updateWatch').length;
  expect(writes).toBe(0);
  expect(open()).toBe(48);
}, 60_000);
