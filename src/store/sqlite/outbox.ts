/** SQLite: the notify_url outbox, leased to one replica at a time. */
import type Database from 'better-sqlite3';
import type { NotifyDelivery, OutboxRows } from '../store.ts';

const DELIVERY_COLS =
  'id, case_id, event, url, body, state, attempts, next_attempt_at, last_error, created_at, delivered_at';

/** The outbox insert (a status change writes it in the case's transaction). */
export function enqueueStatement(db: Database.Database): Database.Statement<[NotifyDelivery]> {
  return db.prepare(`INSERT INTO notify_outbox (${DELIVERY_COLS}) VALUES (@id, @case_id, @event, @url,
    @body, @state, @attempts, @next_attempt_at, @last_error, @created_at, @delivered_at)
    ON CONFLICT DO NOTHING`);
}

function outboxStatements(db: Database.Database) {
  return {
    due: db.prepare<[number, number, number], NotifyDelivery>(`SELECT ${DELIVERY_COLS}
      FROM notify_outbox WHERE state = 'pending' AND next_attempt_at <= ?
      AND (lease_until IS NULL OR lease_until < ?) ORDER BY next_attempt_at LIMIT ?`),
    lease: db.prepare(
      'UPDATE notify_outbox SET lease_owner = ?, lease_until = ?, attempts = attempts + 1 WHERE id = ?',
    ),
    delivered: db.prepare(`UPDATE notify_outbox SET state = 'delivered', delivered_at = ?,
      next_attempt_at = NULL, last_error = NULL, lease_owner = NULL, lease_until = NULL
      WHERE id = ? AND state = 'pending'`),
    attemptFailed: db.prepare(`UPDATE notify_outbox SET state = @state, next_attempt_at = @next,
      last_error = CASE WHEN @uncount = 1 THEN last_error ELSE @error END, lease_owner = NULL,
      lease_until = NULL, attempts = attempts - @uncount
      WHERE id = @id AND state = 'pending' AND lease_owner = @owner`),
    list: db.prepare<[string], NotifyDelivery>(
      `SELECT ${DELIVERY_COLS} FROM notify_outbox WHERE case_id = ? ORDER BY created_at, rowid`,
    ),
  };
}

export function sqliteOutbox(
  db: Database.Database,
  enqueue: Database.Statement<[NotifyDelivery]>,
): OutboxRows {
  const q = outboxStatements(db);
  const leaseTx = db.transaction((at: number, limit: number, owner: string, leaseMs: number) => {
    const rows = q.due.all(at, at, limit);
    for (const r of rows) q.lease.run(owner, at + leaseMs, r.id);
    return rows.map((r) => ({ ...r, attempts: r.attempts + 1 }));
  });
  return {
    async enqueueDelivery(d) {
      return enqueue.run(d).changes === 1;
    },
    async leaseDeliveries(at, limit, owner, leaseMs) {
      return leaseTx(at, limit, owner, leaseMs);
    },
    async settleDelivery(id, owner, o) {
      if (o.state === 'delivered') q.delivered.run(o.at, id);
      else
        q.attemptFailed.run({
          id,
          owner,
          uncount: o.state === 'pending' && o.notAttempted ? 1 : 0,
          state: o.state,
          next: o.state === 'pending' ? o.next_attempt_at : null,
          error: o.error,
        });
    },
    async listDeliveries(caseId) {
      return q.list.all(caseId);
    },
  };
}
