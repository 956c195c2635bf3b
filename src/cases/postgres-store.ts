/**
 * The Store for several replicas: PostgreSQL (pg). Claims and "post once" are single statements
 * the database serialises; due watch work is leased with FOR UPDATE SKIP LOCKED so replicas never
 * poll the same case at once, and a dead replica's leases simply lapse.
 */
import { randomBytes } from 'node:crypto';
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

/** The channel on which updateCase tells other replicas `<source>:<case id>`. */
const CHANGES_CHANNEL = 'hitl_case_changed';

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

/**
 * The compare-and-set update of a case; parameters from updateValues(). The claim is not written
 * (claims have their own statements), except that $11, when given, releases the holder's claim.
 */
const UPDATE_CASE = `UPDATE cases SET status = $2, version = $3, doc = $4, secrets = $5, next_check_at = $6, etag = $7,
  poll_failures = $8, updated_at = $9,
  claim_holder = CASE WHEN claim_holder = $11 THEN NULL ELSE claim_holder END,
  claim_until = CASE WHEN claim_holder = $11 THEN NULL ELSE claim_until END
  WHERE id = $1 AND version = $10`;

function updateValues(c: StoredCase, expected: number, releaseClaim?: string): unknown[] {
  return [
    c.id,
    c.status,
    c.version,
    JSON.stringify(c.doc),
    c.secrets,
    c.next_check_at,
    c.etag,
    c.poll_failures,
    c.updated_at,
    expected,
    releaseClaim ?? null,
  ];
}

/** JSON for jsonb_to_recordset: numbers whole (BIGINT columns), as `whole` does for parameters. */
const wholeJson = (rows: unknown[]) =>
  JSON.stringify(rows, (_k, v) => (typeof v === 'number' ? Math.round(v) : v));

/**
 * CTE parts that add the history rows in `$rows` (a JSON array) to case `$case` within the
 * statement, joined to `from` (a CTE that returns a row only when the step's write happened).
 * Rows that would reach HISTORY_CAP are not added here (`recorded` is false): the caller then
 * appends them one by one, where the cap and its summary row apply.
 */
function historyParts(caseParam: string, rowsParam: string, from?: string) {
  return {
    ctes: `hn AS (SELECT count(*)::int AS n FROM history WHERE case_id = ${caseParam}),
      hi AS (INSERT INTO history (case_id, at, kind, detail)
        SELECT ${caseParam}, x.at, x.kind, x.detail FROM ${from ? `${from}, ` : ''}hn,
          jsonb_to_recordset(${rowsParam}::jsonb) AS x(at bigint, kind text, detail jsonb)
        WHERE hn.n + jsonb_array_length(${rowsParam}::jsonb) < ${HISTORY_CAP})`,
    recorded: `(SELECT n FROM hn) + jsonb_array_length(${rowsParam}::jsonb) < ${HISTORY_CAP}`,
  };
}

const RESERVE_MESSAGE = `INSERT INTO messages (case_id, target, platform, address, ref_id, state, rendered_version, error, posted_at)
  VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9) ON CONFLICT DO NOTHING`;
const MESSAGE_COLS =
  'case_id, target, platform, address, ref_id, state, rendered_version, error, posted_at';
