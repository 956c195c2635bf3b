/** PostgreSQL: the notify_url outbox, leased to one replica at a time (SKIP LOCKED). */
import type pg from 'pg';
import type { NotifyDelivery, OutboxRows } from '../store.ts';

export const DELIVERY_COLS =
  'id, case_id, event, url, body, state, attempts, next_attempt_at, last_error, created_at, delivered_at';
/** The outbox columns as a jsonb_to_recordset row type, so a batch of deliveries is one parameter. */
export const DELIVERY_RECORD =
  'id text, case_id text, event text, url text, body text, state text, attempts int, next_attempt_at bigint, last_error text, created_at bigint, delivered_at bigint';

function deliveryValues(d: NotifyDelivery): unknown[] {
  return [
    d.id,
    d.case_id,
    d.event,
    d.url,
    d.body,
    d.state,
    d.attempts,
    d.next_attempt_at,
    d.last_error,
    d.created_at,
    d.delivered_at,
  ];
}

/** Records how an attempt ended and releases the lease. */
async function settle(pool: pg.Pool, ...[id, owner, o]: Parameters<OutboxRows['settleDelivery']>) {
  if (o.state === 'delivered')
    await pool.query(
      `UPDATE notify_outbox SET state = 'delivered', delivered_at = $2, next_attempt_at = NULL, last_error = NULL,
       lease_owner = NULL, lease_until = NULL WHERE id = $1 AND state = 'pending'`,
      [id, o.at],
    );
  else
    await pool.query(
      `UPDATE notify_outbox SET state = $3, next_attempt_at = $4,
       last_error = CASE WHEN $6 = 1 THEN last_error ELSE $5 END, lease_owner = NULL, lease_until = NULL,
       attempts = attempts - $6 WHERE id = $1 AND state = 'pending' AND lease_owner = $2`,
      [
        id,
        owner,
        o.state,
        o.state === 'pending' ? o.next_attempt_at : null,
        o.error,
        o.state === 'pending' && o.notAttempted ? 1 : 0,
      ],
    );
}

export function pgOutbox(pool: pg.Pool): OutboxRows {
  return {
    async enqueueDelivery(d) {
      const r = await pool.query(
        `INSERT INTO notify_outbox (${DELIVERY_COLS}) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11) ON CONFLICT DO NOTHING`,
        deliveryValues(d),
      );
      return r.rowCount === 1;
    },
    async leaseDeliveries(at, limit, owner, leaseMs) {
      const r = await pool.query<NotifyDelivery>(
        `UPDATE notify_outbox SET lease_owner = $1, lease_until = $2, attempts = attempts + 1 WHERE id IN (
           SELECT id FROM notify_outbox WHERE state = 'pending' AND next_attempt_at <= $3
           AND (lease_until IS NULL OR lease_until < $3) ORDER BY next_attempt_at LIMIT $4 FOR UPDATE SKIP LOCKED)
         RETURNING ${DELIVERY_COLS}`,
        [owner, at + leaseMs, at, limit],
      );
      return r.rows.sort((a, b) => (a.next_attempt_at ?? 0) - (b.next_attempt_at ?? 0));
    },
    settleDelivery: (id, owner, o) => settle(pool, id, owner, o),
    async listDeliveries(caseId) {
      return (
        await pool.query<NotifyDelivery>(
          `SELECT ${DELIVERY_COLS} FROM notify_outbox WHERE case_id = $1 ORDER BY created_at, seq`,
          [caseId],
        )
      ).rows;
    },
  };
}
