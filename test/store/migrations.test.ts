/**
 * Versioned migrations (issue 18): both stores record what they applied, adopt a database created
 * before migrations were numbered, refuse one written by a newer hitl-relay, apply each step once
 * when replicas start together, and the two dialects produce the same tables and columns.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS, SCHEMA_VERSION, SchemaTooNewError } from '../../src/store/migrations.ts';
import { openPostgresStore } from '../../src/store/postgres-store.ts';
import { openSqliteStore } from '../../src/store/sqlite-store.ts';
import type { StoredCase } from '../../src/store/types.ts';
import { freshSchemaUrl } from '../helpers/postgres.ts';
import { tempDirs } from '../helpers/temp.ts';

const temp = tempDirs();
const tmpFile = () => join(temp.make('hitl-mig-'), 'relay.sqlite');

/** A case row as the pre-versioning schema held it. */
const OLD_ROW = {
  id: 'c1',
  key: 'k1',
  origin: 'https://svc.example',
  case_id: 'rev_1',
  target: 'web:room',
  status: 'pending',
  version: 1,
  doc: JSON.stringify({ prompt: 'kept across the upgrade' }),
  secrets: 'sealed',
  created_at: 1,
  updated_at: 1,
};
const INSERT_OLD = `INSERT INTO cases (id, key, origin, case_id, target, status, version, doc, secrets, created_at, updated_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`;

describe('SQLite migrations', () => {
  it('a new database records every migration', () => {
    const file = tmpFile();
    openSqliteStore(file);
    const db = new Database(file, { readonly: true });
    const rows = db.prepare('SELECT version, name FROM schema_version ORDER BY version').all();
    expect(rows).toEqual(MIGRATIONS.map((m) => ({ version: m.version, name: m.name })));
    db.close();
  });

  it('a database created before migrations were numbered is adopted with its data', async () => {
    const file = tmpFile();
    const old = new Database(file);
    old.exec(MIGRATIONS[0]!.sqlite);
    old.prepare(INSERT_OLD.replace(/\$\d+/g, '?')).run(...Object.values(OLD_ROW));
    old.close();
    const store = openSqliteStore(file);
    const c = (await store.getCase('c1')) as StoredCase;
    expect(c.doc).toEqual({ prompt: 'kept across the upgrade' });
    const db = new Database(file, { readonly: true });
    expect(db.prepare('SELECT max(version) AS v FROM schema_version').get()).toEqual({
      v: SCHEMA_VERSION,
    });
    db.close();
  });

  it('opening again applies nothing twice', () => {
    const file = tmpFile();
    openSqliteStore(file);
    openSqliteStore(file);
    const db = new Database(file, { readonly: true });
    expect(db.prepare('SELECT count(*) AS n FROM schema_version').get()).toEqual({
      n: MIGRATIONS.length,
    });
    db.close();
  });

  it('a database from a newer hitl-relay is refused with a message that says what to do', () => {
    const file = tmpFile();
    openSqliteStore(file);
    const db = new Database(file);
    db.prepare('INSERT INTO schema_version (version, name, applied_at) VALUES (?, ?, ?)').run(
      SCHEMA_VERSION + 1,
      'from_the_future',
      Date.now(),
    );
    db.close();
    let err: unknown;
    try {
      openSqliteStore(file);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SchemaTooNewError);
    expect(String((err as Error).message)).toMatch(
      new RegExp(
        `version ${SCHEMA_VERSION + 1}, newer than this hitl-relay knows \\(${SCHEMA_VERSION}\\)`,
      ),
    );
    expect((err as Error).message).toMatch(/DATA_DIR/);
  });
});

describe('PostgreSQL migrations', () => {
  async function client(url: string): Promise<pg.Client> {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    return c;
  }

  it('replicas starting together apply each migration once', async () => {
    const url = await freshSchemaUrl();
    const stores = await Promise.all([1, 2, 3].map(() => openPostgresStore(url)));
    const c = await client(url);
    const r = await c.query('SELECT version, name FROM schema_version ORDER BY version');
    expect(r.rows).toEqual(MIGRATIONS.map((m) => ({ version: m.version, name: m.name })));
    await c.end();
    await Promise.all(stores.map((s) => s.close()));
  });

  it('a database created before migrations were numbered is adopted with its data', async () => {
    const url = await freshSchemaUrl();
    const c = await client(url);
    await c.query(MIGRATIONS[0]!.postgres);
    await c.query(INSERT_OLD, Object.values(OLD_ROW));
    const store = await openPostgresStore(url);
    expect((await store.getCase('c1'))?.doc).toEqual({ prompt: 'kept across the upgrade' });
    const r = await c.query('SELECT max(version) AS v FROM schema_version');
    expect(Number(r.rows[0].v)).toBe(SCHEMA_VERSION);
    await c.end();
    await store.close();
  });

  it('a database from a newer hitl-relay is refused', async () => {
    const url = await freshSchemaUrl();
    (await openPostgresStore(url)).close();
    const c = await client(url);
    await c.query('INSERT INTO schema_version (version, name, applied_at) VALUES ($1, $2, $3)', [
      SCHEMA_VERSION + 1,
      'from_the_future',
      Date.now(),
    ]);
    await c.end();
    await expect(openPostgresStore(url)).rejects.toBeInstanceOf(SchemaTooNewError);
  });

  it('both dialects produce the same tables and columns (PostgreSQL keeps an insertion seq where SQLite has rowid)', async () => {
    const file = tmpFile();
    openSqliteStore(file);
    const db = new Database(file, { readonly: true });
    const tables = (
      db
        .prepare(
          "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
        )
        .all() as Array<{ name: string }>
    ).map((t) => t.name);
    const sqlite: Record<string, string[]> = {};
    for (const t of tables)
      sqlite[t] = (db.prepare(`PRAGMA table_xinfo(${t})`).all() as Array<{ name: string }>)
        .map((c) => c.name)
        .sort();
    db.close();

    const url = await freshSchemaUrl();
    const store = await openPostgresStore(url);
    const c = await client(url);
    const r = await c.query<{ table_name: string; column_name: string }>(
      'SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema()',
    );
    await c.end();
    await store.close();
    const postgres: Record<string, string[]> = {};
    for (const row of r.rows)
      postgres[row.table_name] = [...(postgres[row.table_name] ?? []), row.column_name];
    for (const [t, cols] of Object.entries(postgres))
      postgres[t] = cols
        .filter((col) => !(col === 'seq' && (t === 'messages' || t === 'notify_outbox')))
        .sort();
    expect(postgres).toEqual(sqlite);
  });
});
