/** PostgreSQL: the pool every concern of the store shares, and how numbers cross the wire. */
import pg from 'pg';

/** Numbers as numbers: BIGINT columns hold millisecond times well inside 2^53. */
export const types = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === 20
      ? (v: string) => Number(v)
      : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

/**
 * pg sends a number as its decimal text, and BIGINT / INTEGER columns refuse "1712.5": a time
 * computed with jitter or from fractional seconds would fail the whole statement (SQLite takes it).
 * Every number parameter is rounded on its way in; the schema has no fractional column.
 */
export const whole = (v: unknown) =>
  typeof v === 'number' && !Number.isInteger(v) ? Math.round(v) : v;

/** JSON for jsonb_to_recordset: numbers whole (BIGINT columns), as `whole` does for parameters. */
export const wholeJson = (rows: unknown[]) =>
  JSON.stringify(rows, (_k, v) => (typeof v === 'number' ? Math.round(v) : v));

/** Statement texts that run often, by name: the server parses and plans each once per connection. */
const names = new Map<string, string>();
/** Far above the few shapes the hot statements take; any text past it simply runs unnamed. */
const MAX_NAMES = 64;

/**
 * A hot statement as a named (prepared) query: pg prepares it once per pooled connection and then
 * only binds and executes it, which skips the server's parse and plan of a long CTE every time.
 * Only for texts built from a fixed set of shapes (never from data), so the names stay few.
 */
export function prepared(text: string, values: unknown[]): pg.QueryConfig {
  let name = names.get(text);
  if (!name && names.size < MAX_NAMES) {
    name = `hitl_${names.size}`;
    names.set(text, name);
  }
  return { ...(name ? { name } : {}), text, values: values.map(whole) };
}

function withWholeNumberParams(pool: pg.Pool): pg.Pool {
  const query = pool.query.bind(pool) as (text: unknown, params?: unknown) => unknown;
  pool.query = ((text: unknown, params?: unknown) =>
    query(text, Array.isArray(params) ? params.map(whole) : params)) as typeof pool.query;
  return pool;
}

/** Options of the pool. */
export interface PoolOptions {
  max?: number;
  /** Hears errors of idle pooled connections (the server restarted, the network dropped). */
  onError?: (err: Error) => void;
}

export function openPool(url: string, options: PoolOptions): pg.Pool {
  const pool = withWholeNumberParams(
    new pg.Pool({
      connectionString: url,
      max: options.max ?? 10,
      types,
      // A query waits at most this long for a connection while the server is down: requests then
      // fail (503) instead of hanging.
      connectionTimeoutMillis: 5000,
    }),
  );
  // Without a listener, an idle connection that the server ends (57P01 on `pg_ctl stop -m fast`, a
  // restart, a dropped network) is an unhandled 'error' event that kills the process. The pool
  // drops that connection by itself and opens a fresh one on the next query once the server is back.
  pool.on('error', (err) => options.onError?.(err));
  // A connection checked out for a transaction can be ended by the server between two of its
  // queries: that is an 'error' event on the client itself, not on the pool. The query in flight
  // (or the next one) fails and the client is released with the error, so here it is only heard.
  pool.on('connect', (client) => client.on('error', (err) => options.onError?.(err)));
  return pool;
}
