/** Applies the missing migrations to a PostgreSQL database (src/store/migrations.ts). */
import type pg from 'pg';
import { pendingMigrations, VERSION_TABLE } from './migrations.ts';

/** Held while migrating, so replicas starting together apply each migration once. */
const MIGRATION_LOCK = 7243001;

/** The highest applied migration (0 for a new database). */
export async function postgresSchemaVersion(q: pg.Pool | pg.PoolClient): Promise<number> {
  await q.query(VERSION_TABLE);
  const r = await q.query<{ v: number | null }>('SELECT max(version) AS v FROM schema_version');
  return Number(r.rows[0]?.v ?? 0);
}

export async function migratePostgres(pool: pg.Pool, now: () => number): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    for (const m of pendingMigrations(await postgresSchemaVersion(client))) {
      // Each migration and its record commit together: a crash leaves the database at a version.
      await client.query('BEGIN');
      try {
        await client.query(m.postgres);
        await client.query(
          'INSERT INTO schema_version (version, name, applied_at) VALUES ($1, $2, $3)',
          [m.version, m.name, now()],
        );
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => {});
        throw err;
      }
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {});
    client.release();
  }
}
