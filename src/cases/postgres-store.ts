/**
 * The Store for several replicas: PostgreSQL (pg). Claims and "post once" are single statements
 * the database serialises; due watch work is leased with FOR UPDATE SKIP LOCKED so replicas never
 * poll the same case at once, and a dead replica's leases simply lapse.
 */
import pg from 'pg';
import type { KeyValue } from '../adapter.ts';
import { migratePostgres } from './migrate-postgres.ts';
import { HISTORY_CAP, HISTORY_CAPPED_DETAIL, type NotifyDelivery, type Store } from './store.ts';
import type { HistoryEntry, StoredCase, StoredMessage } from './types.ts';

/** Numbers as numbers: BIGINT columns hold millisecond times well inside 2^53. */
const types = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === 20
      ? (v: string) => Number(v)
      : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

const CASE_COLS =
  'id, key, origin, case_id, target, status, version, doc, secrets, next_check_at, etag, poll_failures, claim_holder, claim_until, created_at, updated_at';
const TERMINAL = "('completed','expired','cancelled')";
const DELIVERY_COLS =
  'id, case_id, event, url, body, state, attempts, next_attempt_at, last_error, created_at, delivered_at';
/** The outbox columns as a jsonb_to_recordset row type, so a batch of deliveries is one parameter. */
const DELIVERY_RECORD =
  'id text, case_id text, event text, url text, body text, state text, attempts int, next_attempt_at bigint, last_error text, created_at bigint, delivered_at bigint';

interface Row {
  id: string;
  key: string;
  origin: string;
  case_id: string;
  target: string;
  status: string;
  version: number;
  doc: StoredCase['doc'];
  secrets: string;
  next_check_at: number | null;
  etag: string | null;
  poll_failures: number;
  claim_holder: string | null;
  claim_until: number | null;
  created_at: number;
  updated_at: number;
}

function toCase(r: Row): StoredCase {
  const { claim_holder, claim_until, ...rest } = r;
  return {
    ...rest,
    status: r.status as StoredCase['status'],
    claim: claim_holder ? { holder: claim_holder, until: claim_until ?? 0 } : null,
  };
}

function values(c: StoredCase): unknown[] {
  return [
    c.id,
    c.key,
    c.origin,
    c.case_id,
    c.target,
    c.status,
    c.version,
    JSON.stringify(c.doc),
    c.secrets,
    c.next_check_at,
    c.etag,
    c.poll_failures,
    c.claim?.holder ?? null,
    c.claim?.until ?? null,
    c.created_at,
    c.updated_at,
  ];
}

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

/**
 * pg sends a number as its decimal text, and BIGINT / INTEGER columns refuse "1712.5": a time
 * computed with jitter or from fractional seconds would fail the whole statement (SQLite takes it).
 * Every number parameter is rounded on its way in; the schema has no fractional column.
 */
const whole = (v: unknown) => (typeof v === 'number' && !Number.isInteger(v) ? Math.round(v) : v);

function withWholeNumberParams(pool: pg.Pool): pg.Pool {
  const query = pool.query.bind(pool) as (text: unknown, params?: unknown) => unknown;
  pool.query = ((text: unknown, params?: unknown) =>
    query(text, Array.isArray(params) ? params.map(whole) : params)) as typeof pool.query;
  return pool;
}

/** The compare-and-set update of a case; parameters from updateValues(). */
const UPDATE_CASE = `UPDATE cases SET status = $2, version = $3, doc = $4, secrets = $5, next_check_at = $6, etag = $7,
  poll_failures = $8, claim_holder = $9, claim_until = $10, updated_at = $11 WHERE id = $1 AND version = $12`;

function updateValues(c: StoredCase, expected: number): unknown[] {
  return [
    c.id,
    c.status,
    c.version,
    JSON.stringify(c.doc),
    c.secrets,
    c.next_check_at,
    c.etag,
    c.poll_failures,
    c.claim?.holder ?? null,
    c.claim?.until ?? null,
    c.updated_at,
    expected,
  ];
}

const RESERVE_MESSAGE = `INSERT INTO messages (case_id, target, platform, address, ref_id, state, rendered_version, error, posted_at)
  VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9) ON CONFLICT DO NOTHING`;
