/** The Store interface: SQLite (default) and PostgreSQL (replicas) implement it and pass runStoreContract. */
import type { KeyValue } from '../adapter.ts';
import type { HistoryEntry, StoredCase, StoredMessage } from './types.ts';

/** Most history rows one case keeps (a flood of refused taps or events cannot grow it further). */
export const HISTORY_CAP = 500;

/** The summary row written in place of the HISTORY_CAP-th row. */
export const HISTORY_CAPPED_DETAIL = JSON.stringify({
  message: `history capped at ${HISTORY_CAP} rows; later entries other than status changes are not kept`,
});

/** Cases: intake, reads, the compare-and-set change, and what /metrics counts. */
export interface CaseRows {
  /**
   * Inserts a case unless (origin, case_id) exists; returns the stored one either way. The first
   * delivery intents (its message reservations and its first history row) are written in the same
   * transaction, so a crash or a full disk never leaves a case that nothing will ever post.
   */
  createCase(
    c: StoredCase,
    intents?: {
      messages: StoredMessage[];
      history?: HistoryEntry;
      /** Key-values set in the same write (the posting leases of the reserved messages). */
      leases?: KvWrite[];
    },
  ): Promise<{ case: StoredCase; created: boolean }>;
  getCase(id: string): Promise<StoredCase | undefined>;
  getCaseByKey(key: string): Promise<StoredCase | undefined>;
  findCase(origin: string, caseId: string): Promise<StoredCase | undefined>;
  listCases(query: { open?: boolean; limit: number; offset?: number }): Promise<StoredCase[]>;
  /**
   * Open cases with a card in one chat (`platform`, `address`), newest first (created_at, then
   * id), at most `limit` (capped at 100), after the `before` position when given (keyset paging).
   * Indexed by messages (platform, address): `/pending` in a chat reads only that chat's rows.
   */
  listOpenInChat(query: ChatCasesQuery): Promise<StoredCase[]>;
  /**
   * Open cases with a card in any chat of `platform`, each once, newest first, keyset paged like
   * listOpenInChat: the web inbox lists a person's cases across rooms without knowing the rooms.
   */
  listOpenOnPlatform(query: PlatformCasesQuery): Promise<StoredCase[]>;
  /**
   * Writes `c` when the stored version is `expectedVersion` (compare-and-set); false when it moved.
   * `outbox` deliveries are queued in the same write (one per case and event; a repeat is ignored),
   * so a status change and its notify delivery are stored together or not at all; `step` writes
   * (history rows, a claim release) go in the same commit too, and only when the case was written.
   * The submit claim is not part of the write: only claimCase, takeOverClaim, releaseClaim and
   * `step.releaseClaim` change it, so a write from an older copy never drops a live claim.
   */
  updateCase(
    c: StoredCase,
    expectedVersion: number,
    outbox?: NotifyDelivery[],
    step?: StepWrites,
  ): Promise<boolean>;
  /**
   * Open cases created before `before` that have no message at all: left by a version that stored
   * the case and its messages in two writes (a crash between them). Reconcile posts their cards.
   */
  orphanCases(before: number, limit: number): Promise<StoredCase[]>;
  /** A consistent count of cases by status (for /metrics). */
  countByStatus(): Promise<Record<string, number>>;
  /** Open cases: how many, when the oldest was taken in, and how many no target shows yet (for /metrics). */
  openStats(): Promise<OpenStats>;
}

/** Which chat's open cases, and which page of them (store.listOpenInChat). */
export interface ChatCasesQuery {
  platform: string;
  address: string;
  limit: number;
  /** The last case of the previous page: the page starts after it. */
  before?: { created_at: number; id: string } | undefined;
}

/**
 * listOpenOnPlatform's query: the inbox's filters are part of the read, so the page limit and the
 * cursor count only matching cases (a filtered page is never short while matches come later).
 */
export interface PlatformCasesQuery extends Omit<ChatCasesQuery, 'address'> {
  /** Only cases of the HITL service at this host (the host of the case's origin, with its port). */
  service?: string | undefined;
  /** Only cases of this type (hitl.type: approval, selection, ...). */
  type?: string | undefined;
  /** Only cases whose approval policy carries this name; null: only cases without a policy. */
  policy?: string | null | undefined;
}

/** The submit claim of a case: one tap submits at a time, across replicas. */
export interface ClaimRows {
  /**
   * Takes the submit claim when nobody holds a live one and the case is open. An expired claim is
   * not taken over here: its submit outcome is unknown and must be settled first (see takeOverClaim).
   * `history` (the tap's row) is written in the same commit when the claim is taken.
   */
  claimCase(id: string, holder: string, until: number, history?: HistoryEntry): Promise<boolean>;
  /** Takes over an expired claim (after a poll showed the case still open). */
  takeOverClaim(id: string, expiredHolder: string, holder: string, until: number): Promise<boolean>;
  /** Releases the claim when `holder` holds it. */
  releaseClaim(id: string, holder: string): Promise<void>;
}

