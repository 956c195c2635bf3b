/**
 * Issue 22, group commit (src/store/sqlite/batch.ts): the writes of one event-loop turn share one
 * commit, each caller's promise settles only once that commit is on disk, call order (and so
 * compare-and-set) is unchanged, and one failing write fails only its own caller. A real SQLite
 * file; a second connection shows what is committed; a real SQLITE_FULL (max_page_count) and a
 * real UNIQUE violation are the failures.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { openSqliteStore } from '../../src/store/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import { sampleCase } from '../contract/store-contract.ts';

const dirs: string[] = [];
const stores: Store[] = [];
const readers: Database.Database[] = [];
afterEach(async () => {
  for (const r of readers.splice(0)) r.close();
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

// The checkpoint worker stays idle, so the WAL's size counts the frames the commits wrote.
const IDLE = { checkpoint: { intervalMs: 3_600_000 } };

function open(options: Parameters<typeof openSqliteStore>[2] = IDLE) {
  const dir = mkdtempSync(join(tmpdir(), 'hitl-batch-'));
  dirs.push(dir);
  const file = join(dir, 'db.sqlite');
  const store = openSqliteStore(file, Date.now, options);
  stores.push(store);
  return { file, store };
}

function reader(file: string) {
  const db = new Database(file, { readonly: true });
  readers.push(db);
  return {
    /** The kv keys another connection sees committed. */
    keys: (prefix: string) =>
      db
        .prepare<[string], { k: string }>('SELECT k FROM kv WHERE k LIKE ? ORDER BY k')
        .all(`${prefix}%`)
        .map((r) => r.k),
    pages: () => db.pragma('page_count', { simple: true }) as number,
  };
}

const walFrames = (file: string) =>
  existsSync(`${file}-wal`) ? Math.max(0, (statSync(`${file}-wal`).size - 32) / (4096 + 24)) : 0;

it('the writes of one turn are one commit; each settles only after it, and reads see them in call order', async () => {
  const { file, store } = open();
  const other = reader(file);
  await store.kv.set('warm', '1');

  const before = walFrames(file);
  const writes = Array.from({ length: 100 }, (_, i) => store.kv.set(`t:${i}`, 'v'));
  const read = store.kv.get('t:7'); // issued after the write of t:7: it sees it
  const cas = store.kv.compareAndSet('t:8', 'v', 'w'); // and the compare-and-set finds it
  // Nothing is committed yet: the callers have not been told.
  expect(other.keys('t:')).toEqual([]);
  let seenAtFirstSettle: string[] = [];
  writes[0]!.then(() => {
    seenAtFirstSettle = other.keys('t:');
  });
  await Promise.all(writes);
  expect(seenAtFirstSettle).toHaveLength(100); // the first caller hears only after the commit
  expect(await read).toBe('v');
  expect(await cas).toBe(true);
  const batched = walFrames(file) - before;

  // The same 100 writes awaited one by one: a commit each.
  const mid = walFrames(file);
  for (let i = 0; i < 100; i++) await store.kv.set(`u:${i}`, 'v');
  const single = walFrames(file) - mid;
  expect(batched).toBeLessThan(5);
  expect(single).toBeGreaterThanOrEqual(100);
});

it('a write that breaks a constraint fails only its caller; the rest of its batch commits', async () => {
  const { file, store } = open();
  const other = reader(file);
  const a = sampleCase();
  const clash = sampleCase({ id: a.id }); // same primary key, another service case: UNIQUE fails
  const b = sampleCase();
  const results = await Promise.allSettled([
    store.createCase(a),
    store.kv.set('c:before', '1'),
    store.createCase(clash),
    store.kv.set('c:after', '1'),
    store.createCase(b),
  ]);
  expect(results.map((r) => r.status)).toEqual([
    'fulfilled',
    'fulfilled',
    'rejected',
    'fulfilled',
    'fulfilled',
  ]);
  expect(String((results[2] as PromiseRejectedResult).reason)).toMatch(/UNIQUE/);
  expect(other.keys('c:')).toEqual(['c:after', 'c:before']);
  expect((await store.getCase(a.id))?.case_id).toBe(a.case_id);
  expect(await store.getCase(b.id)).toBeDefined();
  expect(await store.findCase(clash.origin, clash.case_id)).toBeUndefined();
});

it('a write that fills the disk fails only its caller; the writes beside it in the batch commit', async () => {
  // Measure the migrated file, then reopen it with room for a few pages more: a real SQLITE_FULL.
  const first = open();
  await first.store.kv.set('warm', '1');
  const pages = reader(first.file).pages();
  await stores.pop()!.close();
  readers.pop()!.close();
  const store = openSqliteStore(first.file, Date.now, { ...IDLE, maxPageCount: pages + 4 });
  stores.push(store);
  const other = reader(first.file);

  const results = await Promise.allSettled([
    store.kv.set('f:a', 'small'),
    store.kv.set('f:big', 'x'.repeat(200_000)), // ~50 pages: more than the disk has left
    store.kv.set('f:b', 'small'),
  ]);
  expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  expect(String((results[1] as PromiseRejectedResult).reason)).toMatch(/full/i);
  expect(other.keys('f:')).toEqual(['f:a', 'f:b']);
  // The store goes on: the next turn's writes commit.
  await store.kv.set('f:c', 'small');
  expect(other.keys('f:')).toEqual(['f:a', 'f:b', 'f:c']);
});

it('closing the store commits a batch still open', async () => {
  const { file, store } = open();
  const pending = store.kv.set('z:1', 'v');
  stores.pop();
  await store.close();
  await pending;
  expect(reader(file).keys('z:')).toEqual(['z:1']);
});

it("two stores on one file in one process: a write of the second commits the first one's open batch instead of waiting on it", async () => {
  const { file, store: a } = open();
  const b = openSqliteStore(file, Date.now, IDLE);
  stores.push(b);
  // a's batch holds the write lock until its commit on setImmediate; b's BEGIN IMMEDIATE runs in
  // the same turn, on the same (blocked) thread: waiting out busy_timeout could never end well.
  // (Waiting, it blocked the thread 2 x 5 s and failed with "database is locked".)
  await Promise.all([a.kv.set('two:a', '1'), b.kv.set('two:b', '2')]);
  expect(reader(file).keys('two:')).toEqual(['two:a', 'two:b']);
});

it('opening a second store on the file while the first has a batch open commits that batch first', async () => {
  const { file, store: a } = open();
  const write = a.kv.set('open:a', '1');
  // The migration's BEGIN IMMEDIATE in the same turn as a's open batch (two relays starting in one
  // test): waiting out busy_timeout on the thread that must commit it failed with "database is locked".
  const started = Date.now();
  const b = openSqliteStore(file, Date.now, IDLE);
  stores.push(b);
  await write;
  expect(Date.now() - started).toBeLessThan(4_000);
  expect(reader(file).keys('open:')).toEqual(['open:a']);
});
