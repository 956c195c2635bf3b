/**
 * The store's schema as numbered migrations, both dialects side by side so they cannot drift apart
 * unnoticed (test/store/migrations.test.ts compares the tables and columns each one produces).
 * A database records the migrations applied to it in `schema_version`; the stores apply the missing
 * ones at start-up, each in its own transaction, and refuse a database written by a newer
 * hitl-relay. Append new migrations; never edit an applied one.
 */

import type Database from 'better-sqlite3';
import { REVIEW_URL_GRACE_MS } from './retention.ts';

/** One numbered step of the schema, in both dialects. */
export interface Migration {
  version: number;
  name: string;
  sqlite: string;
  postgres: string;
  /** A step SQL cannot say without looking first (which tables a file has), run after `sqlite`. */
  sqliteData?: (db: Database.Database) => void;
}

/** The asks tables' parts that read the same in both dialects. */
const ASKS_SHARED = `CREATE INDEX IF NOT EXISTS asks_cases_due ON asks_cases (due_at) WHERE due_at IS NOT NULL;
    CREATE TABLE IF NOT EXISTS asks_events (
      case_id TEXT NOT NULL,
      seq INTEGER NOT NULL,
      event TEXT NOT NULL,
      data TEXT NOT NULL,
      PRIMARY KEY (case_id, seq)
    );`;

/** The current time in ms in SQL (a migration has no clock of its own); due_at IS NULL marks a final ask. */
export const SQLITE_NOW_MS = `CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)`;
const PG_NOW_MS = '(extract(epoch from clock_timestamp()) * 1000)::bigint';

const ASKS_RETENTION_INDEXES = `CREATE INDEX IF NOT EXISTS asks_cases_closed ON asks_cases (closed_at) WHERE closed_at IS NOT NULL;
    CREATE INDEX IF NOT EXISTS asks_submissions_received ON asks_submissions (received_at);`;

/** Where each database records its applied migrations. */
export const VERSION_TABLE = `CREATE TABLE IF NOT EXISTS schema_version (
  version INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  applied_at BIGINT NOT NULL
)`;

