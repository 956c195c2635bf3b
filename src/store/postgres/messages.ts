/** PostgreSQL: the message slot of each (case, target) and its delivery state. */
import type pg from 'pg';
import { HISTORY_CAP, type MessageRows } from '../store.ts';
import type { HistoryEntry, StoredMessage } from '../types.ts';
import { GroupWriter } from './group-commit.ts';
import { type AppendHistory, historyParts } from './history.ts';
import { prepared, wholeJson } from './pool.ts';

export const MESSAGE_COLS =
  'case_id, target, platform, address, ref_id, state, rendered_version, error, posted_at';
/** The message columns as a jsonb_to_recordset row type (a case's reservations in one parameter). */
export const MESSAGE_RECORD =
  'case_id text, target text, platform text, address text, ref_id text, state text, rendered_version int, error text, posted_at bigint';

const UPDATE_MESSAGE =
  'UPDATE messages SET ref_id = $3, state = $4, rendered_version = $5, error = $6, posted_at = $7 WHERE case_id = $1 AND target = $2';

type MessageStep = { history?: HistoryEntry[]; releaseLease?: string; leaseOwner?: string };

/** A message's new state and its step (history rows, posting lease release). */
export interface MessageWrite {
  m: StoredMessage;
  step: MessageStep;
}

/** One statement: the message, its history rows and the release of its posting lease. */
function stepStatement(m: StoredMessage, step: MessageStep) {
  const { case_id, target, ref_id, state, rendered_version, error, posted_at } = m;
  const params: unknown[] = [case_id, target, ref_id, state, rendered_version, error, posted_at];
  const ctes = [`mu AS (${UPDATE_MESSAGE})`];
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
  return { sql: `WITH ${ctes.join(', ')} SELECT ${recorded} AS recorded`, params };
}

/** Each write's message update, lease release and history rows (only under the cap: `ok`). */
const UPDATE_MANY = `WITH x AS (SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(i int, case_id text,
    target text, ref_id text, state text, rendered_version int, error text, posted_at bigint,
    lease text, owner text, history jsonb)),
  mu AS (UPDATE messages m SET ref_id = x.ref_id, state = x.state, rendered_version = x.rendered_version,
    error = x.error, posted_at = x.posted_at FROM x WHERE m.case_id = x.case_id AND m.target = x.target),
  kd AS (DELETE FROM kv USING x WHERE kv.k = x.lease AND kv.v = x.owner),
  hn AS (SELECT x.i, x.case_id, x.history, (SELECT count(*) FROM history h WHERE h.case_id = x.case_id)
    + jsonb_array_length(x.history) < ${HISTORY_CAP} AS ok FROM x),
  hi AS (INSERT INTO history (case_id, at, kind, detail) SELECT hn.case_id, r.at, r.kind, r.detail
    FROM hn, jsonb_to_recordset(hn.history) AS r(at bigint, kind text, detail jsonb) WHERE hn.ok)
  SELECT i, ok FROM hn`;

/**
 * Updates the messages (at most one write per case: the history cap counts each case once);
 * for each write, whether its history rows went in (false: over the cap, the caller appends them).
 */
export async function updateMessagesMany(
  pool: pg.Pool,
  writes: MessageWrite[],
): Promise<boolean[]> {
  const rows = writes.map(({ m, step }, i) => ({
    i,
    case_id: m.case_id,
    target: m.target,
    ref_id: m.ref_id,
    state: m.state,
    rendered_version: m.rendered_version,
    error: m.error,
    posted_at: m.posted_at,
    lease: step.releaseLease && step.leaseOwner ? step.releaseLease : null,
    owner: step.releaseLease && step.leaseOwner ? step.leaseOwner : null,
    history: step.history ?? [],
  }));
  const r = await pool.query<{ i: number; ok: boolean }>(prepared(UPDATE_MANY, [wholeJson(rows)]));
  const ok = new Map(r.rows.map((x) => [x.i, x.ok]));
  return writes.map((w, i) => !w.step.history?.length || ok.get(i) === true);
}

/** A message step alone: whether its history rows went in (false: over the cap). */
async function updateOne(pool: pg.Pool, { m, step }: MessageWrite): Promise<boolean> {
  const { sql, params } = stepStatement(m, step);
  return !!(await pool.query<{ recorded: boolean }>(prepared(sql, params))).rows[0]?.recorded;
}

/** The posted (or failed) state of concurrent posts, grouped: one statement per group. */
function stepWriter(pool: pg.Pool) {
  return new GroupWriter<MessageWrite, boolean>({
    one: (w) => updateOne(pool, w),
    many: (ws) => updateMessagesMany(pool, ws),
    key: (w) => w.m.case_id,
    inFlight: 2,
    maxGroup: 64,
  });
}

function messageWrites(
  pool: pg.Pool,
  appendHistory: AppendHistory,
): Pick<MessageRows, 'reserveMessage' | 'updateMessage'> {
  const steps = stepWriter(pool);
  return {
    async reserveMessage(m) {
      const r = await pool.query(
        `INSERT INTO messages (${MESSAGE_COLS}) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9) ON CONFLICT DO NOTHING`,
        [
          m.case_id,
          m.target,
          m.platform,
          m.address,
          m.ref_id,
          m.state,
          m.rendered_version,
          m.error,
          m.posted_at,
        ],
      );
      return r.rowCount === 1;
    },
    async updateMessage(m, step) {
      if (!step) {
        const { case_id, target, ref_id, state, rendered_version, error, posted_at } = m;
        await pool.query(UPDATE_MESSAGE, [
          case_id,
          target,
          ref_id,
          state,
          rendered_version,
          error,
          posted_at,
        ]);
        return;
      }
      if (!(await steps.write({ m, step })))
        for (const h of step.history ?? []) await appendHistory(m.case_id, h);
    },
  };
}

function messageReads(
  pool: pg.Pool,
): Pick<MessageRows, 'listMessages' | 'findMessageByRef' | 'staleMessages'> {
  const msgs = async (sql: string, params: unknown[]) =>
    (await pool.query<StoredMessage & { seq?: number }>(sql, params)).rows.map(
      ({ seq: _s, ...m }) => m as StoredMessage,
    );
  return {
    listMessages: (caseId) =>
      msgs('SELECT * FROM messages WHERE case_id = $1 ORDER BY seq', [caseId]),
    async findMessageByRef(platform, refId) {
      return (
        await msgs('SELECT * FROM messages WHERE platform = $1 AND ref_id = $2', [platform, refId])
      )[0];
    },
    staleMessages: (limit) =>
      msgs(
        `SELECT m.* FROM messages m JOIN cases c ON c.id = m.case_id
         WHERE m.state = 'posting' OR (m.state = 'posted' AND m.rendered_version < c.version) LIMIT $1`,
        [limit],
      ),
  };
}

export function pgMessages(pool: pg.Pool, appendHistory: AppendHistory): MessageRows {
  return { ...messageWrites(pool, appendHistory), ...messageReads(pool) };
}
