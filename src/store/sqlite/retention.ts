/** SQLite: deleting final cases past retention, with what hangs off them, and expired key-values. */
import type Database from 'better-sqlite3';
import type { RetentionRows } from '../store.ts';

export function sqliteRetention(db: Database.Database): RetentionRows {
  const closedBefore = db.prepare<[number, number], { id: string }>(
    `SELECT id FROM cases WHERE status IN ('completed', 'expired', 'cancelled') AND updated_at < ? LIMIT ?`,
  );
  const purgeCase = [
    db.prepare<[string]>('DELETE FROM messages WHERE case_id = ?'),
    db.prepare<[string]>('DELETE FROM history WHERE case_id = ?'),
    db.prepare<[string]>('DELETE FROM notify_outbox WHERE case_id = ?'),
    db.prepare<[string]>('DELETE FROM cases WHERE id = ?'),
  ];
  const purgeKv = db.prepare<[number]>('DELETE FROM kv WHERE until IS NOT NULL AND until <= ?');
  // The chosen cases and everything that hangs off them go together.
  const purgeTx = db.transaction((before: number, limit: number) => {
    const ids = closedBefore.all(before, limit);
    for (const { id } of ids) for (const stmt of purgeCase) stmt.run(id);
    return ids.length;
  });
  const dropReview = db.prepare<[string, string, number, number]>(
    `UPDATE cases SET secrets = ?, version = version + 1,
       doc = json_set(json_remove(doc, '$.review_url_drop_at'), '$.review_url_retired_at', ?)
     WHERE id IN (SELECT id FROM cases WHERE review_url_drop_at <= ? AND status IN ('completed', 'expired', 'cancelled') LIMIT ?)`,
  );
  return {
    async dropReviewUrls(t, retired, limit) {
      return dropReview.run(retired, new Date(t).toISOString(), t, limit).changes;
    },
    async purgeClosed(before, limit) {
      return purgeTx(before, limit);
    },
    async purgeExpiredKv(t) {
      return purgeKv.run(t).changes;
    },
  };
}
