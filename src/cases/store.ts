/** The Store interface: SQLite (default) and PostgreSQL (replicas) implement it and pass runStoreContract. */
import type { KeyValue } from '../adapter.ts';
import type { HistoryEntry, StoredCase, StoredMessage } from './types.ts';

/** Persistence for cases, their messages, history, watch leases and adapters' key-values. */
export interface Store {
  /** Inserts a case unless (origin, case_id) exists; returns the stored one either way. */
  createCase(c: StoredCase): Promise<{ case: StoredCase; created: boolean }>;
  getCase(id: string): Promise<StoredCase | undefined>;
  getCaseByKey(key: string): Promise<StoredCase | undefined>;
  findCase(origin: string, caseId: string): Promise<StoredCase | undefined>;
  listCases(query: { open?: boolean; limit: number; offset?: number }): Promise<StoredCase[]>;
  /** Writes `c` when the stored version is `expectedVersion` (compare-and-set); false when it moved. */
  updateCase(c: StoredCase, expectedVersion: number): Promise<boolean>;
  /** Updates only the watch bookkeeping (no version bump): next check, ETag, failure count, lease release. */
  updateWatch(
    id: string,
    watch: { next_check_at: number | null; etag: string | null; poll_failures: number },
  ): Promise<void>;
  /**
   * Takes the submit claim when nobody holds a live one and the case is open. An expired claim is
   * not taken over here: its submit outcome is unknown and must be settled first (see takeOverClaim).
   */
  claimCase(id: string, holder: string, until: number): Promise<boolean>;
  /** Takes over an expired claim (after a poll showed the case still open). */
  takeOverClaim(id: string, expiredHolder: string, holder: string, until: number): Promise<boolean>;
  /** Releases the claim when `holder` holds it. */
  releaseClaim(id: string, holder: string): Promise<void>;
  /**
   * Leases up to `limit` open cases whose next check is due, for `leaseMs`; other replicas skip
   * them until the lease ends (a dead replica's work comes back by itself).
   */
  leaseDue(now: number, limit: number, owner: string, leaseMs: number): Promise<StoredCase[]>;
  /** Brings every open case's next check forward to within [now, now + spreadMs) (start-up re-poll, spread out). */
  rescheduleOpen(now: number, spreadMs: number): Promise<number>;
  /** Reserves the (case, target) message slot; false when another process already did (post once). */
  reserveMessage(m: StoredMessage): Promise<boolean>;
  updateMessage(m: StoredMessage): Promise<void>;
  listMessages(caseId: string): Promise<StoredMessage[]>;
  findMessageByRef(platform: string, refId: string): Promise<StoredMessage | undefined>;
  /** Messages whose card is behind their case's version or not yet posted (reconciled at start-up). */
  staleMessages(limit: number): Promise<StoredMessage[]>;
  appendHistory(caseId: string, entry: HistoryEntry): Promise<void>;
  listHistory(caseId: string): Promise<HistoryEntry[]>;
  /** Key-values with expiry, shared by replicas. */
  kv: KeyValue;
  /** A consistent count of cases by status (for /metrics). */
  countByStatus(): Promise<Record<string, number>>;
  close(): Promise<void>;
}
