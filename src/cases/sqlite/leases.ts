/** SQLite: the submit claim of a case and the poll leases of the watcher (columns of the case row). */
import type Database from 'better-sqlite3';
import type { ClaimRows, WatchRows, WatchWrite } from '../store.ts';
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

/** Due and unleased, soonest first; `@skip` is a JSON list of origins whose poll slots are full. */
const DUE = `SELECT id FROM cases WHERE next_check_at IS NOT NULL AND next_check_at <= @at
  AND (lease_until IS NULL OR lease_until < @at)
  AND origin NOT IN (SELECT value FROM json_each(@skip)) ORDER BY next_check_at LIMIT @limit`;

const WATCH_SET = `next_check_at = @next_check_at, etag = @etag, poll_failures = @poll_failures,
  lease_owner = NULL, lease_until = NULL`;

function watchStatements(db: Database.Database) {
  return {
    updateWatch: db.prepare(`UPDATE cases SET ${WATCH_SET} WHERE id = @id`),
    updateWatchIf: db.prepare(
      `UPDATE cases SET ${WATCH_SET} WHERE id = @id AND version = @version`,
    ),
    // One statement picks and leases (no transaction of a read and N writes).
    lease: db.prepare<
      [{ at: number; limit: number; skip: string; owner: string; until: number }],
      CaseRow
    >(
      `UPDATE cases SET lease_owner = @owner, lease_until = @until WHERE id IN (${DUE}) RETURNING *`,
    ),
    release: db.prepare(
      'UPDATE cases SET lease_owner = NULL, lease_until = NULL WHERE lease_owner = ?',
    ),
    owners: db.prepare<[number], { owner: string }>(
      'SELECT DISTINCT lease_owner AS owner FROM cases WHERE lease_owner IS NOT NULL AND lease_until >= ?',
    ),
    reschedule: db.prepare(`UPDATE cases SET next_check_at = @now + abs(random() % @spread)
      WHERE next_check_at IS NOT NULL AND next_check_at > @now`),
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
  return {
    async updateWatch(id, w) {
      writeOne({ id, ...w });
    },
    async updateWatchMany(writes) {
      return writes.length ? manyTx(writes) : [];
    },
    async leaseDue(at, limit, owner, leaseMs, skipOrigins = []) {
      // RETURNING gives no order: soonest due first, as the query picked them.
      return q.lease
        .all({ at, limit, skip: JSON.stringify(skipOrigins), owner, until: at + leaseMs })
        .map(toCase)
        .sort((a, b) => (a.next_check_at ?? 0) - (b.next_check_at ?? 0));
    },
    async releaseWatchLeases(owner) {
      return q.release.run(owner).changes;
    },
    async watchLeaseOwners(at) {
      return q.owners.all(at).map((r) => r.owner);
    },
    async rescheduleOpen(at, spreadMs) {
      return q.reschedule.run({ now: at, spread: Math.max(1, Math.floor(spreadMs)) }).changes;
    },
  };
}