export const MIGRATIONS: readonly Migration[] = [
  {
    // The schema as it stood before migrations were numbered; IF NOT EXISTS lets a database created
    // then adopt it as version 1 unchanged.
    version: 1,
    name: 'baseline',
    sqlite: `
    CREATE TABLE IF NOT EXISTS cases (
      id TEXT PRIMARY KEY,
      key TEXT NOT NULL UNIQUE,
      origin TEXT NOT NULL,
      case_id TEXT NOT NULL,
      target TEXT NOT NULL,
      status TEXT NOT NULL,
      version INTEGER NOT NULL,
      doc TEXT NOT NULL,
      secrets TEXT NOT NULL,
      next_check_at INTEGER,
      etag TEXT,
      poll_failures INTEGER NOT NULL DEFAULT 0,
      lease_owner TEXT,
      lease_until INTEGER,
      claim_holder TEXT,
      claim_until INTEGER,
      created_at INTEGER NOT NULL,
      updated_at INTEGER NOT NULL,
      UNIQUE (origin, case_id)
    );
    CREATE INDEX IF NOT EXISTS cases_due ON cases (next_check_at) WHERE next_check_at IS NOT NULL;
    CREATE INDEX IF NOT EXISTS cases_created ON cases (created_at);
    CREATE TABLE IF NOT EXISTS messages (
      case_id TEXT NOT NULL,
      target TEXT NOT NULL,
      platform TEXT NOT NULL,
      address TEXT NOT NULL,
      ref_id TEXT,
      state TEXT NOT NULL,
      rendered_version INTEGER NOT NULL,
      error TEXT,
      posted_at INTEGER,
      PRIMARY KEY (case_id, target)
    );
    CREATE INDEX IF NOT EXISTS messages_ref ON messages (platform, ref_id);
    CREATE TABLE IF NOT EXISTS history (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      case_id TEXT NOT NULL,
      at INTEGER NOT NULL,
      kind TEXT NOT NULL,
      detail TEXT NOT NULL
    );
    CREATE INDEX IF NOT EXISTS history_case ON history (case_id, seq);
    CREATE TABLE IF NOT EXISTS kv (
      k TEXT PRIMARY KEY,
      v TEXT NOT NULL,
      until INTEGER
    );
    CREATE TABLE IF NOT EXISTS notify_outbox (
      id TEXT PRIMARY KEY,
      case_id TEXT NOT NULL,
      event TEXT NOT NULL,
      url TEXT NOT NULL,
      body TEXT NOT NULL,
      state TEXT NOT NULL,
      attempts INTEGER NOT NULL DEFAULT 0,
      next_attempt_at INTEGER,
      last_error TEXT,
      lease_owner TEXT,
      lease_until INTEGER,
      created_at INTEGER NOT NULL,
      delivered_at INTEGER,
      UNIQUE (case_id, event)
    );
    CREATE INDEX IF NOT EXISTS notify_due ON notify_outbox (next_attempt_at) WHERE state = 'pending';`,
    postgres: `
    CREATE TABLE IF NOT EXISTS cases (
      id TEXT PRIMARY KEY,
      key TEXT NOT NULL UNIQUE,
      origin TEXT NOT NULL,
      case_id TEXT NOT NULL,
      target TEXT NOT NULL,
      status TEXT NOT NULL,
      version INTEGER NOT NULL,
      doc JSONB NOT NULL,
      secrets TEXT NOT NULL,
      next_check_at BIGINT,
      etag TEXT,
      poll_failures INTEGER NOT NULL DEFAULT 0,
      lease_owner TEXT,
      lease_until BIGINT,
      claim_holder TEXT,
      claim_until BIGINT,
      created_at BIGINT NOT NULL,
      updated_at BIGINT NOT NULL,
      UNIQUE (origin, case_id)
    );
    CREATE INDEX IF NOT EXISTS cases_due ON cases (next_check_at) WHERE next_check_at IS NOT NULL;
    CREATE INDEX IF NOT EXISTS cases_created ON cases (created_at);
    CREATE TABLE IF NOT EXISTS messages (
      case_id TEXT NOT NULL,
      target TEXT NOT NULL,
      platform TEXT NOT NULL,
      address TEXT NOT NULL,
      ref_id TEXT,
      state TEXT NOT NULL,
      rendered_version INTEGER NOT NULL,
      error TEXT,
      posted_at BIGINT,
      seq BIGSERIAL,
      PRIMARY KEY (case_id, target)
    );
    CREATE INDEX IF NOT EXISTS messages_ref ON messages (platform, ref_id);
    CREATE TABLE IF NOT EXISTS history (
      seq BIGSERIAL PRIMARY KEY,
      case_id TEXT NOT NULL,
      at BIGINT NOT NULL,
      kind TEXT NOT NULL,
      detail JSONB NOT NULL
    );
    CREATE INDEX IF NOT EXISTS history_case ON history (case_id, seq);
    CREATE TABLE IF NOT EXISTS kv (k TEXT PRIMARY KEY, v TEXT NOT NULL, until BIGINT);
    CREATE TABLE IF NOT EXISTS notify_outbox (
      id TEXT PRIMARY KEY,
      case_id TEXT NOT NULL,
      event TEXT NOT NULL,
      url TEXT NOT NULL,
      body TEXT NOT NULL,
      state TEXT NOT NULL,
      attempts INTEGER NOT NULL DEFAULT 0,
      next_attempt_at BIGINT,
      last_error TEXT,
      lease_owner TEXT,
      lease_until BIGINT,
      created_at BIGINT NOT NULL,
      delivered_at BIGINT,
      seq BIGSERIAL,
      UNIQUE (case_id, event)
    );
    CREATE INDEX IF NOT EXISTS notify_due ON notify_outbox (next_attempt_at) WHERE state = 'pending';`,
  },
  {
    // purgeExpiredKv and setIfAbsent's expiry test look rows up by expiry.
    version: 2,
    name: 'kv_until',
    sqlite: 'CREATE INDEX IF NOT EXISTS kv_until ON kv (until) WHERE until IS NOT NULL',
    postgres: 'CREATE INDEX IF NOT EXISTS kv_until ON kv (until) WHERE until IS NOT NULL',
  },
  {
    // The relay's own HITL service (/asks) shared by replicas (src/hitl-service/service-store-postgres.ts): its
    // cases with their version (compare-and-set), numbered events (SSE replay) and the respond
    // requests it received. A relay on SQLite keeps its asks in DATA_DIR/asks.sqlite (one
    // process); the SQLite tables exist so both dialects keep the same schema.
    version: 3,
    name: 'asks_service',
    sqlite: `
    CREATE TABLE IF NOT EXISTS asks_cases (
      case_id TEXT PRIMARY KEY,
      version INTEGER NOT NULL,
      data TEXT NOT NULL,
      review_hash BLOB NOT NULL,
      submit_hash BLOB,
      due_at INTEGER
    );
    ${ASKS_SHARED}
    CREATE TABLE IF NOT EXISTS asks_submissions (
      id INTEGER PRIMARY KEY AUTOINCREMENT,
      data TEXT NOT NULL
    );`,
    postgres: `
    CREATE TABLE IF NOT EXISTS asks_cases (
      case_id TEXT PRIMARY KEY,
      version INTEGER NOT NULL,
      data TEXT NOT NULL,
      review_hash BYTEA NOT NULL,
      submit_hash BYTEA,
      due_at BIGINT
    );
    ${ASKS_SHARED}
    CREATE TABLE IF NOT EXISTS asks_submissions (
      id BIGSERIAL PRIMARY KEY,
      data TEXT NOT NULL
    );`,
  },
  {
    // Retention of the asks service (src/hitl-service/retention.ts): when a case became final and when a
    // respond request arrived, both looked up by index. Rows from before this migration count from
    // now (the upgrade), so nothing is deleted sooner than the period after it.
    version: 4,
    name: 'asks_retention',
    sqlite: `
    ALTER TABLE asks_cases ADD COLUMN closed_at INTEGER;
    ALTER TABLE asks_submissions ADD COLUMN received_at INTEGER;
    UPDATE asks_cases SET closed_at = ${SQLITE_NOW_MS} WHERE due_at IS NULL;
    UPDATE asks_submissions SET received_at = ${SQLITE_NOW_MS};
    ${ASKS_RETENTION_INDEXES}`,
    postgres: `
    ALTER TABLE asks_cases ADD COLUMN IF NOT EXISTS closed_at BIGINT;
    ALTER TABLE asks_submissions ADD COLUMN IF NOT EXISTS received_at BIGINT;
    UPDATE asks_cases SET closed_at = ${PG_NOW_MS} WHERE due_at IS NULL;
    UPDATE asks_submissions SET received_at = ${PG_NOW_MS};
    ${ASKS_RETENTION_INDEXES}`,
  },
  {
    // SQLite files of the HITL service kept its cases in demo_* tables of their own (created and
    // upgraded by the service itself) before it used these migrations: their rows move into the
    // asks_* tables and the old tables go. PostgreSQL only ever had the asks_* tables.
    version: 5,
    name: 'asks_from_demo_tables',
    sqlite: '-- the rows are moved by sqliteData: a file has the demo_* tables or not',
    postgres: 'SELECT 1',
    sqliteData: asksFromDemoTables,
  },
  {
    // `/pending` in a chat (store.listOpenInChat): the cards of one chat, found by index.
    version: 6,
    name: 'messages_by_chat',
    sqlite: 'CREATE INDEX IF NOT EXISTS messages_chat ON messages (platform, address, case_id);',
    postgres: 'CREATE INDEX IF NOT EXISTS messages_chat ON messages (platform, address, case_id);',
  },
  {
    // Review URLs are not kept long-term (HITL checklist): the drop-after time of a final case is
    // in its doc; this column reads it (for the index the retention pass scans). Cases that ended
    // before it get the grace after their last change.
    version: 7,
    name: 'review_url_drop_at',
    sqlite: `ALTER TABLE cases ADD COLUMN review_url_drop_at INTEGER
        GENERATED ALWAYS AS (json_extract(doc, '$.review_url_drop_at')) VIRTUAL;
      CREATE INDEX IF NOT EXISTS cases_review_url_drop ON cases (review_url_drop_at)
        WHERE review_url_drop_at IS NOT NULL;
      UPDATE cases SET doc = json_set(doc, '$.review_url_drop_at', updated_at + ${REVIEW_URL_GRACE_MS})
        WHERE status IN ('completed', 'expired', 'cancelled');`,
    postgres: `ALTER TABLE cases ADD COLUMN IF NOT EXISTS review_url_drop_at bigint
        GENERATED ALWAYS AS ((doc->>'review_url_drop_at')::bigint) STORED;
      CREATE INDEX IF NOT EXISTS cases_review_url_drop ON cases (review_url_drop_at)
        WHERE review_url_drop_at IS NOT NULL;
      UPDATE cases SET doc = jsonb_set(doc, '{review_url_drop_at}', to_jsonb(updated_at + ${REVIEW_URL_GRACE_MS}))
        WHERE status IN ('completed', 'expired', 'cancelled');`,
  },
];

