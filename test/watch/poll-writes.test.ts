/**
 * What a poll costs the store (issue 22, watching 100k open cases): a lease holds a case for ten
 * minimum intervals, and a poll answered 304 within it reads nothing more and writes nothing (its
 * next look stays in the watcher); a look past the hold writes the watch row with the writes of the
 * polls that end with it (Store.updateWatchMany); a case that changed after it was leased is
 * scheduled from a fresh read, never from the stale copy. A real relay on SQLite, the demo service over
 * real HTTP (304 to If-None-Match), the real watching hooks; the clock is the test's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parse202Body } from '../../src/protocol/hitl.ts';
import type { Relay } from '../../src/relay.ts';
import { WatchWrites } from '../../src/watch/watch-writes.ts';
import type { Watcher } from '../../src/watch/watcher.ts';
import { type DemoHandle, startDemo } from '../helpers/relay-env.ts';
import type { CountedStore } from '../helpers/store-counter.ts';
import { startWatchRig } from '../helpers/watch-rig.ts';

const MIN_MS = 600_000;
const HOUR = 3_600_000;
let clock = Date.now();
let demo: DemoHandle;
let relay: Relay;
let counted: CountedStore;
let watcher: Watcher;
const dataDir = mkdtempSync(join(tmpdir(), 'hitl-poll-writes-'));

beforeAll(async () => {
  demo = await startDemo();
  ({ relay, counted, watcher } = await startWatchRig({ dataDir, minMs: MIN_MS, now: () => clock }));
});
afterAll(async () => {
  await relay?.stop();
  await demo?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function ingest(target: string, hitl?: Record<string, unknown>): Promise<string> {
  const body = await demo.create('approval', false);
  delete body.hitl.events_url;
  Object.assign(body.hitl, hitl);
  const r = await relay.services.intake.ingest({ target, hitl: parse202Body(body).hitl });
  return r.case.id;
}

/** The store methods called since the last reset, each once, sorted. */
const methods = () => [...new Set(counted.calls.map((c) => c.method))].sort();

/** One pass of the watcher at `clock`, until every poll it started has finished. */
async function pass(): Promise<number> {
  const n = await watcher.tick();
  await watcher.idle();
  return n;
}

it('a 304 within the hold writes nothing: the next look stays here; one past the hold writes the row and gives the case back', async () => {
  const store = relay.services.store;
  const ids = await Promise.all(Array.from({ length: 10 }, () => ingest('web:quiet')));
  clock += HOUR;
  expect(await pass()).toBe(10); // first look: 200 with the ETag, written (the lease goes)
  clock += HOUR;
  const leasedAt = clock;
  const until = leasedAt + 10 * MIN_MS; // the hold: ten minimum intervals
  counted.reset();
  expect(await pass()).toBe(10); // every answer a 304
  expect(methods()).toEqual(['leaseDue']);
  for (const id of ids) {
    const c = (await store.getCase(id))!;
    expect(c.etag).toBeTruthy();
    expect(c.next_check_at).toBe(until); // a holder that dies leaves the case due then
  }
  expect(await store.leaseDue(clock, 100, 'probe', 1)).toEqual([]); // held: nobody else polls
  // Next look due (within the hold): read back only if still held, and again nothing written.
  clock += HOUR;
  counted.reset();
  const polls: string[] = [];
  const onPoll = (kind: string) => polls.push(kind);
  relay.services.cases.events.on('poll', onPoll);
  expect(await pass()).toBe(10);
  expect(methods()).toEqual(['heldCases', 'leaseDue']);
  expect(polls).toEqual(Array(10).fill('not_modified'));
  // Another writer's watch write (a tap, a reminder) ends that case's hold: it is polled once, as
  // the store's due case, not also from the hold.
  const [tapped] = ids;
  const { etag } = (await store.getCase(tapped!))!;
  await store.updateWatch(tapped!, { next_check_at: clock, etag, poll_failures: 0 });
  clock = until - MIN_MS / 2; // the last looks of the hold: the next falls past it
  counted.reset();
  polls.length = 0;
  expect(await pass()).toBe(10);
  relay.services.cases.events.off('poll', onPoll);
  expect(polls).toHaveLength(10);
  expect(methods()).toEqual(['heldCases', 'leaseDue', 'updateWatchMany']);
  // The tapped case was leased anew, so it is held for a new hold.
  expect((await store.getCase(tapped!))!.next_check_at).toBe(clock + 10 * MIN_MS);
  const rest = ids.filter((id) => id !== tapped);
  for (const id of rest) {
    const c = (await store.getCase(id))!;
    expect(c.next_check_at).toBeGreaterThanOrEqual(clock + MIN_MS);
    expect(c.next_check_at).toBeLessThanOrEqual(clock + MIN_MS * 1.2);
  }
  // Given back, nothing due until the next interval: the probe finds nothing now and every case
  // once the interval has passed.
  expect(await store.leaseDue(clock, 100, 'probe', 1)).toEqual([]);
  const later = await store.leaseDue(clock + 2 * MIN_MS, 100, 'probe', 1);
  expect(later.map((c) => c.id).sort()).toEqual([...rest].sort());
});

it('a case changed after its lease (here: a reminder sent by the look itself) is scheduled from a fresh read', async () => {
  const iso = (t: number) => new Date(t).toISOString();
  const first = clock + 1.5 * HOUR;
  const id = await ingest('web:remind', { reminder_at: [iso(first), iso(clock + 5 * HOUR)] });
  clock += HOUR;
  await pass(); // first look (200)
  clock += HOUR; // the first reminder is due; the poll answers 304
  const before = (await relay.services.store.getCase(id))!;
  expect(before.doc.reminders_sent).toEqual([]);
  await pass();
  const after = (await relay.services.store.getCase(id))!;
  expect(after.doc.reminders_sent).toEqual([iso(first)]);
  // From the leased copy the sent reminder would still look due (next look: now); from the fresh
  // read the next look is the usual interval (the second reminder is later still).
  expect(after.next_check_at).toBeGreaterThanOrEqual(clock + MIN_MS);
  expect(await relay.services.store.leaseDue(clock, 100, 'probe', 1)).toEqual([]);
});

it('writes the watch rows of one turn in one store call, a second write of a case after the first', async () => {
  const store = relay.services.store;
  const ids = [await ingest('web:batch'), await ingest('web:batch')];
  const many: number[] = [];
  const writes = new WatchWrites({
    updateWatchMany: (ws) => {
      many.push(ws.length);
      return store.updateWatchMany(ws);
    },
  });
  const w = (id: string, next: number, version?: number) =>
    writes.write({
      id,
      next_check_at: next,
      etag: '"x"',
      poll_failures: 0,
      ...(version === undefined ? {} : { version }),
    });
  const landed = await Promise.all([
    w(ids[0]!, 1_000),
    w(ids[1]!, 2_000, 99), // not at version 99: does not land
    w(ids[0]!, 3_000), // the same case again: in the next batch, so it lands last
  ]);
  expect(landed).toEqual([true, false, true]);
  expect(many).toEqual([2, 1]);
  expect((await store.getCase(ids[0]!))!.next_check_at).toBe(3_000);
  expect((await store.getCase(ids[1]!))!.next_check_at).not.toBe(2_000);
  const failing = new WatchWrites({
    updateWatchMany: async () => {
      throw new Error('disk full');
    },
  });
  await expect(
    failing.write({ id: 'x', next_check_at: 1, etag: null, poll_failures: 0 }),
  ).rejects.toThrow('disk full');
});
