/** PostgreSQL: deleting final cases past retention, with what hangs off them, and expired key-values. */
import type pg from 'pg';
import type { RetentionRows } from '../store.ts';

export function pgRetention(pool: pg.Pool): RetentionRows {
  return {
    async purgeClosed(before, limit) {
      // One statement: the chosen cases and everything that hangs off them go together.
      const r = await pool.query<{ n: number }>(
        `WITH gone AS (
           DELETE FROM cases WHERE id IN (
             SELECT id FROM cases WHERE status IN ('completed', 'expired', 'cancelled')
               AND updated_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)
           RETURNING id),
         m AS (DELETE FROM messages WHERE case_id IN (SELECT id FROM gone)),
         h AS (DELETE FROM history WHERE case_id IN (SELECT id FROM gone)),
         o AS (DELETE FROM notify_outbox WHERE case_id IN (SELECT id FROM gone))
         SELECT count(*)::int AS n FROM gone`,
        [before, limit],
      );
      return r.rows[0]?.n ?? 0;
    },
    async purgeExpiredKv(t) {
      const r = await pool.query('DELETE FROM kv WHERE until IS NOT NULL AND until <= $1', [t]);
      return r.rowCount ?? 0;
    },
  };
}
