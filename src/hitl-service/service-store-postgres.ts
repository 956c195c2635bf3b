/**
 * The asks service's store on PostgreSQL, so every relay replica serves every ask: cases,
 * events and respond requests live in the asks_* tables (migration 3, src/store/migrations.ts).
 * A commit is a compare-and-set on the case's version, and it NOTIFYs the other replicas (in the
 * same transaction, so the notice goes out only once the events are readable) to wake their SSE
 * streams and schedulers.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { migratePostgres } from '../store/migrate-postgres.ts';
import {
  type CaseState,
  closedAt,
  dueAt,
  type NewEvent,
  receivedAt,
  type ServiceStore,
  type StoredReview,
} from './service-store.ts';
import type { ReviewCase, ReviewEventName, StoredEvent, Submission } from './types.ts';

/** `<source>:<case id>` on every commit. */
const CHANNEL = 'hitl_asks_changed';

/** BIGINT (due_at) as a number: millisecond times sit well inside 2^53. */
const types = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === 20
      ? (v: string) => Number(v)
      : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

/** How long a lost listening connection waits before it connects again. */
const RECONNECT_MS = 1000;

interface CaseRow {
  data: string;
  review_hash: Buffer;
  submit_hash: Buffer | null;
  version: number;
}

/**
 * Opens the store on `url` (the relay's DATABASE_URL) and applies any missing migration. Case data
 * is TEXT, not JSONB: the poll body's ETag and the answer's key order stay exactly as written.
 */
export async function openPostgresServiceStore(
  url: string,
  o: { onError?: (err: Error) => void; poolSize?: number } = {},
): Promise<ServiceStore> {
  const pool = new pg.Pool({ connectionString: url, types, max: o.poolSize ?? 4 });
  // An idle client that loses its connection must not crash the process; the next query reconnects.
  pool.on('error', (err) => o.onError?.(err));
  await migratePostgres(pool, Date.now);
  return new PostgresServiceStore(pool, url, o.onError);
}

class PostgresServiceStore implements ServiceStore {
  /** Tags this process's notices, so it does not hear its own commits. */
  private readonly source = randomBytes(6).toString('hex');

  constructor(
    private readonly pool: pg.Pool,
    private readonly url: string,
    private readonly onError?: (err: Error) => void,
  ) {}

  async insert(kase: ReviewCase, reviewHash: Buffer, submitHash: Buffer | null): Promise<void> {
    // One statement that also tells the other replicas, whose schedulers then look at its expiry.
    await this.pool.query(
      `WITH added AS (
        INSERT INTO asks_cases (case_id, version, data, review_hash, submit_hash, due_at, closed_at)
        VALUES ($1, 1, $2, $3, $4, $5, $8) RETURNING case_id)
      SELECT pg_notify($6, $7) FROM added`,
      [
        kase.case_id,
        JSON.stringify(kase),
        reviewHash,
        submitHash,
        dueAt(kase),
        CHANNEL,
        `${this.source}:${kase.case_id}`,
        closedAt(kase),
      ],
    );
  }

  async get(caseId: string): Promise<StoredReview | undefined> {
    const r = await this.pool.query<CaseRow>(
      'SELECT data, review_hash, submit_hash, version FROM asks_cases WHERE case_id = $1',
      [caseId],
    );
    return r.rows[0] ? toStored(r.rows[0]) : undefined;
  }

  async stateOf(caseId: string): Promise<CaseState | undefined> {
    const r = await this.pool.query<{ version: number; due_at: number | null }>(
      'SELECT version, due_at FROM asks_cases WHERE case_id = $1',
      [caseId],
    );
    const row = r.rows[0];
    return row && { version: row.version, dueAt: row.due_at };
  }

  commit(kase: ReviewCase, version: number, events: NewEvent[]): Promise<StoredEvent[] | null> {
    return commit(this.pool, this.source, kase, version, events);
  }

  async dueCases(nowMs: number): Promise<string[]> {
    const r = await this.pool.query<{ case_id: string }>(
      'SELECT case_id FROM asks_cases WHERE due_at IS NOT NULL AND due_at <= $1 ORDER BY due_at LIMIT 500',
      [nowMs],
    );
    return r.rows.map((x) => x.case_id);
  }

  async nextDue(): Promise<number | null> {
    const r = await this.pool.query<{ due: number | null }>(
      'SELECT min(due_at) AS due FROM asks_cases WHERE due_at IS NOT NULL',
    );
    return r.rows[0]?.due ?? null;
  }

  async lastSeq(caseId: string): Promise<number> {
    const r = await this.pool.query<{ seq: number }>(
      'SELECT COALESCE(max(seq), 0) AS seq FROM asks_events WHERE case_id = $1',
      [caseId],
    );
    return r.rows[0]?.seq ?? 0;
  }

  async eventsAfter(caseId: string, seq: number): Promise<StoredEvent[]> {
    const r = await this.pool.query<{ seq: number; event: ReviewEventName; data: string }>(
      'SELECT seq, event, data FROM asks_events WHERE case_id = $1 AND seq > $2 ORDER BY seq',
      [caseId, seq],
    );
    return r.rows.map((x) => ({
      case_id: caseId,
      seq: x.seq,
      event: x.event,
      data: JSON.parse(x.data) as Record<string, unknown>,
    }));
  }

