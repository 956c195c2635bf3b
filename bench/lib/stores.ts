/** The stores a benchmark can run on: SQLite in the relay's temp dir, or a fresh PostgreSQL schema. */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { openPostgresStore } from '../../src/store/postgres-store.ts';
import { openSqliteStore } from '../../src/store/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';

/** The PostgreSQL server to use (scripts/with-postgres.mjs sets PG_TEST_URL), or undefined. */
export function postgresUrl(): string | undefined {
  return process.env.DATABASE_URL ?? process.env.PG_TEST_URL;
}

/** A store factory for startBenchRelay, and a clean-up for what it made. */
export interface BenchStore {
  name: 'sqlite' | 'postgres';
  open(dataDir: string): Promise<Store>;
  dispose(): Promise<void>;
}

/** SQLite at <dataDir>/bench.sqlite (the relay's default settings: WAL, synchronous NORMAL). */
export function sqliteStore(): BenchStore {
  return {
    name: 'sqlite',
    open: async (dataDir) => openSqliteStore(join(dataDir, 'bench.sqlite')),
    dispose: async () => {},
  };
}

/** A fresh schema on `url` and a URL whose search_path is it, dropped by the returned function. */
export async function freshSchema(url: string): Promise<{ url: string; drop(): Promise<void> }> {
  const schema = `bench_${randomBytes(5).toString('hex')}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE SCHEMA ${schema}`);
  const u = new URL(url);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return { url: u.toString(), drop: () => admin(`DROP SCHEMA IF EXISTS ${schema} CASCADE`) };
}

/** A fresh schema on `url`, dropped afterwards. */
export function postgresStore(url: string): BenchStore {
  let schema: Awaited<ReturnType<typeof freshSchema>> | undefined;
  return {
    name: 'postgres',
    async open() {
      schema = await freshSchema(url);
      return openPostgresStore(schema.url);
    },
    dispose: async () => schema?.drop(),
  };
}
