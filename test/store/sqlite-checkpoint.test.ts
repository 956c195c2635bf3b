/**
 * Issue 22: SQLite checkpoints off the request path. The request connection never checkpoints
 * (wal_autocheckpoint = 0): with the worker idle, a write loop grows the WAL past SQLite's 1,000-page
 * automatic checkpoint, which a default connection (the control) never lets happen. With the worker
 * running, its PASSIVE passes keep the WAL bounded under a write loop, and a WAL that grew past the
 * bound is truncated. Waits are for the worker's pass events, never for time.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { type CheckpointPass, startCheckpointer } from '../../src/store/sqlite/checkpoint.ts';
import { openSqliteStore } from '../../src/store/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';

const PAGE = 4096;
const VALUE = 'x'.repeat(3500); // about one page per write
const dirs: string[] = [];
const stores: Store[] = [];
const stoppers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const stop of stoppers.splice(0)) await stop();
  for (const s of stores.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function file(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hitl-ckpt-'));
  dirs.push(dir);
  return join(dir, 'db.sqlite');
}
const walBytes = (f: string) => (existsSync(`${f}-wal`) ? statSync(`${f}-wal`).size : 0);

/** Passes as they come, and a way to wait for the next ones. */
function passes() {
  const seen: CheckpointPass[] = [];
  const waiting: Array<() => void> = [];
  return {
    seen,
    onPass(p: CheckpointPass) {
      seen.push(p);
      for (const wake of waiting.splice(0)) wake();
    },
    /** Resolves once a pass that began after `t` has ended. */
    async after(t: number): Promise<void> {
      while (!seen.some((x) => x.at > t))
        await new Promise<void>((resolve) => waiting.push(resolve));
    },
  };
}

async function writeLoop(store: Store, n: number, from = 0): Promise<void> {
  for (let i = from; i < from + n; i++) await store.kv.set(`k${i}`, VALUE);
}

it('the request connection does not checkpoint: the WAL grows past 1,000 pages while the worker is idle', async () => {
  const f = file();
  const store = openSqliteStore(f, Date.now, { checkpoint: { intervalMs: 3_600_000 } });
  stores.push(store);
  await writeLoop(store, 3000);
  // Every write is still in the WAL: no commit copied it into the database.
  expect(walBytes(f)).toBeGreaterThan(2900 * PAGE);

  // The control: a connection with SQLite's default checkpoints inside its commits.
  const g = file();
  const db = new Database(g);
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE kv (k TEXT PRIMARY KEY, v TEXT)');
  const put = db.prepare('INSERT INTO kv (k, v) VALUES (?, ?)');
  for (let i = 0; i < 3000; i++) put.run(`k${i}`, VALUE);
  expect(walBytes(g)).toBeLessThan(1100 * PAGE);
  db.close();
});

it("the worker's passive checkpoints keep the WAL bounded under a write loop", async () => {
  const f = file();
  const p = passes();
  const store = openSqliteStore(f, Date.now, {
    checkpoint: { intervalMs: 10, onPass: p.onPass },
  });
  stores.push(store);
  // 40 rounds of 100 writes (~400 pages each, 16,000 in all), a worker pass after each round.
  for (let round = 0; round < 40; round++) {
    await writeLoop(store, 100, round * 100);
    await p.after(Date.now());
  }
  expect(p.seen.every((x) => x.mode === 'PASSIVE')).toBe(true);
  expect(p.seen.some((x) => x.busy === 0 && x.log > 0 && x.checkpointed === x.log)).toBe(true);
  // The WAL is reused from its start once a pass has copied it all: a few rounds, not 16,000 pages.
  expect(walBytes(f)).toBeLessThan(1300 * PAGE);
  expect(await store.kv.get('k3999')).toBe(VALUE);
});

it('a WAL grown past the bound is truncated, and close stops the worker', async () => {
  const f = file();
  const bound = 256 * PAGE;
  // The store's own worker idles while a burst of ~1,500 writes (~6,000 pages) grows the WAL, so
  // the pass inspected below runs with no writer in flight (a pass during the burst may copy fewer
  // frames than the log holds, as writes land behind it).
  const store = openSqliteStore(f, Date.now, { checkpoint: { intervalMs: 3_600_000 } });
  stores.push(store);
  await writeLoop(store, 1500);
  expect(walBytes(f)).toBeGreaterThan(bound);
  // Then a second checkpointer on the same file, on its own connection, with the bound.
  const p = passes();
  const side = new Database(f);
  const worker = startCheckpointer(side, f, {
    intervalMs: 10,
    truncateAboveBytes: bound,
    onPass: p.onPass,
  });
  await p.after(0);
  await worker.stop();
  side.close();
  const [before, truncated] = p.seen;
  expect(truncated?.mode).toBe('TRUNCATE');
  expect(truncated?.walBytes).toBeGreaterThan(bound);
  expect(truncated?.busy).toBe(0);
  // The same pass copied the burst without the write lock first (PASSIVE, all frames), so the
  // TRUNCATE held the lock only for what came after: a backlog copied under the lock kept writers
  // waiting past their busy timeout.
  expect(before?.mode).toBe('PASSIVE');
  expect(before?.at).toBe(truncated?.at);
  expect(before?.log).toBeGreaterThan(1000);
  expect(before?.checkpointed).toBe(before?.log);
  expect(walBytes(f)).toBeLessThanOrEqual(bound);
  expect(await store.kv.get('k1499')).toBe(VALUE);
  stores.splice(0);
  await store.close();
  // The store's worker connection was closed first: the request connection was the last one, so
  // SQLite checkpointed on close and removed the WAL.
  expect(existsSync(`${f}-wal`)).toBe(false);
});

it('CKPT-NOCREATE-1: a worker that opens after the file was deleted reports it and creates no empty database at the path', async () => {
  const f = file();
  const db = new Database(f);
  db.pragma('journal_mode = WAL');
  // As `rm "$DATA_DIR"/*.sqlite*` before the worker thread got to open its connection (a busy machine).
  rmSync(f);
  rmSync(`${f}-wal`, { force: true });
  rmSync(`${f}-shm`, { force: true });
  const errors: Error[] = [];
  const stopped = new Promise<void>((resolve) => {
    const ckpt = startCheckpointer(db, f, {
      intervalMs: 3_600_000,
      onError: (err) => {
        errors.push(err);
        resolve();
      },
    });
    stoppers.push(() => ckpt.stop());
  });
  await stopped;
  expect(errors[0]?.message).toMatch(/checkpoint worker stopped/);
  expect(existsSync(f)).toBe(false);
  // Without the worker, the request connection checkpoints on its own again.
  expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
  db.close();
});
