/**
 * Issue 18: leases reclaimed at start when their owner is gone. A real SQLite store on a clock the
 * test moves; three other processes: "live" (its liveness key renewed), "lapsed" (its key expired
 * 31 s ago: it died) and "never" (no key at all). Only the dead ones' leases are given back, each
 * with a compare on its holder; posting leases are left for card delivery's takeover.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { ALIVE_TTL_MS, aliveKey } from '../../src/cases/posting-lease.ts';
import { reclaimLeases, reclaimPollLeases } from '../../src/cases/reclaim.ts';
import { createLogger } from '../../src/log.ts';
import { openSqliteStore } from '../../src/store/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import { sampleCase } from '../contract/store-contract.ts';

const LEASE_MS = 600_000;
let clock: number;
let dir: string;
let store: Store;
let lines: string[];
const log = () =>
  createLogger({
    level: 'info',
    format: 'json',
    destination: { write: (l) => void lines.push(l) },
  });

beforeEach(async () => {
  clock = 1_000_000;
  lines = [];
  dir = mkdtempSync(join(tmpdir(), 'hitl-reclaim-'));
  store = openSqliteStore(join(dir, 'db.sqlite'), () => clock);
  await store.kv.set(aliveKey('lapsed'), '1', ALIVE_TTL_MS);
  clock += ALIVE_TTL_MS + 1_000;
  await store.kv.set(aliveKey('live'), '1', ALIVE_TTL_MS);
  await store.kv.set(aliveKey('me'), '1', ALIVE_TTL_MS);
});
afterEach(async () => {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A due case leased to `owner` (what a watcher pass leaves while it polls). */
async function pollLeased(owner: string): Promise<string> {
  const c = sampleCase({ next_check_at: clock - 1 });
  await store.createCase(c);
  const leased = await store.leaseDue(clock, 100, owner, LEASE_MS);
  expect(leased.map((x) => x.id)).toEqual([c.id]);
  return c.id;
}

it('gives back the poll and stream leases of dead holders only, and leaves posting leases to card delivery', async () => {
  const byLapsed = [await pollLeased('lapsed'), await pollLeased('lapsed')];
  const byNever = await pollLeased('never');
  const byLive = await pollLeased('live');
  const byMe = await pollLeased('me');
  await store.kv.set('sse:lease:a', 'live|1', LEASE_MS);
  await store.kv.set('sse:lease:b', 'lapsed|1', LEASE_MS);
  await store.kv.set('sse:lease:c', 'never|0', LEASE_MS);
  await store.kv.set('sse:lease:d', 'me|1', LEASE_MS);
  await store.kv.set('posting:x:web:room', 'lapsed', LEASE_MS);
  await store.kv.set('posting:y:web:room', 'live', LEASE_MS);

  const r = await reclaimLeases({
    kv: store.kv,
    watch: store,
    now: () => clock,
    log: log(),
    self: 'me',
    spreadMs: 1,
  });
  expect(r).toEqual({ poll: 3, pollOwners: 2, streams: 2, postingLeft: 1 });

  // The dead holders' cases are due at once for anyone; the live ones' still wait for their lease.
  const due = (await store.leaseDue(clock, 100, 'next', LEASE_MS)).map((c) => c.id).sort();
  expect(due).toEqual([...byLapsed, byNever].sort());
  expect(due).not.toContain(byLive);
  expect(due).not.toContain(byMe);
  expect((await store.kv.list('sse:lease:', 10)).map((x) => x.key)).toEqual([
    'sse:lease:a',
    'sse:lease:d',
  ]);
  // Card delivery takes this one over itself (and writes post_retaken): left in place.
  expect(await store.kv.get('posting:x:web:room')).toBe('lapsed');
  const line = JSON.parse(lines.find((l) => l.includes('reclaimed'))!);
  expect(line).toMatchObject({ poll: 3, pollOwners: 2, streams: 2, postingLeft: 1 });
});

it('a holder that is alive again by the time of the delete keeps its lease (compare on the value)', async () => {
  await store.kv.set('sse:lease:b', 'lapsed|0', LEASE_MS);
  // Between the look and the delete, the stream lease moves to a live process.
  const kv = {
    ...store.kv,
    compareAndDelete: async (key: string, expected: string) => {
      await store.kv.set(key, 'live|1', LEASE_MS);
      return store.kv.compareAndDelete(key, expected);
    },
  };
  const r = await reclaimLeases({
    kv,
    watch: store,
    now: () => clock,
    log: log(),
    self: 'me',
    spreadMs: 1,
  });
  expect(r.streams).toBe(0);
  expect(await store.kv.get('sse:lease:b')).toBe('live|1');
});

it('with no dead holders nothing is touched, and the log says so', async () => {
  await pollLeased('live');
  await store.kv.set('sse:lease:a', 'live|1', LEASE_MS);
  const r = await reclaimLeases({
    kv: store.kv,
    watch: store,
    now: () => clock,
    log: log(),
    self: 'me',
    spreadMs: 1,
  });
  expect(r).toEqual({ poll: 0, pollOwners: 0, streams: 0, postingLeft: 0 });
  expect(await store.leaseDue(clock, 100, 'next', LEASE_MS)).toEqual([]);
  expect(lines.some((l) => l.includes('no leases of processes that are gone'))).toBe(true);
});

it('a lapsed poll lease is not counted: it is due for anyone already', async () => {
  await pollLeased('never');
  clock += LEASE_MS + 1;
  const r = await reclaimLeases({
    kv: store.kv,
    watch: store,
    now: () => clock,
    log: log(),
    self: 'me',
    spreadMs: 1,
  });
  expect(r.poll).toBe(0);
});

it('every lease length: the held cases of a holder that died since are given back, due within one interval', async () => {
  const held = await pollLeased('live');
  const mine = await pollLeased('me');
  // "live" dies: its liveness key is not renewed.
  clock += ALIVE_TTL_MS + 1_000;
  await store.kv.set(aliveKey('me'), '1', ALIVE_TTL_MS);
  const d = {
    kv: store.kv,
    watch: store,
    now: () => clock,
    log: log(),
    self: 'me',
    spreadMs: 5_000,
  };
  expect(await reclaimPollLeases(d)).toBe(1);
  const at = (await store.getCase(held))!.next_check_at!;
  expect(at).toBeGreaterThanOrEqual(clock);
  expect(at).toBeLessThan(clock + 5_000); // not at the lease's end, ten minutes on
  expect((await store.getCase(mine))!.next_check_at).toBe(clock - ALIVE_TTL_MS - 1_000 + LEASE_MS);
  expect(lines.map((l) => JSON.parse(l)).at(-1)).toMatchObject({ poll: 1, pollOwners: 1 });
  // Nothing more to give back: nothing logged.
  const logged = lines.length;
  expect(await reclaimPollLeases(d)).toBe(0);
  expect(lines).toHaveLength(logged);
});