  async addSubmission(submission: Submission): Promise<void> {
    await this.pool.query('INSERT INTO asks_submissions (data, received_at) VALUES ($1, $2)', [
      JSON.stringify(submission),
      receivedAt(submission),
    ]);
  }

  async submissions(): Promise<Submission[]> {
    const r = await this.pool.query<{ data: string }>(
      'SELECT data FROM asks_submissions ORDER BY id',
    );
    return r.rows.map((x) => JSON.parse(x.data) as Submission);
  }

  async purgeClosed(beforeMs: number, limit: number): Promise<number> {
    // One statement: the chosen cases and their events go together. SKIP LOCKED leaves a case a
    // commit holds (a follow-up being linked) and keeps replicas purging at once out of each other's way.
    const r = await this.pool.query<{ n: number }>(
      `WITH gone AS (
         DELETE FROM asks_cases WHERE case_id IN (
           SELECT case_id FROM asks_cases WHERE closed_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)
         RETURNING case_id),
       e AS (DELETE FROM asks_events WHERE case_id IN (SELECT case_id FROM gone))
       SELECT count(*)::int AS n FROM gone`,
      [beforeMs, limit],
    );
    return r.rows[0]?.n ?? 0;
  }

  async purgeSubmissions(beforeMs: number, limit: number): Promise<number> {
    const r = await this.pool.query(
      `DELETE FROM asks_submissions WHERE id IN (
         SELECT id FROM asks_submissions WHERE received_at < $1 LIMIT $2 FOR UPDATE SKIP LOCKED)`,
      [beforeMs, limit],
    );
    return r.rowCount ?? 0;
  }

  listen(onChange: (caseId: string | null) => void): Promise<() => Promise<void>> {
    return listen(this.url, this.source, onChange, this.onError);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

function toStored(row: CaseRow): StoredReview {
  return {
    kase: JSON.parse(row.data) as ReviewCase,
    reviewHash: row.review_hash,
    submitHash: row.submit_hash,
    version: row.version,
  };
}

/**
 * The compare-and-set: the UPDATE takes the row lock, so a second writer at the same version waits
 * and then finds the version changed (no row updated); events are numbered under that lock.
 */
async function commit(
  pool: pg.Pool,
  source: string,
  kase: ReviewCase,
  version: number,
  events: NewEvent[],
): Promise<StoredEvent[] | null> {
  const caseId = kase.case_id;
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const r = await client.query(
      `UPDATE asks_cases SET data = $2, due_at = $3, closed_at = COALESCE(closed_at, $5),
         version = version + 1 WHERE case_id = $1 AND version = $4`,
      [caseId, JSON.stringify(kase), dueAt(kase), version, closedAt(kase)],
    );
    if (r.rowCount !== 1) {
      await client.query('ROLLBACK');
      return null;
    }
    const last = await client.query<{ seq: number }>(
      'SELECT COALESCE(max(seq), 0) AS seq FROM asks_events WHERE case_id = $1',
      [caseId],
    );
    let seq = last.rows[0]?.seq ?? 0;
    const written: StoredEvent[] = [];
    for (const e of events) {
      seq += 1;
      await client.query(
        'INSERT INTO asks_events (case_id, seq, event, data) VALUES ($1, $2, $3, $4)',
        [caseId, seq, e.event, JSON.stringify(e.data)],
      );
      written.push({ case_id: caseId, seq, event: e.event, data: e.data });
    }
    await client.query('SELECT pg_notify($1, $2)', [CHANNEL, `${source}:${caseId}`]);
    await client.query('COMMIT');
    return written;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}

/**
 * LISTENs on one dedicated connection; a lost connection is retried every second and, once back,
 * reports `null` (changes may have been missed meanwhile). Its own commits are not reported: the
 * lifecycle already woke its streams.
 */
async function listen(
  url: string,
  source: string,
  onChange: (caseId: string | null) => void,
  onError?: (err: Error) => void,
): Promise<() => Promise<void>> {
  let client: pg.Client | undefined;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  const connect = async (again: boolean): Promise<void> => {
    const c = new pg.Client({ connectionString: url, types });
    let lost = false;
    const reconnect = () => {
      if (lost || stopped) return;
      lost = true;
      client = undefined;
      c.end().catch(() => {});
      retry = setTimeout(() => void connect(true), RECONNECT_MS);
      retry.unref();
    };
    c.on('error', (err) => {
      onError?.(err);
      reconnect();
    });
    c.on('end', reconnect);
    c.on('notification', (n) => {
      const payload = n.payload ?? '';
      const i = payload.indexOf(':');
      if (i > 0 && payload.slice(0, i) !== source) onChange(payload.slice(i + 1));
    });
    try {
      await c.connect();
      await c.query(`LISTEN ${CHANNEL}`);
    } catch (err) {
      onError?.(err instanceof Error ? err : new Error(String(err)));
      reconnect();
      return;
    }
    if (stopped) {
      await c.end().catch(() => {});
      return;
    }
    client = c;
    if (again) onChange(null);
  };
  await connect(false);
  return async () => {
    stopped = true;
    clearTimeout(retry);
    await client?.end().catch(() => {});
  };
}
