/**
 * Which store failures mean "no room" or "the store cannot take writes now", so intake can answer
 * 507 / 503 (the agent retries later, nothing was half-written) rather than a bare 500.
 */

/** How a store failure is answered, or undefined when it is not one of these. */
export function storageFailure(err: unknown): { status: 507 | 503; message: string } | undefined {
  const code = String((err as { code?: unknown } | null)?.code ?? '');
  // SQLite (better-sqlite3 error codes) and PostgreSQL (SQLSTATE class 53: insufficient resources).
  if (code === 'SQLITE_FULL' || code === '53100')
    return { status: 507, message: 'the relay is out of storage; nothing was stored, retry later' };
  if (
    /^SQLITE_(BUSY|LOCKED|READONLY|IOERR|CANTOPEN)/.test(code) ||
    /^53/.test(code) ||
    code === '57P03'
  )
    return {
      status: 503,
      message: 'the relay cannot store the case right now; nothing was stored, retry later',
    };
  return undefined;
}
