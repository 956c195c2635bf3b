/**
 * PostgreSQL: the intake write of many cases as one statement (group commit, see group-commit.ts).
 * It does for every case of the group what the single statement of case-writes.ts does for one.
 */
import type pg from 'pg';
import type { KvWrite } from '../store.ts';
import type { HistoryEntry, StoredCase, StoredMessage } from '../types.ts';
import { MESSAGE_COLS, MESSAGE_RECORD } from './messages.ts';
import { prepared, whole, wholeJson } from './pool.ts';
import { CASE_COLS } from './rows.ts';

/** A case and what goes in with it (the intents of createCase). */
export interface CaseWrite {
  c: StoredCase;
  intents?: { messages: StoredMessage[]; history?: HistoryEntry; leases?: KvWrite[] };
}

const CASE_RECORD =
  'id text, key text, origin text, case_id text, target text, status text, version int, doc jsonb, secrets text, next_check_at bigint, etag text, poll_failures int, claim_holder text, claim_until bigint, created_at bigint, updated_at bigint';
const prefixed = (cols: string, p: string) =>
  cols
    .split(', ')
    .map((c) => `${p}.${c}`)
    .join(', ');

/** Each part inserts only for the cases the first part inserted (`owner` names the case). */
const CREATE_MANY = `WITH x AS (SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(${CASE_RECORD})),
  c AS (INSERT INTO cases (${CASE_COLS}) SELECT ${CASE_COLS} FROM x
    ON CONFLICT (origin, case_id) DO NOTHING RETURNING id),
  m AS (INSERT INTO messages (${MESSAGE_COLS}) SELECT ${prefixed(MESSAGE_COLS, 'y')}
    FROM jsonb_to_recordset($2::jsonb) AS y(owner text, ${MESSAGE_RECORD})
    WHERE y.owner IN (SELECT id FROM c) ON CONFLICT DO NOTHING),
  h AS (INSERT INTO history (case_id, at, kind, detail) SELECT y.owner, y.at, y.kind, y.detail
    FROM jsonb_to_recordset($3::jsonb) AS y(owner text, at bigint, kind text, detail jsonb)
    WHERE y.owner IN (SELECT id FROM c)),
  k AS (INSERT INTO kv (k, v, until) SELECT y.key, y.value, y.until
    FROM jsonb_to_recordset($4::jsonb) AS y(owner text, key text, value text, until bigint)
    WHERE y.owner IN (SELECT id FROM c) ON CONFLICT (k) DO UPDATE SET v = EXCLUDED.v, until = EXCLUDED.until)
  SELECT id FROM c`;

/** The case row as JSON: its columns whole numbers (BIGINT), its document exactly as given. */
function caseRecord(c: StoredCase) {
  const { claim, doc, ...cols } = c;
  const row: Record<string, unknown> = { doc, claim_holder: claim?.holder ?? null };
  for (const [k, v] of Object.entries(cols)) row[k] = whole(v);
  row.claim_until = whole(claim?.until ?? null);
  return row;
}

/** Inserts the cases that are new, with their intents; for each write, whether it created its case. */
export async function createMany(pool: pg.Pool, writes: CaseWrite[]): Promise<boolean[]> {
  const messages: unknown[] = [];
  const history: unknown[] = [];
  const leases: unknown[] = [];
  for (const { c, intents } of writes) {
    for (const m of intents?.messages ?? []) messages.push({ owner: c.id, ...m });
    const h = intents?.history;
    if (h) history.push({ owner: c.id, at: whole(h.at), kind: h.kind, detail: h.detail });
    for (const l of intents?.leases ?? []) leases.push({ owner: c.id, ...l });
  }
  const r = await pool.query<{ id: string }>(
    prepared(CREATE_MANY, [
      JSON.stringify(writes.map((w) => caseRecord(w.c))),
      wholeJson(messages),
      JSON.stringify(history),
      wholeJson(leases),
    ]),
  );
  const created = new Set(r.rows.map((x) => x.id));
  return writes.map((w) => created.has(w.c.id));
}
