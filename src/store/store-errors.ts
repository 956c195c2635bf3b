/** Which store errors mean "the database is unreachable for now" (answered 503 + Retry-After) rather than a bug. */
import { isNetworkError } from '../health.ts';

/**
 * PostgreSQL SQLSTATEs of an outage: class 08 (connection exception), 57P01-57P03 (admin shutdown,
 * crash shutdown, cannot connect now), 53300 (too many connections).
 */
const OUTAGE_SQLSTATE = /^(08...|57P0[1-3]|53300)$/;

/** SQLite: the file is locked by another process or the disk/file refuses writes. */
const SQLITE_OUTAGE = /^SQLITE_(BUSY|LOCKED|FULL|IOERR|READONLY|CANTOPEN)/;

/** node-postgres reports a pool or client that lost its connection with these messages (no code). */
const PG_LOST =
  /Connection terminated|connection timeout|Client has encountered a connection error|timeout exceeded when trying to connect/i;

/** Whether `err` says the store is unreachable for now (try again later) rather than a bug. */
export function isStoreOutage(err: unknown): boolean {
  for (let e = err, i = 0; e && i < 5; i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && (OUTAGE_SQLSTATE.test(code) || SQLITE_OUTAGE.test(code)))
      return true;
    const message = (e as { message?: unknown }).message;
    if (typeof message === 'string' && PG_LOST.test(message)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return isNetworkError(err);
}

/**
 * How intake answers a store failure: 507 when the store is out of room (SQLite full, PostgreSQL
 * 53100), 503 when it cannot take writes for now; undefined for anything else (a bug: 500). Either
 * way nothing was half-written (the case is stored in one transaction), so the agent retries later.
 */
export function storageFailure(err: unknown): { status: 507 | 503; message: string } | undefined {
  const code = String((err as { code?: unknown } | null)?.code ?? '');
  if (code === 'SQLITE_FULL' || code === '53100')
    return { status: 507, message: 'the relay is out of storage; nothing was stored, retry later' };
  if (isStoreOutage(err))
    return {
      status: 503,
      message: 'the relay cannot store the case right now; nothing was stored, retry later',
    };
  return undefined;
}
