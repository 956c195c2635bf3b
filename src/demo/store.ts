/** SQLite persistence of the demo service: cases (with token hashes beside them), events, submissions. */
import Database from 'better-sqlite3';
import type { DemoCase, ReviewEvent, ReviewEventName, Submission } from './types.ts';
import { TERMINAL_STATUSES } from './types.ts';

/** A stored case with the hashes of its two tokens. */
export interface StoredCase {
  kase: DemoCase;
  reviewHash: Buffer;
  /** Null when the case was created without inline submit. */
  submitHash: Buffer | null;
}

interface CaseRow {
  data: string;
  review_hash: Buffer;
  submit_hash: Buffer | null;
}

/** The next moment a non-terminal case needs attention (expiry or a reminder), in ms; null when terminal. */
export function dueAt(kase: DemoCase): number | null {
  if (TERMINAL_STATUSES.has(kase.status)) return null;
  const expires = Date.parse(kase.expires_at);
  const reminder = reminderTimes(kase)[kase.reminders_done];
  return reminder !== undefined && reminder < expires ? reminder : expires;
}

/** The case's reminder times in ms, sorted. */
export function reminderTimes(kase: DemoCase): number[] {
  const raw = kase.reminder_at;
  const list = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  return list.map((t) => Date.parse(t)).sort((a, b) => a - b);
}

/** The demo service's store; every method is synchronous, so each read-modify-write is atomic. */
export class DemoStore {
  private readonly db: Database.Database;

  constructor(path: string) {
    this.db = new Database(path);
    this.db.pragma('journal_mode = WAL');
    this.db.exec(`
      CREATE TABLE IF NOT EXISTS demo_cases (
        case_id TEXT PRIMARY KEY,
        data TEXT NOT NULL,
        review_hash BLOB NOT NULL,
        submit_hash BLOB,
        due_at INTEGER
      );
      CREATE INDEX IF NOT EXISTS demo_cases_due ON demo_cases (due_at);
      CREATE TABLE IF NOT EXISTS demo_events (
        case_id TEXT NOT NULL,
        seq INTEGER NOT NULL,
        event TEXT NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (case_id, seq)
      );
      CREATE TABLE IF NOT EXISTS demo_submissions (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        data TEXT NOT NULL
      );
    `);
  }

  /** Stores a new case. */
  insert(kase: DemoCase, reviewHash: Buffer, submitHash: Buffer | null): void {
    this.db
      .prepare(
        'INSERT INTO demo_cases (case_id, data, review_hash, submit_hash, due_at) VALUES (?, ?, ?, ?, ?)',
      )
      .run(kase.case_id, JSON.stringify(kase), reviewHash, submitHash, dueAt(kase));
  }

  /** One case, or undefined. */
  get(caseId: string): StoredCase | undefined {
    const row = this.db
      .prepare('SELECT data, review_hash, submit_hash FROM demo_cases WHERE case_id = ?')
      .get(caseId) as CaseRow | undefined;
    if (!row) return undefined;
    return {
      kase: JSON.parse(row.data) as DemoCase,
      reviewHash: row.review_hash,
      submitHash: row.submit_hash,
    };
  }

  /** Replaces a case's data (the token hashes never change). */
  update(kase: DemoCase): void {
    this.db
      .prepare('UPDATE demo_cases SET data = ?, due_at = ? WHERE case_id = ?')
      .run(JSON.stringify(kase), dueAt(kase), kase.case_id);
  }

  /** Ids of non-terminal cases due at or before `nowMs`. */
  dueCases(nowMs: number): string[] {
    const rows = this.db
      .prepare('SELECT case_id FROM demo_cases WHERE due_at IS NOT NULL AND due_at <= ?')
      .all(nowMs) as Array<{ case_id: string }>;
    return rows.map((r) => r.case_id);
  }

  /** The earliest due moment over all cases, or null when nothing is pending. */
  nextDue(): number | null {
    const row = this.db.prepare('SELECT MIN(due_at) AS due FROM demo_cases').get() as {
      due: number | null;
    };
    return row.due;
  }

  /** Appends an event with the case's next sequence number. */
  appendEvent(caseId: string, event: ReviewEventName, data: Record<string, unknown>): ReviewEvent {
    const seq = this.lastSeq(caseId) + 1;
    this.db
      .prepare('INSERT INTO demo_events (case_id, seq, event, data) VALUES (?, ?, ?, ?)')
      .run(caseId, seq, event, JSON.stringify(data));
    return { case_id: caseId, seq, event, data };
  }

  /** The highest event sequence number of a case (0 when it has none). */
  lastSeq(caseId: string): number {
    const row = this.db
      .prepare('SELECT COALESCE(MAX(seq), 0) AS seq FROM demo_events WHERE case_id = ?')
      .get(caseId) as { seq: number };
    return row.seq;
  }

  /** Events of a case after `seq`, in order (SSE replay after Last-Event-ID). */
  eventsAfter(caseId: string, seq: number): ReviewEvent[] {
    const rows = this.db
      .prepare(
        'SELECT seq, event, data FROM demo_events WHERE case_id = ? AND seq > ? ORDER BY seq',
      )
      .all(caseId, seq) as Array<{ seq: number; event: ReviewEventName; data: string }>;
    return rows.map((r) => ({
      case_id: caseId,
      seq: r.seq,
      event: r.event,
      data: JSON.parse(r.data) as Record<string, unknown>,
    }));
  }

  /** Runs `fn` in one transaction. */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  /** Records a respond request. */
  addSubmission(submission: Submission): void {
    this.db
      .prepare('INSERT INTO demo_submissions (data) VALUES (?)')
      .run(JSON.stringify(submission));
  }

  /** Every recorded respond request, oldest first. */
  submissions(): Submission[] {
    const rows = this.db.prepare('SELECT data FROM demo_submissions ORDER BY id').all() as Array<{
      data: string;
    }>;
    return rows.map((r) => JSON.parse(r.data) as Submission);
  }

  /** Closes the database. */
  close(): void {
    if (this.db.open) this.db.close();
  }
}
