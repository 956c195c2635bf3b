/** SQLite: key-values with expiry (leases, marks, keys), each operation one statement or transaction. */
import type Database from 'better-sqlite3';
import type { KeyValue } from '../../adapter.ts';

type KvEntry = { key: string; value: string };

/** The kv statements other concerns write in their own transactions. */
export interface KvWrites {
  /** (key, value, until): sets the key, whatever it held. */
  set: Database.Statement<[string, string, number | null]>;
  /** (key, value): deletes the key while it holds value (a lease released by its holder). */
  releaseOwn: Database.Statement<[string, string]>;
}

export function kvWrites(db: Database.Database): KvWrites {
  return {
    set: db.prepare(
      'INSERT INTO kv (k, v, until) VALUES (?, ?, ?) ON CONFLICT (k) DO UPDATE SET v = excluded.v, until = excluded.until',
    ),
    releaseOwn: db.prepare('DELETE FROM kv WHERE k = ? AND v = ?'),
  };
}

function kvStatements(db: Database.Database) {
  return {
    get: db.prepare<[string, number], { v: string }>(
      'SELECT v FROM kv WHERE k = ? AND (until IS NULL OR until > ?)',
    ),
    cas: db.prepare(
      'UPDATE kv SET v = ?, until = ? WHERE k = ? AND v = ? AND (until IS NULL OR until > ?)',
    ),
    delete: db.prepare('DELETE FROM kv WHERE k = ?'),
    cad: db.prepare('DELETE FROM kv WHERE k = ? AND v = ? AND (until IS NULL OR until > ?)'),
    list: db.prepare<[string, string, number, number], { key: string; value: string }>(
      `SELECT k AS key, v AS value FROM kv WHERE substr(k, 1, length(?)) = ?
       AND (until IS NULL OR until > ?) ORDER BY k LIMIT ?`,
    ),
    setIfAbsent: db.prepare(`INSERT INTO kv (k, v, until) VALUES (?, ?, ?) ON CONFLICT (k) DO UPDATE
      SET v = excluded.v, until = excluded.until WHERE kv.until IS NOT NULL AND kv.until <= ?`),
  };
}

export function sqliteKv(db: Database.Database, writes: KvWrites, now: () => number): KeyValue {
  const q = kvStatements(db);
  const until = (t: number, ttlMs?: number) => (ttlMs ? t + ttlMs : null);
  // The claim and the entries it guards: one transaction (a savepoint inside a group commit).
  const claimTx = db.transaction(
    (k: string, v: string, u: number | null, t: number, also: ReadonlyArray<KvEntry>) => {
      if (q.setIfAbsent.run(k, v, u, t).changes !== 1) return false;
      for (const e of also) writes.set.run(e.key, e.value, u);
      return true;
    },
  );
  return {
    async get(k) {
      return q.get.get(k, now())?.v;
    },
    async set(k, v, ttlMs) {
      writes.set.run(k, v, until(now(), ttlMs));
    },
    async setIfAbsent(k, v, ttlMs, also) {
      const t = now();
      if (also?.length) return claimTx(k, v, until(t, ttlMs), t, also);
      return q.setIfAbsent.run(k, v, until(t, ttlMs), t).changes === 1;
    },
    async compareAndSet(k, expected, v, ttlMs) {
      const t = now();
      return q.cas.run(v, until(t, ttlMs), k, expected, t).changes === 1;
    },
    async delete(k) {
      q.delete.run(k);
    },
    async compareAndDelete(k, expected) {
      return q.cad.run(k, expected, now()).changes === 1;
    },
    async list(prefix, limit) {
      return q.list.all(prefix, prefix, now(), limit);
    },
  };
}
