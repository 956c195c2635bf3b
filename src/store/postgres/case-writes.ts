/**
 * PostgreSQL: the two writes of a case that carry other concerns with them, each one statement
 * (CTEs): intake (case, message reservations, first history row, posting leases) and the
 * compare-and-set change (case, outbox deliveries, history rows, claim release, change notice).
 */
import type pg from 'pg';
import type { CaseRows, NotifyDelivery, StepWrites } from '../store.ts';
import type { StoredCase } from '../types.ts';
import { type CaseWrite, createMany } from './create-many.ts';
import { GroupWriter } from './group-commit.ts';
import { type AppendHistory, historyParts } from './history.ts';
import { MESSAGE_COLS, MESSAGE_RECORD } from './messages.ts';
import { DELIVERY_COLS, DELIVERY_RECORD } from './outbox.ts';
import { prepared, whole, wholeJson } from './pool.ts';
import { CASE_COLS, type Row, toCase, values } from './rows.ts';

/** The channel on which updateCase tells other replicas `<source>:<case id>`. */
export const CHANGES_CHANNEL = 'hitl_case_changed';

type Intents = Parameters<CaseRows['createCase']>[1];

/** The intake statement: each part inserts only from the row the first one inserted. */
function createStatement(c: StoredCase, intents: Intents): { sql: string; params: unknown[] } {
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
  return { sql: `WITH ${ctes.join(', ')} SELECT count(*)::int AS n FROM c`, params };
}

/** One intake alone: whether it created its case. */
async function createOne(pool: pg.Pool, { c, intents }: CaseWrite): Promise<boolean> {
  const { sql, params } = createStatement(c, intents);
  return (await pool.query<{ n: number }>(prepared(sql, params))).rows[0]?.n === 1;
}

export function caseCreator(pool: pg.Pool): CaseRows['createCase'] {
  // Concurrent intakes, grouped: one statement (one commit) per group.
  const writer = new GroupWriter<CaseWrite, boolean>({
    one: (w) => createOne(pool, w),
    many: (ws) => createMany(pool, ws),
    key: (w) => `${w.c.origin}\n${w.c.case_id}`,
    inFlight: 2,
    maxGroup: 64,
  });
  return async (c, intents) => {
    // The inserted row is `c` itself; only another intake's case has to be read.
    if (await writer.write({ c, intents })) return { case: structuredClone(c), created: true };
    const other = await pool.query<Row>(
      `SELECT ${CASE_COLS} FROM cases WHERE origin = $1 AND case_id = $2`,
      [c.origin, c.case_id],
    );
    return { case: toCase(other.rows[0]!), created: false };
  };
}

/**
 * The compare-and-set update of a case. The claim is not written (claims have their own
 * statements), except that $11, when given, releases the holder's claim.
 */
const UPDATE_CASE = `UPDATE cases SET status = $2, version = $3, doc = $4, secrets = $5, next_check_at = $6, etag = $7,
  poll_failures = $8, updated_at = $9,
  claim_holder = CASE WHEN claim_holder = $11 THEN NULL ELSE claim_holder END,
  claim_until = CASE WHEN claim_holder = $11 THEN NULL ELSE claim_until END
  WHERE id = $1 AND version = $10`;

function updateValues(c: StoredCase, expected: number, releaseClaim?: string): unknown[] {
  const { id, status, version, doc, secrets, next_check_at, etag, poll_failures, updated_at } = c;
  return [
    id,
    status,
    version,
    JSON.stringify(doc),
    secrets,
    next_check_at,
    etag,
    poll_failures,
    updated_at,
    expected,
    releaseClaim ?? null,
  ];
}

/** The change statement: deliveries and history rows are inserted only from the updated row. */
function updateStatement(
  c: StoredCase,
  expected: number,
  outbox: NotifyDelivery[] | undefined,
  step: StepWrites | undefined,
  notice: string,
): { sql: string; params: unknown[] } {
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
  params.push(notice);
  const notify = `(SELECT pg_notify('${CHANGES_CHANNEL}', $${params.length}) FROM u)`;
  return {
    sql: `WITH ${ctes.join(', ')} SELECT (SELECT count(*)::int FROM u) AS n, ${recorded} AS recorded, ${notify} AS notified`,
    params,
  };
}

/** `changeSource` names this store's own change notices (its listener skips them). */
export function caseUpdater(
  pool: pg.Pool,
  appendHistory: AppendHistory,
  changeSource: string,
): CaseRows['updateCase'] {
  return async (c, expected, outbox, step) => {
    const { sql, params } = updateStatement(c, expected, outbox, step, `${changeSource}:${c.id}`);
    const row = (await pool.query<{ n: number; recorded: boolean }>(prepared(sql, params))).rows[0];
    if (row?.n !== 1) return false;
    if (!row.recorded) for (const h of step?.history ?? []) await appendHistory(c.id, h);
    return true;
  };
}
