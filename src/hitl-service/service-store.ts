/**
 * Persistence of the HITL service: the async interface every replica-safe transition goes
 * through, and its SQLite implementation (the standalone demo and a single relay), on the asks_*
 * tables of the numbered migrations. The PostgreSQL one (service-store-postgres.ts) lets several
 * relay replicas share the asks service.
 */
import Database from 'better-sqlite3';
import { migrateSqlite } from '../store/migrate-sqlite.ts';
import { sqliteFileCheck } from '../store/sqlite/file-check.ts';
import type { ReviewCase, ReviewEventName, StoredEvent, Submission } from './types.ts';
import { TERMINAL_STATUSES } from './types.ts';

/** A stored case with the hashes of its two tokens and its version (bumped by every commit). */
export interface StoredReview {
  kase: ReviewCase;
  reviewHash: Buffer;
  /** Null when the case was created without inline submit. */
  submitHash: Buffer | null;
  version: number;
}

/** What every commit keeps current beside the case: its version and `dueAt` (null once final). */
export interface CaseState {
  version: number;
  dueAt: number | null;
}

/** An event not written yet: the store numbers it. */
export interface NewEvent {
  event: ReviewEventName;
  data: Record<string, unknown>;
}

/** What the service keeps; one implementation per database. */
export interface ServiceStore {
  /** Stores a new case (version 1). */
  insert(kase: ReviewCase, reviewHash: Buffer, submitHash: Buffer | null): Promise<void>;
  get(caseId: string): Promise<StoredReview | undefined>;
  /** The case's version and next due moment, without its data: all a poll answered 304 needs. */
  stateOf(caseId: string): Promise<CaseState | undefined>;
  /**
   * Compare-and-set: writes `kase` and appends `events` (numbered after the case's last) in one
   * transaction if the case is still at `version`; the written events, or null when another writer
   * (another replica) changed the case first and nothing was written.
   */
  commit(kase: ReviewCase, version: number, events: NewEvent[]): Promise<StoredEvent[] | null>;
  /** Ids of non-terminal cases due at or before `nowMs`. */
  dueCases(nowMs: number): Promise<string[]>;
  /** The earliest due moment over all cases, or null when nothing is pending. */
  nextDue(): Promise<number | null>;
  /** The highest event sequence number of a case (0 when it has none). */
  lastSeq(caseId: string): Promise<number>;
  /** Events of a case after `seq`, in order (SSE replay after Last-Event-ID). */
  eventsAfter(caseId: string, seq: number): Promise<StoredEvent[]>;
  addSubmission(submission: Submission): Promise<void>;
  /** Every recorded respond request, oldest first. */
  submissions(): Promise<Submission[]>;
  /** Deletes up to `limit` cases final before `beforeMs` with their events; how many went. */
  purgeClosed(beforeMs: number, limit: number): Promise<number>;
  /** Deletes up to `limit` respond requests received before `beforeMs`; how many went. */
  purgeSubmissions(beforeMs: number, limit: number): Promise<number>;
  /**
   * Hears cases other processes changed (`null`: some changes may have been missed, re-read all).
   * Absent when no other process writes this store.
   */
  listen?(onChange: (caseId: string | null) => void): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** The next moment a non-terminal case needs attention (expiry or a reminder), in ms; null when terminal. */
export function dueAt(kase: ReviewCase): number | null {
  if (TERMINAL_STATUSES.has(kase.status)) return null;
  const expires = Date.parse(kase.expires_at);
  const reminder = reminderTimes(kase)[kase.reminders_done];
  return reminder !== undefined && reminder < expires ? reminder : expires;
}

/**
 * When a case became final, in ms (its completed/expired/cancelled time); null while open. Commits
 * keep the first value, so a later change to a final case (a linked follow-up) does not move it.
 */
export function closedAt(kase: ReviewCase): number | null {
  if (!TERMINAL_STATUSES.has(kase.status)) return null;
  const at = Date.parse(kase.completed_at ?? kase.expired_at ?? kase.cancelled_at ?? '');
  // A final case always has its time; should one lack it, it counts from now rather than never.
  return Number.isNaN(at) ? Date.now() : at;
}

/** The case's reminder times in ms, sorted. */
export function reminderTimes(kase: ReviewCase): number[] {
  const raw = kase.reminder_at;
  const list = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  return list.map((t) => Date.parse(t)).sort((a, b) => a - b);
}

interface CaseRow {
  data: string;
  review_hash: Buffer;
  submit_hash: Buffer | null;
  version: number;
}

/** The SQLite store; one process writes it, so it needs no change feed. */
export class SqliteServiceStore implements ServiceStore {
  private readonly db: Database.Database;
  /** Prepared once each: preparing costs more than running these small statements (bench:asks). */
  private readonly statements = new Map<string, Database.Statement>();

