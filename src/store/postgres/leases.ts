/** PostgreSQL: the submit claim of a case and the poll leases of the watcher (columns of the case row). */
import type pg from 'pg';
import type { ClaimRows, HeldCase, WatchRows } from '../store.ts';
import { type AppendHistory, historyParts } from './history.ts';
import { wholeJson } from './pool.ts';
import { CASE_COLS, type Row, TERMINAL, toCase } from './rows.ts';

const CLAIM = `UPDATE cases SET claim_holder = $2, claim_until = $3 WHERE id = $1 AND claim_holder IS NULL AND status NOT IN ${TERMINAL}`;

export function pgClaims(
  pool: pg.Pool,
  appendHistory: AppendHistory,
  now: () => number,
): ClaimRows {
  return {
    async claimCase(id, holder, until, history) {
      if (!history) return (await pool.query(CLAIM, [id, holder, until])).rowCount === 1;
      // One statement: the claim and the tap's history row.
      const h = historyParts('$1', '$4', 'c');
      const r = await pool.query<{ n: number; recorded: boolean }>(
        `WITH c AS (${CLAIM} RETURNING id), ${h.ctes}
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
  };
}

/** Poll leases: FOR UPDATE SKIP LOCKED, so replicas never poll the same case at once. */
export function pgWatch(pool: pg.Pool): WatchRows {
  return { ...watchWrites(pool), ...pollLeases(pool), heldCases: heldCases(pool) };
}

/** WatchRows.heldCases: the holds that still stand, without the document. */
function heldCases(pool: pg.Pool): WatchRows['heldCases'] {
  return async (owner, holds) => {
    if (!holds.length) return [];
    // Not the document: the watcher keeps what a look at an unchanged case needs of it.
    const r = await pool.query<
      Omit<HeldCase, 'claim'> & { claim_holder: string | null; claim_until: number | null }
    >(
      `SELECT c.id, c.version, c.case_id, c.origin, c.etag, c.secrets, c.claim_holder, c.claim_until
         FROM jsonb_to_recordset($2::jsonb) AS h(id text, until bigint)
         JOIN cases c ON c.id = h.id AND c.lease_until = h.until WHERE c.lease_owner = $1`,
      [owner, wholeJson([...holds])],
    );
    return r.rows.map(({ claim_holder, claim_until, ...x }) => ({
      ...x,
      claim: claim_holder ? { holder: claim_holder, until: claim_until ?? 0 } : null,
    }));
  };
}

/** The watch rows a look writes (each gives the lease back). */
/**
 * The next look a watch write sets: none for an ended case, whatever a look read before it ended
 * (a late write would have it polled without its credentials, wiped when it ended, and refused).
 */
const NEXT_CHECK = (v: string) =>
  `next_check_at = CASE WHEN status IN ${TERMINAL} THEN NULL ELSE ${v}::bigint END`;

function watchWrites(pool: pg.Pool): Pick<WatchRows, 'updateWatch' | 'updateWatchMany'> {
  return {
    async updateWatch(id, w) {
      await pool.query(
        `UPDATE cases SET ${NEXT_CHECK('$2')}, etag = $3, poll_failures = $4, lease_owner = NULL, lease_until = NULL WHERE id = $1`,
        [id, w.next_check_at, w.etag, w.poll_failures],
      );
    },
    async updateWatchMany(writes) {
      if (!writes.length) return [];
      // One statement for the lot; a write with a version lands only at that version.
      const r = await pool.query<{ id: string }>(
        `UPDATE cases c SET ${NEXT_CHECK('w.next_check_at')}, etag = w.etag,
           poll_failures = w.poll_failures, lease_owner = NULL, lease_until = NULL
         FROM jsonb_to_recordset($1::jsonb)
           AS w(id text, next_check_at bigint, etag text, poll_failures int, version int)
         WHERE c.id = w.id AND (w.version IS NULL OR c.version = w.version)
         RETURNING c.id`,
        [wholeJson(writes.map((w) => ({ ...w, version: w.version ?? null })))],
      );
      const landed = new Set(r.rows.map((x) => x.id));
      return writes.map((w) => landed.has(w.id));
    },
  };
}

/** Taking, holding and giving back poll leases. */
function pollLeases(
  pool: pg.Pool,
): Omit<WatchRows, 'updateWatch' | 'updateWatchMany' | 'heldCases'> {
  return {
    async leaseDue(at, limit, owner, leaseMs, skipOrigins = []) {
      // The lease is the next check too: a holder that dies leaves the case due when it ends.
      const r = await pool.query<Row & { due: string }>(
        `UPDATE cases SET lease_owner = $1, lease_until = $2, next_check_at = $2
         FROM (SELECT id AS due_id, next_check_at AS due FROM cases
           WHERE next_check_at IS NOT NULL AND next_check_at <= $3 AND (lease_until IS NULL OR lease_until < $3)
           AND NOT (origin = ANY($5::text[]))
           ORDER BY next_check_at LIMIT $4 FOR UPDATE SKIP LOCKED) d
         WHERE id = d.due_id
         RETURNING ${CASE_COLS}, d.due`,
        [owner, at + leaseMs, at, limit, skipOrigins],
      );
      // RETURNING gives no order: soonest due first, as the query picked them.
      return r.rows
        .map(({ due, ...row }) => ({ ...toCase(row as Row), next_check_at: Number(due) }))
        .sort((a, b) => a.next_check_at - b.next_check_at);
    },
    async releaseWatchLeases(owner, at, spreadMs) {
      // A held case is due at its lease's end: given back, it is due within the spread instead.
      const r = await pool.query(
        `UPDATE cases SET lease_owner = NULL, lease_until = NULL,
           next_check_at = least(next_check_at, $2 + floor(random() * $3)::bigint) WHERE lease_owner = $1`,
        [owner, at, Math.max(1, Math.floor(spreadMs))],
      );
      return r.rowCount ?? 0;
    },
    async watchLeaseOwners(at) {
      const r = await pool.query<{ owner: string }>(
        'SELECT DISTINCT lease_owner AS owner FROM cases WHERE lease_owner IS NOT NULL AND lease_until >= $1',
        [at],
      );
      return r.rows.map((x) => x.owner);
    },
    async rescheduleOpen(at, spreadMs) {
      const r = await pool.query(
        // Not the cases a live lease holds: their holder is looking at them.
        `UPDATE cases SET next_check_at = $1 + floor(random() * $2)::bigint
         WHERE next_check_at IS NOT NULL AND next_check_at > $1 AND (lease_until IS NULL OR lease_until < $1)`,
        [at, Math.max(1, Math.floor(spreadMs))],
      );
      return r.rowCount ?? 0;
    },
  };
}