/** Watch bookkeeping and poll leases: which replica polls which case when. */
export interface WatchRows {
  /** Updates only the watch bookkeeping (no version bump): next check, ETag, failure count, lease release. */
  updateWatch(
    id: string,
    watch: { next_check_at: number | null; etag: string | null; poll_failures: number },
  ): Promise<void>;
  /**
   * Several watch-row writes (as updateWatch) in one commit, one statement on PostgreSQL: the
   * watcher's polls that end together. A write with `version` lands only while the case is still
   * at that version (the poll used the leased copy: a case that changed since is read again).
   * The ids are distinct. Answers, per write in order, whether it landed.
   */
  updateWatchMany(writes: readonly WatchWrite[]): Promise<boolean[]>;
  /**
   * Leases up to `limit` open cases whose next check is due, for `leaseMs`; other replicas skip
   * them until the lease ends. The lease end is also their next check, so a holder that dies leaves
   * them due then, and a holder that looks again within its lease writes nothing (it holds them).
   * They come back soonest first, with `next_check_at` the time they were due. Cases whose service
   * origin is in `skipOrigins` (all its poll slots taken here) are left due and unleased.
   */
  leaseDue(
    now: number,
    limit: number,
    owner: string,
    leaseMs: number,
    skipOrigins?: readonly string[],
  ): Promise<StoredCase[]>;
  /**
   * Those of `holds` that `owner` still holds under that very lease (`until` as leaseDue set it),
   * as much of each as a look at an unchanged case needs: any watch write, a release or another
   * lease since has ended the hold. A read.
   */
  heldCases(
    owner: string,
    holds: ReadonlyArray<{ id: string; until: number }>,
  ): Promise<HeldCase[]>;
  /** Brings every open case's next check forward to within [now, now + spreadMs) (start-up re-poll, spread out). */
  rescheduleOpen(now: number, spreadMs: number): Promise<number>;
  /**
   * Gives back every watch lease `owner` holds (a process stopping, or gone), so others poll its
   * cases now: each is due within [now, now + spreadMs) unless it was due sooner.
   */
  releaseWatchLeases(owner: string, now: number, spreadMs: number): Promise<number>;
  /** The owners of poll leases still live at `now` (a start-up pass gives back those of dead owners). */
  watchLeaseOwners(now: number): Promise<string[]>;
}

/** What WatchRows.heldCases reads of a held case: enough to poll it (not its document). */
export type HeldCase = Pick<
  StoredCase,
  'id' | 'version' | 'case_id' | 'origin' | 'etag' | 'secrets' | 'claim'
>;

/** One write of WatchRows.updateWatchMany. */
export interface WatchWrite {
  id: string;
  next_check_at: number | null;
  etag: string | null;
  poll_failures: number;
  /** Written only while the case is at this version; absent: written whatever the version. */
  version?: number;
}

/** The cards of cases: one message slot per (case, target). */
export interface MessageRows {
  /** Reserves the (case, target) message slot; false when another process already did (post once). */
  reserveMessage(m: StoredMessage): Promise<boolean>;
  /**
   * Writes a message's delivery state; `step` history rows and the release of a posting lease
   * (`releaseLease`: deleted when `leaseOwner` holds it) go in the same commit.
   */
  updateMessage(
    m: StoredMessage,
    step?: { history?: HistoryEntry[]; releaseLease?: string; leaseOwner?: string },
  ): Promise<void>;
  listMessages(caseId: string): Promise<StoredMessage[]>;
  findMessageByRef(platform: string, refId: string): Promise<StoredMessage | undefined>;
  /** Messages whose card is behind their case's version or not yet posted (reconciled at start-up). */
  staleMessages(limit: number): Promise<StoredMessage[]>;
}

/** The audit history of cases. */
export interface HistoryRows {
  /**
   * Appends to a case's history, at most HISTORY_CAP rows per case: the last row kept is a
   * "history_capped" summary and later rows are dropped, except status changes (few by nature).
   */
  appendHistory(caseId: string, entry: HistoryEntry): Promise<void>;
  listHistory(caseId: string): Promise<HistoryEntry[]>;
}

/** Key-values with expiry, shared by replicas (leases, marks, keys): the coordination tool. */
export interface KeyValueRows {
  kv: KeyValue;
}

