/** SQLite: the submit claim of a case and the poll leases of the watcher (columns of the case row). */
import type Database from 'better-sqlite3';
import type { ClaimRows, HeldCase, WatchRows, WatchWrite } from '../store.ts';
import type { HistoryEntry } from '../types.ts';
import type { AddHistory } from './history.ts';
import { type CaseRow, TERMINAL, toCase } from './rows.ts';

/** (case id, holder): releases the claim when holder holds it (a status change writes it too). */
export function releaseClaimStatement(db: Database.Database): Database.Statement<[string, string]> {
  return db.prepare(
    'UPDATE cases SET claim_holder = NULL, claim_until = NULL WHERE id = ? AND claim_holder = ?',
  );
}

export function sqliteClaims(
  db: Database.Database,
  deps: {
    release: Database.Statement<[string, string]>;
    addHistory: AddHistory;
    now: () => number;
  },
): ClaimRows {
  const claim = db.prepare(`UPDATE cases SET claim_holder = ?, claim_until = ? WHERE id = ?
    AND claim_holder IS NULL AND status NOT IN ${TERMINAL}`);
  const takeOver = db.prepare(`UPDATE cases SET claim_holder = ?, claim_until = ? WHERE id = ?
    AND claim_holder = ? AND claim_until < ? AND status NOT IN ${TERMINAL}`);
  // The claim and the tap's history row: one commit.
  const claimTx = db.transaction(
    (id: string, holder: string, until: number, history: HistoryEntry | undefined) => {
      if (claim.run(holder, until, id).changes !== 1) return false;
      if (history) deps.addHistory(id, history);
      return true;
    },
  );
  return {
    async claimCase(id, holder, until, history) {
      return claimTx(id, holder, until, history);
    },
    async takeOverClaim(id, expiredHolder, holder, until) {
      return takeOver.run(holder, until, id, expiredHolder, deps.now()).changes === 1;
    },
    async releaseClaim(id, holder) {
      deps.release.run(id, holder);
    },
  };
}

type HeldRow = Omit<HeldCase, 'claim'> & {
  claim_holder: string | null;
  claim_until: number | null;
};

export function toHeld({ claim_holder, claim_until, ...r }: HeldRow): HeldCase {
  return { ...r, claim: claim_holder ? { holder: claim_holder, until: claim_until ?? 0 } : null };
}

/** Due and unleased, soonest first; `@skip` is a JSON list of origins whose poll slots are full. */
const DUE = `SELECT * FROM cases WHERE next_check_at IS NOT NULL AND next_check_at <= @at
  AND (lease_until IS NULL OR lease_until < @at)
  AND origin NOT IN (SELECT value FROM json_each(@skip)) ORDER BY next_check_at LIMIT @limit`;

// An ended case is never scheduled again, whatever a look read before it ended: a late watch
// write would have it polled without its credentials (wiped when it ended) and answered 401.
const WATCH_SET = `next_check_at = CASE WHEN status IN ${TERMINAL} THEN NULL ELSE @next_check_at END,
  etag = @etag, poll_failures = @poll_failures, lease_owner = NULL, lease_until = NULL`;

function watchStatements(db: Database.Database) {
  return {
    updateWatch: db.prepare(`UPDATE cases SET ${WATCH_SET} WHERE id = @id`),
    updateWatchIf: db.prepare(
      `UPDATE cases SET ${WATCH_SET} WHERE id = @id AND version = @version`,
    ),
    due: db.prepare<[{ at: number; limit: number; skip: string }], CaseRow>(DUE),
    // The lease is the next check too: a holder that dies leaves the case due when it ends.
    lease: db.prepare<[{ ids: string; owner: string; until: number }]>(
      `UPDATE cases SET lease_owner = @owner, lease_until = @until, next_check_at = @until
       WHERE id IN (SELECT value FROM json_each(@ids))`,
    ),
    // Not the document: the watcher keeps what a look at an unchanged case needs of it.
    held: db.prepare<[{ owner: string; holds: string }], HeldRow>(
      `SELECT c.id, c.version, c.case_id, c.origin, c.etag, c.secrets, c.claim_holder, c.claim_until
       FROM json_each(@holds) AS h JOIN cases AS c ON c.id = h.value ->> '$.id'
       WHERE c.lease_owner = @owner AND c.lease_until = h.value ->> '$.until'`,
    ),
    // A held case is due at its lease's end: given back, it is due within the spread instead.
    release: db.prepare<[{ owner: string; at: number; spread: number }]>(
      `UPDATE cases SET lease_owner = NULL, lease_until = NULL,
       next_check_at = min(next_check_at, @at + abs(random() % @spread)) WHERE lease_owner = @owner`,
    ),
    owners: db.prepare<[number], { owner: string }>(
      'SELECT DISTINCT lease_owner AS owner FROM cases WHERE lease_owner IS NOT NULL AND lease_until >= ?',
    ),
    // Not the cases a live lease holds: their holder is looking at them.
    reschedule: db.prepare(`UPDATE cases SET next_check_at = @now + abs(random() % @spread)
      WHERE next_check_at IS NOT NULL AND next_check_at > @now
      AND (lease_until IS NULL OR lease_until < @now)`),
  };
}

export function sqliteWatch(db: Database.Database): WatchRows {
  const q = watchStatements(db);
  const writeOne = (w: WatchWrite) => {
    const row = {
      id: w.id,
      next_check_at: w.next_check_at,
      etag: w.etag,
      poll_failures: w.poll_failures,
    };
    const st = w.version === undefined ? q.updateWatch : q.updateWatchIf;
    return st.run(w.version === undefined ? row : { ...row, version: w.version }).changes === 1;
  };
  const manyTx = db.transaction((ws: readonly WatchWrite[]) => ws.map(writeOne));
  // Read and lease in one transaction: the cases come back with the due time they were leased at.
  const leaseTx = db.transaction(
    (at: number, limit: number, skip: string, owner: string, until: number) => {
      const rows = q.due.all({ at, limit, skip });
      if (rows.length) q.lease.run({ ids: JSON.stringify(rows.map((r) => r.id)), owner, until });
      return rows;
    },
  );
  return {
    async updateWatch(id, w) {
      writeOne({ id, ...w });
    },
    async updateWatchMany(writes) {
      return writes.length ? manyTx(writes) : [];
    },
    async leaseDue(at, limit, owner, leaseMs, skipOrigins = []) {
      return leaseTx(at, limit, JSON.stringify(skipOrigins), owner, at + leaseMs).map(toCase);
    },
    async heldCases(owner, holds) {
      if (!holds.length) return [];
      return q.held.all({ owner, holds: JSON.stringify(holds) }).map(toHeld);
    },
    async releaseWatchLeases(owner, at, spreadMs) {
      return q.release.run({ owner, at, spread: Math.max(1, Math.floor(spreadMs)) }).changes;
    },
    async watchLeaseOwners(at) {
      return q.owners.all(at).map((r) => r.owner);
    },
    async rescheduleOpen(at, spreadMs) {
      return q.reschedule.run({ now: at, spread: Math.max(1, Math.floor(spreadMs)) }).changes;
    },
  };
}
