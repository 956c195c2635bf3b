/** SQLite: the history of cases, capped at HISTORY_CAP rows per case. */
import type Database from 'better-sqlite3';
import { HISTORY_CAP, HISTORY_CAPPED_DETAIL, type HistoryRows } from '../store.ts';
import type { HistoryEntry } from '../types.ts';

/** Adds one history row within the caller's transaction (or on its own). */
export type AddHistory = (caseId: string, e: HistoryEntry) => void;

/** The capped insert: a statement, so other concerns' transactions can add rows too. */
export function historyWriter(db: Database.Database): AddHistory {
  const capped = db.prepare(`INSERT INTO history (case_id, at, kind, detail)
    SELECT @case_id, @at, CASE WHEN n >= @cap - 1 AND @kind <> 'status' THEN 'history_capped' ELSE @kind END,
      CASE WHEN n >= @cap - 1 AND @kind <> 'status' THEN @capped ELSE @detail END
    FROM (SELECT count(*) AS n FROM history WHERE case_id = @case_id)
    WHERE @kind = 'status' OR n < @cap - 1
      OR NOT EXISTS (SELECT 1 FROM history WHERE case_id = @case_id AND kind = 'history_capped')`);
  return (caseId, e) =>
    capped.run({
      case_id: caseId,
      at: e.at,
      kind: e.kind,
      detail: JSON.stringify(e.detail),
      cap: HISTORY_CAP,
      capped: HISTORY_CAPPED_DETAIL,
    });
}

/**
 * The first row of a case inserted in the same transaction: it has no rows yet, so the cap's
 * count (a scan of the case's rows) is skipped.
 */
export function firstHistoryWriter(db: Database.Database): AddHistory {
  const insert = db.prepare(
    'INSERT INTO history (case_id, at, kind, detail) VALUES (@case_id, @at, @kind, @detail)',
  );
  return (caseId, e) =>
    insert.run({ case_id: caseId, at: e.at, kind: e.kind, detail: JSON.stringify(e.detail) });
}

export function sqliteHistory(db: Database.Database, add: AddHistory): HistoryRows {
  const list = db.prepare<[string], { at: number; kind: string; detail: string }>(
    'SELECT at, kind, detail FROM history WHERE case_id = ? ORDER BY seq',
  );
  return {
    async appendHistory(caseId, e) {
      add(caseId, e);
    },
    async listHistory(caseId) {
      return list
        .all(caseId)
        .map((r) => ({ at: r.at, kind: r.kind, detail: JSON.parse(r.detail) }));
    },
  };
}