/** The notify_url outbox. */
export interface OutboxRows {
  /** Queues a notify delivery; false when the case already has one for this event. */
  enqueueDelivery(d: NotifyDelivery): Promise<boolean>;
  /**
   * Leases up to `limit` pending deliveries whose next attempt is due, for `leaseMs`, counting the
   * attempt; other replicas skip them until the lease ends (a dead replica's work comes back).
   */
  leaseDeliveries(
    now: number,
    limit: number,
    owner: string,
    leaseMs: number,
  ): Promise<NotifyDelivery[]>;
  /**
   * Records how an attempt ended and releases the lease. "delivered" always lands; a retry or a
   * give-up lands only while `owner` still holds the lease.
   */
  settleDelivery(id: string, owner: string, outcome: DeliveryOutcome): Promise<void>;
  listDeliveries(caseId: string): Promise<NotifyDelivery[]>;
}

/** Retention: what is deleted once it is no longer needed. */
export interface RetentionRows {
  /**
   * Deletes up to `limit` final cases last changed before `before`, with their messages, history
   * and notify deliveries (retention); returns how many cases went.
   */
  purgeClosed(before: number, limit: number): Promise<number>;
  /** Deletes expired key-values (leases, claims, de-duplication marks); returns how many. */
  purgeExpiredKv(now: number): Promise<number>;
  /**
   * Drops the review URL of up to `limit` final cases whose doc.review_url_drop_at is at or before
   * `now`: their sealed secrets become `retired` (sealed secrets without it), doc.review_url_drop_at
   * goes, doc.review_url_retired_at is `now` (ISO) and the version is bumped (a copy read before
   * loses its compare-and-set; the final cards are edited again). updated_at stays (retention
   * counts from the end). Returns how many; a repeat finds none.
   */
  dropReviewUrls(now: number, retired: string, limit: number): Promise<number>;
}

/** Case changes written by other processes. */
export interface ChangeFeed {
  /**
   * Hears the case changes other processes write (PostgreSQL LISTEN/NOTIFY on its own connection):
   * `onChange(id)` per changed case, `onChange(null)` when changes may have been missed (the
   * connection was lost and is back). Absent where one process owns the store (SQLite). Resolves
   * to a function that stops listening.
   */
  listenChanges?(onChange: (id: string | null) => void): Promise<() => Promise<void>>;
  /**
   * Tells the other processes' listenChanges that these topics changed (changes that are not a
   * case's: a web chat room and the inbox), in one message. Absent where one process owns the store.
   */
  publishChange?(topics: string[]): Promise<void>;
}

/**
 * Persistence for cases, their messages, history, watch leases and adapters' key-values: every
 * concern above in one object. Callers that need one concern take its narrow interface.
 */
export type Store = CaseRows &
  ClaimRows &
  WatchRows &
  MessageRows &
  HistoryRows &
  KeyValueRows &
  OutboxRows &
  RetentionRows &
  ChangeFeed & {
    close(): Promise<void>;
    /**
     * Why the store no longer writes where it will be read again (its SQLite file deleted or
     * replaced under the process), or null. Absent where that cannot happen (PostgreSQL).
     */
    fileProblem?(): string | null;
  };

/** Writes that go in the same commit as a change of a case. */
export interface StepWrites {
  /** History rows of the case, in order (capped as appendHistory caps them). */
  history?: HistoryEntry[];
  /** Releases the submit claim when this holder holds it. */
  releaseClaim?: string;
}

/** A key-value written in the same commit as a case (expires at `until`, ms since the epoch). */
export interface KvWrite {
  key: string;
  value: string;
  until: number;
}

/** What Store.openStats answers. */
export interface OpenStats {
  open: number;
  /** created_at of the oldest open case (ms), null when none is open. */
  oldestCreatedAt: number | null;
  /** Open cases without a posted message. */
  undelivered: number;
}

/** State of a notify delivery in the outbox. */
export type DeliveryState = 'pending' | 'delivered' | 'failed';

/** One notify_url delivery as the outbox keeps it: the body is frozen at the event and signed as is. */
export interface NotifyDelivery {
  /** Sent as X-Hitl-Relay-Delivery; receivers de-duplicate on it. */
  id: string;
  /** The relay case id. */
  case_id: string;
  /** The status the case reached ("completed", ...); one delivery per (case, event). */
  event: string;
  url: string;
  /** The raw JSON body (the case view at the event). */
  body: string;
  state: DeliveryState;
  /** Attempts started so far (counted when leased, so a crash mid-attempt counts too). */
  attempts: number;
  /** When the next attempt is due (null once delivered or given up). */
  next_attempt_at: number | null;
  last_error: string | null;
  created_at: number;
  delivered_at: number | null;
}

/** How one delivery attempt ended. */
export type DeliveryOutcome =
  | { state: 'delivered'; at: number }
  /** `notAttempted`: the lease is given back without trying (its count is taken back too). */
  | { state: 'pending'; next_attempt_at: number; error: string; notAttempted?: boolean }
  | { state: 'failed'; error: string };
