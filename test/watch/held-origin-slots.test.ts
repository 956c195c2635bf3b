/**
 * Held looks are read back only when they can start: with one service's slots full, its due holds
 * keep their place in memory and are not read from the store pass after pass (at 100k open cases
 * on one service, reading every due hold and starting a few read each row about four times over).
 * Against the spec double over real HTTP; a real relay on SQLite; the clock is the test's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parse202Body } from '../../src/protocol/hitl.ts';
import type { Relay } from '../../src/relay.ts';
import type { Watcher } from '../../src/watch/watcher.ts';
import { type SpecDouble, startSpecDouble } from '../fakes/spec-double.ts';
import type { CountedStore } from '../helpers/store-counter.ts';
import { startWatchRig } from '../helpers/watch-rig.ts';

const MIN_MS = 60_000;
const PER_ORIGIN = 2;
let clock = Date.now();
let double: SpecDouble;
let relay: Relay;
let counted: CountedStore;
let watcher: Watcher;
const dataDir = mkdtempSync(join(tmpdir(), 'hitl-held-slots-'));

beforeAll(async () => {
  double = await startSpecDouble();
  ({ relay, counted, watcher } = await startWatchRig({
    dataDir,
    minMs: MIN_MS,
    now: () => clock,
    watcher: { perOrigin: PER_ORIGIN },
  }));
});
afterAll(async () => {
  await relay?.stop();
  await double?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** Moves the clock by `ms`, then runs passes (each until its polls end) until one starts nothing. */
async function passes(ms: number): Promise<number[]> {
  clock += ms;
  const started: number[] = [];
  for (;;) {
    const n = await watcher.tick();
    await watcher.idle();
    if (!n) return started;
    started.push(n);
  }
}

it("a full origin's due holds are read back only as its slots free, each once", async () => {
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) {
    const body = double.create({ events: false, expiresInMs: 48 * 3_600_000 });
    const r = await relay.services.intake.ingest({
      target: 'web:slots',
      hitl: parse202Body(body).hitl,
    });
    ids.push(r.case.case_id);
  }
  expect(await passes(MIN_MS)).toEqual([2, 2, 1]); // 200s: written back
  expect(await passes(2 * MIN_MS)).toEqual([2, 2, 1]); // 304s: held here
  counted.reset();
  const polls = ids.map((id) => double.seen('poll', id).length);

  expect(await passes(2 * MIN_MS)).toEqual([2, 2, 1]);
  const reads = counted.calls.filter((c) => c.method === 'heldCases').map((c) => c.items);
  expect(reads).toEqual([2, 2, 1]);
  expect(ids.map((id) => double.seen('poll', id).length)).toEqual(polls.map((n) => n + 1));
});
