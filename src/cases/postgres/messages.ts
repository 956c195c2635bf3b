/** PostgreSQL: the message slot of each (case, target) and its delivery state. */
import type pg from 'pg';
import type { MessageRows } from '../store.ts';
import type { HistoryEntry, StoredMessage } from '../types.ts';
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

function messageWrites(
  pool: pg.Pool,
  appendHistory: AppendHistory,
): Pick<MessageRows, 'reserveMessage' | 'updateMessage'> {
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
      const { sql, params } = stepStatement(m, step);
      const r = await pool.query<{ recorded: boolean }>(prepared(sql, params));
      if (!r.rows[0]?.recorded)
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
