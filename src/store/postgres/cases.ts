/** PostgreSQL: reading case rows, and what /metrics counts. */
import type pg from 'pg';
import type { CaseRows } from '../store.ts';
import { CASE_COLS, type Row, TERMINAL, toCase } from './rows.ts';

/** Open cases with a card in any chat of a platform (the web inbox), newest first, each once. */
function openOnPlatform(pool: pg.Pool): CaseRows['listOpenOnPlatform'] {
  // The inbox's filters are in the read, so LIMIT counts matching cases only (see PlatformCasesQuery).
  return async ({ platform, limit, before, service, type, policy }) => {
    const r = await pool.query<Row>(
      `SELECT ${CASE_COLS} FROM cases c WHERE c.status NOT IN ${TERMINAL}
         AND EXISTS (SELECT 1 FROM messages m WHERE m.case_id = c.id AND m.platform = $1)
         AND ($5::text IS NULL OR c.origin IN ('http://' || $5::text, 'https://' || $5::text))
         AND ($6::text IS NULL OR c.doc->'hitl'->>'type' = $6::text)
         AND ($7::int = 0 OR ($7::int = 1 AND c.doc->'policy'->>'name' IS NULL)
           OR ($7::int = 2 AND c.doc->'policy'->>'name' = $8::text))
         AND (c.created_at < $2 OR (c.created_at = $2 AND c.id COLLATE "C" < $3 COLLATE "C"))
       ORDER BY c.created_at DESC, c.id COLLATE "C" DESC LIMIT $4`,
      [
        platform,
        before?.created_at ?? Number.MAX_SAFE_INTEGER,
        before?.id ?? '\uffff',
        Math.min(100, Math.max(1, limit)),
        service ?? null,
        type ?? null,
        policy === undefined ? 0 : policy === null ? 1 : 2,
        policy ?? null,
      ],
    );
    return r.rows.map(toCase);
  };
}

/** The case reads of this file. */
type CaseReads = Pick<
  CaseRows,
  | 'getCase'
  | 'getCaseByKey'
  | 'findCase'
  | 'listCases'
  | 'listOpenInChat'
  | 'listOpenOnPlatform'
  | 'orphanCases'
>;

export function pgCaseReads(pool: pg.Pool): CaseReads {
  const one = async (where: string, params: unknown[]) => {
    const r = (await pool.query<Row>(`SELECT ${CASE_COLS} FROM cases WHERE ${where}`, params))
      .rows[0];
    return r && toCase(r);
  };
  return {
    getCase: (id) => one('id = $1', [id]),
    getCaseByKey: (key) => one('key = $1', [key]),
    findCase: (origin, caseId) => one('origin = $1 AND case_id = $2', [origin, caseId]),
    async listCases({ open, limit, offset = 0 }) {
      const where = open ? `WHERE status NOT IN ${TERMINAL}` : '';
      return (
        await pool.query<Row>(
          `SELECT ${CASE_COLS} FROM cases ${where} ORDER BY created_at DESC LIMIT $1 OFFSET $2`,
          [limit, offset],
        )
      ).rows.map(toCase);
    },
    async listOpenInChat({ platform, address, limit, before }) {
      const cols = CASE_COLS.split(',')
        .map((c) => `c.${c.trim()}`)
        .join(', ');
      // Keyset paging over one chat's cards (index messages_chat), newest case first.
      const r = await pool.query<Row>(
        `SELECT ${cols} FROM messages m JOIN cases c ON c.id = m.case_id
         WHERE m.platform = $1 AND m.address = $2 AND c.status NOT IN ${TERMINAL}
           AND (c.created_at < $3 OR (c.created_at = $3 AND c.id COLLATE "C" < $4 COLLATE "C"))
         ORDER BY c.created_at DESC, c.id COLLATE "C" DESC LIMIT $5`,
        [
          platform,
          address,
          before?.created_at ?? Number.MAX_SAFE_INTEGER,
          before?.id ?? '\uffff',
          Math.min(100, Math.max(1, limit)),
        ],
      );
      return r.rows.map(toCase);
    },
    listOpenOnPlatform: openOnPlatform(pool),
    async orphanCases(before, limit) {
      const r = await pool.query<Row>(
        `SELECT ${CASE_COLS} FROM cases c WHERE c.status NOT IN ${TERMINAL} AND c.created_at < $1
         AND NOT EXISTS (SELECT 1 FROM messages m WHERE m.case_id = c.id) LIMIT $2`,
        [before, limit],
      );
      return r.rows.map(toCase);
    },
  };
}

export function pgCaseStats(pool: pg.Pool): Pick<CaseRows, 'countByStatus' | 'openStats'> {
  return {
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
  };
}