const ADD_HISTORY = 'INSERT INTO history (case_id, at, kind, detail) VALUES ($1, $2, $3, $4)';

function messageValues(m: StoredMessage): unknown[] {
  return [
    m.case_id,
    m.target,
    m.platform,
    m.address,
    m.ref_id,
    m.state,
    m.rendered_version,
    m.error,
    m.posted_at,
  ];
}

/** Opens the PostgreSQL store and runs migrations (under an advisory lock, so replicas may start together). */
export async function openPostgresStore(
  url: string,
  now: () => number = Date.now,
  options: {
    max?: number;
    /** Hears errors of idle pooled connections (the server restarted, the network dropped). */
    onError?: (err: Error) => void;
  } = {},
): Promise<Store> {
  const pool = withWholeNumberParams(
    new pg.Pool({
      connectionString: url,
      max: options.max ?? 10,
      types,
      // A query waits at most this long for a connection while the server is down: requests then
      // fail (503) instead of hanging.
      connectionTimeoutMillis: 5000,
    }),
  );
  // Without a listener, an idle connection that the server ends (57P01 on `pg_ctl stop -m fast`, a
  // restart, a dropped network) is an unhandled 'error' event that kills the process. The pool
  // drops that connection by itself and opens a fresh one on the next query once the server is back.
  pool.on('error', (err) => options.onError?.(err));
  // A connection checked out for a transaction can be ended by the server between two of its
  // queries: that is an 'error' event on the client itself, not on the pool. The query in flight
  // (or the next one) fails and the client is released with the error, so here it is only heard.
  pool.on('connect', (client) => client.on('error', (err) => options.onError?.(err)));
  try {
    await migratePostgres(pool, now);
  } catch (err) {
    await pool.end().catch(() => {});
    throw err;
  }
  const one = async (sql: string, params: unknown[]) =>
    (await pool.query<Row>(sql, params)).rows[0];
  const msgs = async (sql: string, params: unknown[]) =>
    (await pool.query<StoredMessage & { seq?: number }>(sql, params)).rows.map(
      ({ seq: _s, ...m }) => m as StoredMessage,
    );

  const kv: KeyValue = {
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
        [k, v, ttlMs ? now() + ttlMs : null],
      );
    },
    async setIfAbsent(k, v, ttlMs) {
      const t = now();
      const r = await pool.query(
        `INSERT INTO kv (k, v, until) VALUES ($1, $2, $3) ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v, until = EXCLUDED.until
         WHERE kv.until IS NOT NULL AND kv.until <= $4`,
        [k, v, ttlMs ? t + ttlMs : null, t],
      );
      return r.rowCount === 1;
    },
    async compareAndSet(k, expected, v, ttlMs) {
      const t = now();
      const r = await pool.query(
        'UPDATE kv SET v = $1, until = $2 WHERE k = $3 AND v = $4 AND (until IS NULL OR until > $5)',
        [v, ttlMs ? t + ttlMs : null, k, expected, t],
      );
      return r.rowCount === 1;
    },
    async delete(k) {
      await pool.query('DELETE FROM kv WHERE k = $1', [k]);
    },
    async compareAndDelete(k, expected) {
      const r = await pool.query(
        'DELETE FROM kv WHERE k = $1 AND v = $2 AND (until IS NULL OR until > $3)',
        [k, expected, now()],
      );
      return r.rowCount === 1;
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

  return {
    kv,
    async createCase(c, intents) {
      // One transaction: the case, its message reservations and its first history row, or none.
      const client = await pool.connect();
      let inserted: Row | undefined;
      try {
        await client.query('BEGIN');
        inserted = (
          await client.query<Row>(
            `INSERT INTO cases (${CASE_COLS}) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16)
             ON CONFLICT (origin, case_id) DO NOTHING RETURNING ${CASE_COLS}`,
            values(c).map(whole),
          )
        ).rows[0];
        if (inserted) {
          for (const m of intents?.messages ?? [])
            await client.query(RESERVE_MESSAGE, messageValues(m).map(whole));
          const h = intents?.history;
          if (h)
            await client.query(ADD_HISTORY, [c.id, whole(h.at), h.kind, JSON.stringify(h.detail)]);
        }
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      } finally {
        client.release();
      }
      if (inserted) return { case: toCase(inserted), created: true };
      return {
        case: toCase(
          (await one(`SELECT ${CASE_COLS} FROM cases WHERE origin = $1 AND case_id = $2`, [
            c.origin,
            c.case_id,
          ]))!,
        ),
        created: false,
      };
    },
    async getCase(id) {
      const r = await one(`SELECT ${CASE_COLS} FROM cases WHERE id = $1`, [id]);
      return r && toCase(r);
    },
    async getCaseByKey(key) {
      const r = await one(`SELECT ${CASE_COLS} FROM cases WHERE key = $1`, [key]);
      return r && toCase(r);
    },
    async findCase(origin, caseId) {
      const r = await one(`SELECT ${CASE_COLS} FROM cases WHERE origin = $1 AND case_id = $2`, [
        origin,
        caseId,
      ]);
      return r && toCase(r);
    },
    async listCases({ open, limit, offset = 0 }) {
      const where = open ? `WHERE status NOT IN ${TERMINAL}` : '';
      return (
        await pool.query<Row>(
          `SELECT ${CASE_COLS} FROM cases ${where} ORDER BY created_at DESC LIMIT $1 OFFSET $2`,
          [limit, offset],
        )
      ).rows.map(toCase);
    },
    async updateCase(c, expected, outbox) {
      if (outbox?.length) {
        // One statement: the deliveries are inserted only from the row the compare-and-set updated.
        const r = await pool.query<{ n: number }>(
          `WITH u AS (${UPDATE_CASE} RETURNING id),
           ins AS (INSERT INTO notify_outbox (${DELIVERY_COLS}) SELECT d.* FROM u, jsonb_to_recordset($13::jsonb)
             AS d(${DELIVERY_RECORD}) ON CONFLICT DO NOTHING)
           SELECT count(*)::int AS n FROM u`,
          [...updateValues(c, expected), JSON.stringify(outbox)],
        );
        return r.rows[0]?.n === 1;
      }
      const r = await pool.query(UPDATE_CASE, updateValues(c, expected));
      return r.rowCount === 1;
    },
    async updateWatch(id, w) {
      await pool.query(
        'UPDATE cases SET next_check_at = $2, etag = $3, poll_failures = $4, lease_owner = NULL, lease_until = NULL WHERE id = $1',
        [id, w.next_check_at, w.etag, w.poll_failures],
      );
    },
    async claimCase(id, holder, until) {
      const r = await pool.query(
        `UPDATE cases SET claim_holder = $2, claim_until = $3 WHERE id = $1 AND claim_holder IS NULL AND status NOT IN ${TERMINAL}`,
        [id, holder, until],
      );
      return r.rowCount === 1;
    },
    async takeOverClaim(id, expiredHolder, holder, until) {
      const r = await pool.query(
        `UPDATE cases SET claim_holder = $2, claim_until = $3 WHERE id = $1 AND claim_holder = $4 AND claim_until < $5 AND status NOT IN ${TERMINAL}`,
        [id, holder, until, expiredHolder, now()],
      );
      return r.rowCount === 1;
    },
    async releaseClaim(id, holder) {
      await pool.query(
        'UPDATE cases SET claim_holder = NULL, claim_until = NULL WHERE id = $1 AND claim_holder = $2',
        [id, holder],
      );
    },
    async leaseDue(at, limit, owner, leaseMs) {
      const r = await pool.query<Row>(
        `UPDATE cases SET lease_owner = $1, lease_until = $2 WHERE id IN (
           SELECT id FROM cases WHERE next_check_at IS NOT NULL AND next_check_at <= $3 AND (lease_until IS NULL OR lease_until < $3)
           ORDER BY next_check_at LIMIT $4 FOR UPDATE SKIP LOCKED)
         RETURNING ${CASE_COLS}`,
        [owner, at + leaseMs, at, limit],
      );
      return r.rows.map(toCase).sort((a, b) => (a.next_check_at ?? 0) - (b.next_check_at ?? 0));
    },
    async releaseWatchLeases(owner) {
      const r = await pool.query(
        'UPDATE cases SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = $1',
        [owner],
      );
      return r.rowCount ?? 0;
    },
    async rescheduleOpen(at, spreadMs) {
      const r = await pool.query(
        'UPDATE cases SET next_check_at = $1 + floor(random() * $2)::bigint WHERE next_check_at IS NOT NULL AND next_check_at > $1',
        [at, Math.max(1, Math.floor(spreadMs))],
      );
      return r.rowCount ?? 0;
    },
    async reserveMessage(m) {
      const r = await pool.query(RESERVE_MESSAGE, messageValues(m));
      return r.rowCount === 1;
    },
    async updateMessage(m) {
      await pool.query(
        'UPDATE messages SET ref_id = $3, state = $4, rendered_version = $5, error = $6, posted_at = $7 WHERE case_id = $1 AND target = $2',
        [m.case_id, m.target, m.ref_id, m.state, m.rendered_version, m.error, m.posted_at],
      );
    },
    async listMessages(caseId) {
      return msgs('SELECT * FROM messages WHERE case_id = $1 ORDER BY seq', [caseId]);
    },
    async findMessageByRef(platform, refId) {
      return (
        await msgs('SELECT * FROM messages WHERE platform = $1 AND ref_id = $2', [platform, refId])
      )[0];
    },
    async staleMessages(limit) {
      return msgs(
        `SELECT m.* FROM messages m JOIN cases c ON c.id = m.case_id
         WHERE m.state = 'posting' OR (m.state = 'posted' AND m.rendered_version < c.version) LIMIT $1`,
        [limit],
      );
    },
    async orphanCases(before, limit) {
      const r = await pool.query<Row>(
        `SELECT ${CASE_COLS} FROM cases c WHERE c.status NOT IN ${TERMINAL} AND c.created_at < $1
         AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.case_id = c.id) LIMIT $2`,
        [before, limit],
      );
      return r.rows.map(toCase);
    },
    async appendHistory(caseId, e: HistoryEntry) {
      await pool.query(
        `INSERT INTO history (case_id, at, kind, detail)
         SELECT $1, $2, CASE WHEN n >= $5 - 1 AND $3 <> 'status' THEN 'history_capped' ELSE $3 END,
           CASE WHEN n >= $5 - 1 AND $3 <> 'status' THEN $6::jsonb ELSE $4::jsonb END
         FROM (SELECT count(*) AS n FROM history WHERE case_id = $1) h
         WHERE $3 = 'status' OR n < $5 - 1
           OR NOT EXISTS (SELECT 1 FROM history WHERE case_id = $1 AND kind = 'history_capped')`,
        [caseId, e.at, e.kind, JSON.stringify(e.detail), HISTORY_CAP, HISTORY_CAPPED_DETAIL],
      );
    },
    async listHistory(caseId) {
      return (
        await pool.query<HistoryEntry>(
          'SELECT at, kind, detail FROM history WHERE case_id = $1 ORDER BY seq',
          [caseId],
        )
      ).rows;
    },
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
    async settleDelivery(id, owner, o) {
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
    },
    async listDeliveries(caseId) {
      return (
        await pool.query<NotifyDelivery>(
          `SELECT ${DELIVERY_COLS} FROM notify_outbox WHERE case_id = $1 ORDER BY created_at, seq`,
          [caseId],
        )
      ).rows;
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
    async countByStatus() {
      const r = await pool.query<{ status: string; n: number }>(
        'SELECT status, count(*)::int AS n FROM cases GROUP BY status',
      );
      return Object.fromEntries(r.rows.map((x) => [x.status, x.n]));
    },
    async openStats() {
      const r = await pool.query<{
        open: number;
        oldest: string | null;
        undelivered: number | null;
      }>(
        `SELECT count(*)::int AS open, min(created_at) AS oldest,
        sum(CASE WHEN EXISTS (SELECT 1 FROM messages m WHERE m.case_id = c.id AND m.state = 'posted') THEN 0 ELSE 1 END)::int AS undelivered
        FROM cases c WHERE status NOT IN ${TERMINAL}`,
      );
      const row = r.rows[0];
      return {
        open: row?.open ?? 0,
        oldestCreatedAt: row?.oldest == null ? null : Number(row.oldest),
        undelivered: row?.undelivered ?? 0,
      };
    },
    async close() {
      await pool.end();
    },
  };
}
