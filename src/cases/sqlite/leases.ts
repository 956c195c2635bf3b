/** SQLite: the submit claim of a case and the poll leases of the watcher (columns of the case row). */
import type Database from 'better-sqlite3';
import type { ClaimRows, WatchRows } from '../store.ts';
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

function watchStatements(db: Database.Database) {
  return {
    updateWatch: db.prepare(`UPDATE cases SET next_check_at = @next_check_at, etag = @etag,
      poll_failures = @poll_failures, lease_owner = NULL, lease_until = NULL WHERE id = @id`),
    due: db.prepare<
      [number, number, number],
      CaseRow
    >(`SELECT * FROM cases WHERE next_check_at IS NOT NULL
      AND next_check_at <= ? AND (lease_until IS NULL OR lease_until < ?) ORDER BY next_check_at LIMIT ?`),
    dueSkipping: db.prepare<[number, number, string, number], CaseRow>(
      `SELECT * FROM cases WHERE next_check_at IS NOT NULL
      AND next_check_at <= ? AND (lease_until IS NULL OR lease_until < ?)
      AND origin NOT IN (SELECT value FROM json_each(?)) ORDER BY next_check_at LIMIT ?`,
    ),
    lease: db.prepare('UPDATE cases SET lease_owner = ?, lease_until = ? WHERE id = ?'),
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
  const leaseTx = db.transaction(
    (at: number, limit: number, owner: string, leaseMs: number, skip: readonly string[]) => {
      const rows = skip.length
        ? q.dueSkipping.all(at, at, JSON.stringify(skip), limit)
        : q.due.all(at, at, limit);
      for (const r of rows) q.lease.run(owner, at + leaseMs, r.id);
      return rows.map(toCase);
    },
  );
  return {
    async updateWatch(id, w) {
      q.updateWatch.run({ id, ...w });
    },
    async leaseDue(at, limit, owner, leaseMs, skipOrigins = []) {
      return leaseTx(at, limit, owner, leaseMs, skipOrigins);
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