  /** Null while the file opened is still the one at its path, else why not (see file-check.ts). */
  readonly fileProblem: () => string | null;

  constructor(path: string) {
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    // The asks_* tables of the numbered migrations; a file from before them has its demo_* rows
    // moved there (migration 5).
    migrateSqlite(this.db, Date.now);
    this.fileProblem = path === ':memory:' ? () => null : sqliteFileCheck(path);
  }

  private sql(text: string): Database.Statement {
    let statement = this.statements.get(text);
    if (!statement) {
      statement = this.db.prepare(text);
      this.statements.set(text, statement);
    }
    return statement;
  }

  async insert(kase: ReviewCase, reviewHash: Buffer, submitHash: Buffer | null): Promise<void> {
    this.sql(
      'INSERT INTO asks_cases (case_id, data, review_hash, submit_hash, due_at, closed_at, version) VALUES (?, ?, ?, ?, ?, ?, 1)',
    ).run(kase.case_id, JSON.stringify(kase), reviewHash, submitHash, dueAt(kase), closedAt(kase));
  }

  async get(caseId: string): Promise<StoredReview | undefined> {
    const row = this.sql(
      'SELECT data, review_hash, submit_hash, version FROM asks_cases WHERE case_id = ?',
    ).get(caseId) as CaseRow | undefined;
    if (!row) return undefined;
    return {
      kase: JSON.parse(row.data) as ReviewCase,
      reviewHash: row.review_hash,
      submitHash: row.submit_hash,
      version: row.version,
    };
  }

  async stateOf(caseId: string): Promise<CaseState | undefined> {
    const row = this.sql('SELECT version, due_at FROM asks_cases WHERE case_id = ?').get(caseId) as
      | { version: number; due_at: number | null }
      | undefined;
    return row && { version: row.version, dueAt: row.due_at };
  }

  async commit(kase: ReviewCase, version: number, events: NewEvent[]) {
    const caseId = kase.case_id;
    return this.db.transaction((): StoredEvent[] | null => {
      const changed = this.sql(
        'UPDATE asks_cases SET data = ?, due_at = ?, closed_at = COALESCE(closed_at, ?), version = version + 1 WHERE case_id = ? AND version = ?',
      ).run(JSON.stringify(kase), dueAt(kase), closedAt(kase), caseId, version).changes;
      if (changed === 0) return null;
      let seq = this.lastSeqNow(caseId);
      const insert = this.sql(
        'INSERT INTO asks_events (case_id, seq, event, data) VALUES (?, ?, ?, ?)',
      );
      return events.map((e) => {
        seq += 1;
        insert.run(caseId, seq, e.event, JSON.stringify(e.data));
        return { case_id: caseId, seq, event: e.event, data: e.data };
      });
    })();
  }

  async dueCases(nowMs: number): Promise<string[]> {
    const rows = this.sql(
      'SELECT case_id FROM asks_cases WHERE due_at IS NOT NULL AND due_at <= ?',
    ).all(nowMs) as Array<{ case_id: string }>;
    return rows.map((r) => r.case_id);
  }

  async nextDue(): Promise<number | null> {
    const row = this.sql(
      'SELECT MIN(due_at) AS due FROM asks_cases WHERE due_at IS NOT NULL',
    ).get() as {
      due: number | null;
    };
    return row.due;
  }

  async lastSeq(caseId: string): Promise<number> {
    return this.lastSeqNow(caseId);
  }

