/** How a case is stored in SQLite: one row, the document as JSON text. */
import type { CaseRowOf } from '../case-row.ts';
import type { StoredCase } from '../types.ts';

export type CaseRow = CaseRowOf<string>;

/** The statuses after which nothing changes, as an SQL list. */
export const TERMINAL = "('completed','expired','cancelled')";

export function toCase(r: CaseRow): StoredCase {
  return {
    id: r.id,
    key: r.key,
    origin: r.origin,
    case_id: r.case_id,
    target: r.target,
    status: r.status as StoredCase['status'],
    version: r.version,
    doc: JSON.parse(r.doc),
    secrets: r.secrets,
    next_check_at: r.next_check_at,
    etag: r.etag,
    poll_failures: r.poll_failures,
    claim: r.claim_holder ? { holder: r.claim_holder, until: r.claim_until ?? 0 } : null,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

/** The named parameters of a case row. */
export function caseParams(c: StoredCase): CaseRow {
  return {
    id: c.id,
    key: c.key,
    origin: c.origin,
    case_id: c.case_id,
    target: c.target,
    status: c.status,
    version: c.version,
    doc: JSON.stringify(c.doc),
    secrets: c.secrets,
    next_check_at: c.next_check_at,
    etag: c.etag,
    poll_failures: c.poll_failures,
    claim_holder: c.claim?.holder ?? null,
    claim_until: c.claim?.until ?? null,
    created_at: c.created_at,
    updated_at: c.updated_at,
  };
}
