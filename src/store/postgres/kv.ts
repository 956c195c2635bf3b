/** PostgreSQL: key-values with expiry (leases, marks, keys), each operation one statement. */
import type pg from 'pg';
import type { KeyValue } from '../../adapter.ts';

const until = (t: number, ttlMs?: number) => (ttlMs ? t + ttlMs : null);

/** Reads and plain writes. */
function kvBasics(
  pool: pg.Pool,
  now: () => number,
): Pick<KeyValue, 'get' | 'set' | 'delete' | 'list'> {
  return {
    async get(k) {
      return (
        await pool.query<{ v: string }>(
          'SELECT v FROM kv WHERE k = $1 AND (until IS NULL OR until > $2)',
          [k, now()],
        )
      ).rows[0]?.v;
    },
    async set(k, v, ttlMs) {
      await pool.query(
        'INSERT INTO kv (k, v, until) VALUES ($1, $2, $3) ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v, until = EXCLUDED.until',
        [k, v, until(now(), ttlMs)],
      );
    },
    async delete(k) {
      await pool.query('DELETE FROM kv WHERE k = $1', [k]);
    },
    async list(prefix, limit) {
      return (
        await pool.query<{ key: string; value: string }>(
          `SELECT k AS key, v AS value FROM kv WHERE starts_with(k, $1)
           AND (until IS NULL OR until > $2) ORDER BY k COLLATE "C" LIMIT $3`,
          [prefix, now(), limit],
        )
      ).rows;
    },
  };
}

/**
 * setIfAbsent with `also`: one statement, so one round trip and one commit. Data-modifying CTEs
 * run once whatever the outer query reads; the entries are written only when the claim was.
 */
async function claimWith(
  pool: pg.Pool,
  claim: [string, string, number | null, number],
  also: ReadonlyArray<{ key: string; value: string }>,
): Promise<boolean> {
  const r = await pool.query<{ n: number }>(
    `WITH claimed AS (
       INSERT INTO kv (k, v, until) VALUES ($1, $2, $3) ON CONFLICT (k) DO UPDATE
       SET v = EXCLUDED.v, until = EXCLUDED.until WHERE kv.until IS NOT NULL AND kv.until <= $4
       RETURNING 1),
     guarded AS (
       INSERT INTO kv (k, v, until) SELECT a.k, a.v, $3 FROM unnest($5::text[], $6::text[]) AS a(k, v)
       WHERE EXISTS (SELECT 1 FROM claimed)
       ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v, until = EXCLUDED.until)
     SELECT count(*)::int AS n FROM claimed`,
    [...claim, also.map((e) => e.key), also.map((e) => e.value)],
  );
  return r.rows[0]?.n === 1;
}

/** The conditional writes leases are made of (the database serialises each). */
function kvConditionals(
  pool: pg.Pool,
  now: () => number,
): Pick<KeyValue, 'setIfAbsent' | 'compareAndSet' | 'compareAndDelete'> {
  return {
    async setIfAbsent(k, v, ttlMs, also) {
      const t = now();
      if (also?.length) return claimWith(pool, [k, v, until(t, ttlMs), t], also);
      const r = await pool.query(
        `INSERT INTO kv (k, v, until) VALUES ($1, $2, $3) ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v, until = EXCLUDED.until
         WHERE kv.until IS NOT NULL AND kv.until <= $4`,
        [k, v, until(t, ttlMs), t],
      );
      return r.rowCount === 1;
    },
    async compareAndSet(k, expected, v, ttlMs) {
      const t = now();
      const r = await pool.query(
        'UPDATE kv SET v = $1, until = $2 WHERE k = $3 AND v = $4 AND (until IS NULL OR until > $5)',
        [v, until(t, ttlMs), k, expected, t],
      );
      return r.rowCount === 1;
    },
    async compareAndDelete(k, expected) {
      const r = await pool.query(
        'DELETE FROM kv WHERE k = $1 AND v = $2 AND (until IS NULL OR until > $3)',
        [k, expected, now()],
      );
      return r.rowCount === 1;
    },
  };
}

export function pgKv(pool: pg.Pool, now: () => number): KeyValue {
  return { ...kvBasics(pool, now), ...kvConditionals(pool, now) };
}