/** The message columns as a jsonb_to_recordset row type (a case's reservations in one parameter). */
const MESSAGE_RECORD =
  'case_id text, target text, platform text, address text, ref_id text, state text, rendered_version int, error text, posted_at bigint';

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
  // Names this store's own change notifications, which its listener skips (it heard them in-process).
  const changeSource = randomBytes(6).toString('hex');
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

  const appendHistory = async (caseId: string, e: HistoryEntry) => {
    await pool.query(
      `INSERT INTO history (case_id, at, kind, detail)
       SELECT $1, $2, CASE WHEN n >= $5 - 1 AND $3 <> 'status' THEN 'history_capped' ELSE $3 END,
         CASE WHEN n >= $5 - 1 AND $3 <> 'status' THEN $6::jsonb ELSE $4::jsonb END
       FROM (SELECT count(*) AS n FROM history WHERE case_id = $1) h
       WHERE $3 = 'status' OR n < $5 - 1
         OR NOT EXISTS (SELECT 1 FROM history WHERE case_id = $1 AND kind = 'history_capped')`,
      [caseId, e.at, e.kind, JSON.stringify(e.detail), HISTORY_CAP, HISTORY_CAPPED_DETAIL],
    );
  };

  return {
    kv,
    async createCase(c, intents) {
      // One statement: the case, its message reservations, its first history row and the posting
      // leases, or none of them (each part inserts only from the row the first one inserted).
      const params = values(c).map(whole);
      const ctes = [
        `c AS (INSERT INTO cases (${CASE_COLS}) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13,$14,$15,$16)
          ON CONFLICT (origin, case_id) DO NOTHING RETURNING id)`,
      ];
      if (intents?.messages.length) {
        params.push(wholeJson(intents.messages));
        ctes.push(`m AS (INSERT INTO messages (${MESSAGE_COLS}) SELECT x.* FROM c,
          jsonb_to_recordset($${params.length}::jsonb) AS x(${MESSAGE_RECORD}) ON CONFLICT DO NOTHING)`);
      }
      const h = intents?.history;
      if (h) {
        params.push(whole(h.at), h.kind, JSON.stringify(h.detail));
        const n = params.length;
        ctes.push(`h AS (INSERT INTO history (case_id, at, kind, detail)
          SELECT c.id, $${n - 2}::bigint, $${n - 1}::text, $${n}::jsonb FROM c)`);
      }
      if (intents?.leases?.length) {
        params.push(wholeJson(intents.leases));
        ctes.push(`k AS (INSERT INTO kv (k, v, until) SELECT x.key, x.value, x.until FROM c,
          jsonb_to_recordset($${params.length}::jsonb) AS x(key text, value text, until bigint)
          ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v, until = EXCLUDED.until)`);
      }
      const r = await pool.query<{ n: number }>(
        `WITH ${ctes.join(', ')} SELECT count(*)::int AS n FROM c`,
        params,
      );
      // The inserted row is `c` itself; only another intake's case has to be read.
      if (r.rows[0]?.n === 1) return { case: structuredClone(c), created: true };
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
    async updateCase(c, expected, outbox, step) {
      // One statement: the deliveries and history rows are inserted only from the row the
      // compare-and-set updated, and the claim release is part of that update.
      const params = updateValues(c, expected, step?.releaseClaim);
      const ctes = [`u AS (${UPDATE_CASE} RETURNING id)`];
      if (outbox?.length) {
        params.push(JSON.stringify(outbox));
        ctes.push(`ins AS (INSERT INTO notify_outbox (${DELIVERY_COLS}) SELECT d.* FROM u,
          jsonb_to_recordset($${params.length}::jsonb) AS d(${DELIVERY_RECORD}) ON CONFLICT DO NOTHING)`);
      }
      let recorded = 'true';
      if (step?.history?.length) {
        params.push(wholeJson(step.history));
        const h = historyParts('$1', `$${params.length}`, 'u');
        ctes.push(h.ctes);
        recorded = h.recorded;
      }
      // Other replicas hear of the change at commit (their /wait requests wake on it).
      params.push(`${changeSource}:${c.id}`);
      const notify = `(SELECT pg_notify('${CHANGES_CHANNEL}', $${params.length}) FROM u)`;
      const r = await pool.query<{ n: number; recorded: boolean }>(
        `WITH ${ctes.join(', ')} SELECT (SELECT count(*)::int FROM u) AS n, ${recorded} AS recorded, ${notify} AS notified`,
        params,
      );
      const row = r.rows[0];
      if (row?.n !== 1) return false;
      if (!row.recorded) for (const h of step?.history ?? []) await appendHistory(c.id, h);
      return true;
    },
    async updateWatch(id, w) {
      await pool.query(
        'UPDATE cases SET next_check_at = $2, etag = $3, poll_failures = $4, lease_owner = NULL, lease_until = NULL WHERE id = $1',
        [id, w.next_check_at, w.etag, w.poll_failures],
      );
    },
    async claimCase(id, holder, until, history) {
      const claim = `UPDATE cases SET claim_holder = $2, claim_until = $3 WHERE id = $1 AND claim_holder IS NULL AND status NOT IN ${TERMINAL}`;
      if (!history) return (await pool.query(claim, [id, holder, until])).rowCount === 1;
      // One statement: the claim and the tap's history row.
      const h = historyParts('$1', '$4', 'c');
      const r = await pool.query<{ n: number; recorded: boolean }>(
        `WITH c AS (${claim} RETURNING id), ${h.ctes}
         SELECT (SELECT count(*)::int FROM c) AS n, ${h.recorded} AS recorded`,
        [id, holder, until, wholeJson([history])],
      );
      const row = r.rows[0];
      if (row?.n !== 1) return false;
      if (!row.recorded) await appendHistory(id, history);
      return true;
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
    async updateMessage(m, step) {
      const update =
        'UPDATE messages SET ref_id = $3, state = $4, rendered_version = $5, error = $6, posted_at = $7 WHERE case_id = $1 AND target = $2';
      const params: unknown[] = [
        m.case_id,
        m.target,
        m.ref_id,
        m.state,
        m.rendered_version,
        m.error,
        m.posted_at,
      ];
      if (!step) {
        await pool.query(update, params);
        return;
      }
      // One statement: the message, its history rows and the release of its posting lease.
      const ctes = [`mu AS (${update})`];
      if (step.releaseLease && step.leaseOwner) {
        params.push(step.releaseLease, step.leaseOwner);
        ctes.push(`kd AS (DELETE FROM kv WHERE k = $8 AND v = $9)`);
      }
      let recorded = 'true';
      if (step.history?.length) {
        params.push(wholeJson(step.history));
        const h = historyParts('$1', `$${params.length}`);
        ctes.push(h.ctes);
        recorded = h.recorded;
      }
      const r = await pool.query<{ recorded: boolean }>(
        `WITH ${ctes.join(', ')} SELECT ${recorded} AS recorded`,
        params,
      );
      if (!r.rows[0]?.recorded)
        for (const h of step.history ?? []) await appendHistory(m.case_id, h);
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
    appendHistory,
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
    async publishChange(topic) {
      await pool.query('SELECT pg_notify($1, $2)', [CHANGES_CHANNEL, `${changeSource}:${topic}`]);
    },
    async listenChanges(onChange) {
      let client: pg.Client | undefined;
      let stopped = false;
      let retry: NodeJS.Timeout | undefined;
      const connect = async (again: boolean): Promise<void> => {
        const c = new pg.Client({ connectionString: url, types });
        let lost = false;
        const reconnect = () => {
          if (lost || stopped) return;
          lost = true;
          client = undefined;
          c.end().catch(() => {});
          retry = setTimeout(() => void connect(true), 1000);
          retry.unref();
        };
        // A dropped connection is heard here and retried every second; waiters re-read once it is back.
        c.on('error', (err) => {
          options.onError?.(err);
          reconnect();
        });
        c.on('end', reconnect);
        c.on('notification', (n) => {
          const payload = n.payload ?? '';
          const i = payload.indexOf(':');
          if (i > 0 && payload.slice(0, i) !== changeSource) onChange(payload.slice(i + 1));
        });
        try {
          await c.connect();
          await c.query(`LISTEN ${CHANGES_CHANNEL}`);
        } catch (err) {
          options.onError?.(err instanceof Error ? err : new Error(String(err)));
          reconnect();
          return;
        }
        if (stopped) {
          await c.end().catch(() => {});
          return;
        }
        client = c;
        if (again) onChange(null);
      };
      // A first connection that fails is retried like a lost one (waiters re-read once it is up).
      await connect(false);
      return async () => {
        stopped = true;
        clearTimeout(retry);
        await client?.end().catch(() => {});
      };
    },
    async close() {
      await pool.end();
    },
  };
}
