/** How a case is stored in PostgreSQL: one row, the document as jsonb. */
import type { CaseRowOf } from '../case-row.ts';
import type { StoredCase } from '../types.ts';

export const CASE_COLS =
  'id, key, origin, case_id, target, status, version, doc, secrets, next_check_at, etag, poll_failures, claim_holder, claim_until, created_at, updated_at';

/** The statuses after which nothing changes, as an SQL list. */
export const TERMINAL = "('completed','expired','cancelled')";

export type Row = CaseRowOf<StoredCase['doc']>;

export function toCase(r: Row): StoredCase {
  const { claim_holder, claim_until, ...rest } = r;
  return {
    ...rest,
    status: r.status as StoredCase['status'],
    claim: claim_holder ? { holder: claim_holder, until: claim_until ?? 0 } : null,
  };
}

/** The parameters of a case row, in CASE_COLS order. */
export function values(c: StoredCase): unknown[] {
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