  private lastSeqNow(caseId: string): number {
    const row = this.sql(
      'SELECT COALESCE(MAX(seq), 0) AS seq FROM asks_events WHERE case_id = ?',
    ).get(caseId) as { seq: number };
    return row.seq;
  }

  async eventsAfter(caseId: string, seq: number): Promise<StoredEvent[]> {
    const rows = this.sql(
      'SELECT seq, event, data FROM asks_events WHERE case_id = ? AND seq > ? ORDER BY seq',
    ).all(caseId, seq) as Array<{ seq: number; event: ReviewEventName; data: string }>;
    return rows.map((r) => ({
      case_id: caseId,
      seq: r.seq,
      event: r.event,
      data: JSON.parse(r.data) as Record<string, unknown>,
    }));
  }

  async addSubmission(submission: Submission): Promise<void> {
    this.sql('INSERT INTO asks_submissions (data, received_at) VALUES (?, ?)').run(
      JSON.stringify(submission),
      receivedAt(submission),
    );
  }

  async submissions(): Promise<Submission[]> {
    const rows = this.sql('SELECT data FROM asks_submissions ORDER BY id').all() as Array<{
      data: string;
    }>;
    return rows.map((r) => JSON.parse(r.data) as Submission);
  }

  async purgeClosed(beforeMs: number, limit: number): Promise<number> {
    // The chosen cases and their events go together.
    return this.db.transaction(() => {
      const ids = this.sql('SELECT case_id FROM asks_cases WHERE closed_at < ? LIMIT ?').all(
        beforeMs,
        limit,
      ) as Array<{ case_id: string }>;
      const events = this.sql('DELETE FROM asks_events WHERE case_id = ?');
      const kase = this.sql('DELETE FROM asks_cases WHERE case_id = ?');
      for (const { case_id } of ids) {
        events.run(case_id);
        kase.run(case_id);
      }
      return ids.length;
    })();
  }

  async purgeSubmissions(beforeMs: number, limit: number): Promise<number> {
    return this.sql(
      'DELETE FROM asks_submissions WHERE id IN (SELECT id FROM asks_submissions WHERE received_at < ? LIMIT ?)',
    ).run(beforeMs, limit).changes;
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }
}

/** When a respond request arrived, in ms (its recorded time; now should that be unreadable). */
export function receivedAt(submission: Submission): number {
  const at = Date.parse(submission.at);
  return Number.isNaN(at) ? Date.now() : at;
}

/**
 * A store that opens in the background (PostgreSQL migrates first) while the service is already
 * mounted: every call waits for it. A failed opening is tried again by the next call.
 */
export function deferredStore(open: () => Promise<ServiceStore>): ServiceStore {
  let opening: Promise<ServiceStore> | undefined;
  const ready = () => {
    opening ??= open().catch((err: unknown) => {
      opening = undefined;
      throw err;
    });
    return opening;
  };
  return {
    insert: async (kase, reviewHash, submitHash) =>
      (await ready()).insert(kase, reviewHash, submitHash),
    get: async (caseId) => (await ready()).get(caseId),
    stateOf: async (caseId) => (await ready()).stateOf(caseId),
    commit: async (kase, version, events) => (await ready()).commit(kase, version, events),
    dueCases: async (nowMs) => (await ready()).dueCases(nowMs),
    nextDue: async () => (await ready()).nextDue(),
    lastSeq: async (caseId) => (await ready()).lastSeq(caseId),
    eventsAfter: async (caseId, seq) => (await ready()).eventsAfter(caseId, seq),
    addSubmission: async (s) => (await ready()).addSubmission(s),
    submissions: async () => (await ready()).submissions(),
    purgeClosed: async (beforeMs, limit) => (await ready()).purgeClosed(beforeMs, limit),
    purgeSubmissions: async (beforeMs, limit) => (await ready()).purgeSubmissions(beforeMs, limit),
    async listen(onChange) {
      const store = await ready();
      return store.listen ? store.listen(onChange) : async () => {};
    },
    async close() {
      const store = await opening?.catch(() => undefined);
      await store?.close();
    },
  };
}