/**
 * Moves a file's demo_* rows into the asks_* tables. A file from before compare-and-set has no
 * `version` (every case at 1); one from before retention has no `closed_at` / `received_at` (they
 * count from now, so nothing is deleted sooner than a period after the upgrade).
 */
function asksFromDemoTables(db: Database.Database): void {
  const tables = new Set(
    db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all() as string[],
  );
  const has = (table: string, column: string) =>
    (db.prepare(`PRAGMA table_info(${table})`).all() as Array<{ name: string }>).some(
      (c) => c.name === column,
    );
  if (tables.has('demo_cases')) {
    const version = has('demo_cases', 'version') ? 'version' : '1';
    const closedAt = has('demo_cases', 'closed_at')
      ? 'closed_at'
      : `CASE WHEN due_at IS NULL THEN ${SQLITE_NOW_MS} END`;
    db.exec(`INSERT INTO asks_cases (case_id, version, data, review_hash, submit_hash, due_at, closed_at)
      SELECT case_id, ${version}, data, review_hash, submit_hash, due_at, ${closedAt} FROM demo_cases;
      DROP TABLE demo_cases;`);
  }
  if (tables.has('demo_events'))
    db.exec(`INSERT INTO asks_events (case_id, seq, event, data)
      SELECT case_id, seq, event, data FROM demo_events;
      DROP TABLE demo_events;`);
  if (tables.has('demo_submissions')) {
    const at = has('demo_submissions', 'received_at') ? 'received_at' : SQLITE_NOW_MS;
    db.exec(`INSERT INTO asks_submissions (id, data, received_at)
      SELECT id, data, ${at} FROM demo_submissions;
      DROP TABLE demo_submissions;`);
  }
}

/** The newest schema version this build knows. */
export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]!.version;

/** A database written by a newer hitl-relay: starting on it could corrupt what that version wrote. */
export class SchemaTooNewError extends Error {
  constructor(
    readonly found: number,
    readonly known: number,
  ) {
    super(
      `the database's schema is version ${found}, newer than this hitl-relay knows (${known}): run the newer hitl-relay, or point DATA_DIR / DATABASE_URL at another database`,
    );
    this.name = 'SchemaTooNewError';
  }
}

/** The migrations a database at `current` still needs, in order (throws when it is newer than us). */
export function pendingMigrations(current: number): Migration[] {
  if (current > SCHEMA_VERSION) throw new SchemaTooNewError(current, SCHEMA_VERSION);
  return MIGRATIONS.filter((m) => m.version > current);
}
