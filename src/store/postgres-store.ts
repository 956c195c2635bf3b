/**
 * The Store for several replicas: PostgreSQL (pg). Claims and "post once" are single statements
 * the database serialises; due watch work is leased with FOR UPDATE SKIP LOCKED so replicas never
 * poll the same case at once, and a dead replica's leases simply lapse. Each concern lives in
 * src/store/postgres/; they share one pool.
 */
import { randomBytes } from 'node:crypto';
import { migratePostgres } from './migrate-postgres.ts';
import { caseCreator, caseUpdater } from './postgres/case-writes.ts';
import { pgCaseReads, pgCaseStats } from './postgres/cases.ts';
import { pgChangeFeed } from './postgres/changes.ts';
import { historyAppender, pgHistory } from './postgres/history.ts';
import { pgKv } from './postgres/kv.ts';
import { pgClaims, pgWatch } from './postgres/leases.ts';
import { pgMessages } from './postgres/messages.ts';
import { pgOutbox } from './postgres/outbox.ts';
import { openPool, type PoolOptions } from './postgres/pool.ts';
import { pgRetention } from './postgres/retention.ts';
import type { Store } from './store.ts';

/** Opens the PostgreSQL store and runs migrations (under an advisory lock, so replicas may start together). */
export async function openPostgresStore(
  url: string,
  now: () => number = Date.now,
  options: PoolOptions = {},
): Promise<Store> {
  const pool = openPool(url, options);
  try {
    await migratePostgres(pool, now);
  } catch (err) {
    await pool.end().catch(() => {});
    throw err;
  }
  // Names this store's own change notifications, which its listener skips (it heard them in-process).
  const changeSource = randomBytes(6).toString('hex');
  const appendHistory = historyAppender(pool);
  return {
    kv: pgKv(pool, now),
    createCase: caseCreator(pool),
    updateCase: caseUpdater(pool, appendHistory, changeSource),
    ...pgCaseReads(pool),
    ...pgCaseStats(pool),
    ...pgClaims(pool, appendHistory, now),
    ...pgWatch(pool),
    ...pgMessages(pool, appendHistory),
    ...pgHistory(pool, appendHistory),
    ...pgOutbox(pool),
    ...pgRetention(pool),
    ...pgChangeFeed(pool, url, changeSource, options.onError),
    async close() {
      await pool.end();
    },
  };
}
