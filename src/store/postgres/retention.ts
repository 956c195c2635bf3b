/** PostgreSQL: deleting final cases past retention, with what hangs off them, and expired key-values. */
import type pg from 'pg';
import type { RetentionRows } from '../store.ts';

export function pgRetention(pool: pg.Pool): RetentionRows {
  return {
    async dropReviewUrls(t, retired, limit) {
      const r = await pool.query(
        `UPDATE cases SET secrets = $1, version = version + 1,
           doc = jsonb_set(doc - 'review_url_drop_at', '{review_url_retired_at}', to_jsonb($2::text))
         WHERE id IN (SELECT id FROM cases WHERE review_url_drop_at <= $3
           AND status IN ('completed', 'expired', 'cancelled') LIMIT $4 FOR UPDATE SKIP LOCKED)`,
        [retired, new Date(t).toISOString(), t, limit],
      );
      return r.rowCount ?? 0;
    },
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
