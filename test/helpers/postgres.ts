/** A fresh schema on the test PostgreSQL server (PG_TEST_URL, started by scripts/with-postgres.mjs). */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

/** The server URL; tests fail loudly without it (CI starts PostgreSQL for real, no skipping). */
export function pgTestUrl(): string {
  const url = process.env.PG_TEST_URL;
  if (!url)
    throw new Error(
      'PG_TEST_URL is not set: run the tests with `npm test` (scripts/with-postgres.mjs starts a server)',
    );
  return url;
}

/** Creates an empty schema and returns a connection URL whose search_path is that schema. */
export async function freshSchemaUrl(): Promise<string> {
  const url = pgTestUrl();
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`CREATE SCHEMA ${schema}`);
  await client.end();
  const u = new URL(url);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return u.toString();
}
