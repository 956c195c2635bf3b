/** PostgreSQL: the history of cases, capped at HISTORY_CAP rows per case. */
import type pg from 'pg';
import { HISTORY_CAP, HISTORY_CAPPED_DETAIL, type HistoryRows } from '../store.ts';
import type { HistoryEntry } from '../types.ts';

/** Appends one history row, capped (a statement of its own). */
export type AppendHistory = (caseId: string, e: HistoryEntry) => Promise<void>;

/**
 * CTE parts that add the history rows in `$rows` (a JSON array) to case `$case` within the
 * statement, joined to `from` (a CTE that returns a row only when the step's write happened).
 * Rows that would reach HISTORY_CAP are not added here (`recorded` is false): the caller then
 * appends them one by one, where the cap and its summary row apply.
 */
export function historyParts(caseParam: string, rowsParam: string, from?: string) {
  return {
    ctes: `hn AS (SELECT count(*)::int AS n FROM history WHERE case_id = ${caseParam}),
      hi AS (INSERT INTO history (case_id, at, kind, detail)
        SELECT ${caseParam}, x.at, x.kind, x.detail FROM ${from ? `${from}, ` : ''}hn,
          jsonb_to_recordset(${rowsParam}::jsonb) AS x(at bigint, kind text, detail jsonb)
        WHERE hn.n + jsonb_array_length(${rowsParam}::jsonb) < ${HISTORY_CAP})`,
    recorded: `(SELECT n FROM hn) + jsonb_array_length(${rowsParam}::jsonb) < ${HISTORY_CAP}`,
  };
}

export function historyAppender(pool: pg.Pool): AppendHistory {
  return async (caseId, e) => {
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
}

export function pgHistory(pool: pg.Pool, appendHistory: AppendHistory): HistoryRows {
  return {
    appendHistory,
    async listHistory(caseId) {
      return (
        await pool.query<HistoryEntry>(
          'SELECT at, kind, detail FROM history WHERE case_id = $1 ORDER BY seq',
          [caseId],
        )
      ).rows;
    },
  };
}
