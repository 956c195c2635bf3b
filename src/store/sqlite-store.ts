/**
 * The embedded Store: one SQLite file (better-sqlite3, WAL). Cases survive restarts. Each concern
 * lives in src/store/sqlite/; writes that span concerns (a case with its messages, history and
 * leases) share one connection, so they commit together.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { migrateSqlite } from './migrate-sqlite.ts';
import { batched, sqliteBatcher } from './sqlite/batch.ts';
import { sqliteCaseStats, sqliteCases } from './sqlite/cases.ts';
import { type CheckpointOptions, startCheckpointer } from './sqlite/checkpoint.ts';
import { sqliteFileCheck } from './sqlite/file-check.ts';
import { historyWriter, sqliteHistory } from './sqlite/history.ts';
import { kvWrites, sqliteKv } from './sqlite/kv.ts';
import { releaseClaimStatement, sqliteClaims, sqliteWatch } from './sqlite/leases.ts';
import { reserveStatement, sqliteMessages } from './sqlite/messages.ts';
import { enqueueStatement, sqliteOutbox } from './sqlite/outbox.ts';
import { sqliteRetention } from './sqlite/retention.ts';
import type { Store } from './store.ts';

/**
 * The Store methods that only read; every other method is a write and joins the group commit of
 * its event-loop turn (src/store/sqlite/batch.ts). A read joins it only while one is open.
 */
const READS: ReadonlySet<string> = new Set([
  'getCase',
  'getCaseByKey',
  'findCase',
  'listCases',
  'listOpenInChat',
  'listOpenOnPlatform',
  'orphanCases',
  'countByStatus',
  'openStats',
  'watchLeaseOwners',
  'heldCases',
  'listMessages',
  'findMessageByRef',
  'staleMessages',
  'listHistory',
  'listDeliveries',
]);
const KV_READS: ReadonlySet<string> = new Set(['get', 'list']);

/** Options of openSqliteStore. */
export interface SqliteStoreOptions {
  /** A size ceiling (pages of the page size); tests use it to make a real "disk full". */
  maxPageCount?: number;
  /** How WAL checkpoints run off the request path (src/store/sqlite/checkpoint.ts). */
  checkpoint?: CheckpointOptions;
}

function openDatabase(file: string, now: () => number, options: SqliteStoreOptions) {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
  migrateSqlite(db, now);
  if (options.maxPageCount) db.pragma(`max_page_count = ${Math.floor(options.maxPageCount)}`);
  return db;
}

/** Opens (and migrates) the SQLite store at `file` (":memory:" for a throwaway one). */
export function openSqliteStore(
  file: string,
  now: () => number = Date.now,
  options: SqliteStoreOptions = {},
): Store {
  const db = openDatabase(file, now, options);
  // An in-memory database has no WAL to checkpoint.
  const checkpointer =
    file === ':memory:' ? undefined : startCheckpointer(db, file, options.checkpoint);
  const addHistory = historyWriter(db);
  const kv = kvWrites(db);
  const reserve = reserveStatement(db);
  const enqueue = enqueueStatement(db);
  const releaseClaim = releaseClaimStatement(db);
  const batch = sqliteBatcher(db);
  const store: Omit<Store, 'close'> = {
    kv: batched(batch, sqliteKv(db, kv, now), KV_READS),
    ...sqliteCases(db, { reserve, enqueue, releaseClaim, addHistory, kv }),
    ...sqliteCaseStats(db),
    ...sqliteClaims(db, { release: releaseClaim, addHistory, now }),
    ...sqliteWatch(db),
    ...sqliteMessages(db, { reserve, addHistory, kv }),
    ...sqliteHistory(db, addHistory),
    ...sqliteOutbox(db, enqueue),
    ...sqliteRetention(db),
  };
  const fileCheck = file === ':memory:' ? undefined : sqliteFileCheck(file);
  return {
    ...batched(batch, store, READS),
    ...(fileCheck && { fileProblem: fileCheck }),
    async close() {
      batch.flush();
      await checkpointer?.stop();
      db.close();
    },
  };
}
