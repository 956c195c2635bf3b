/** Applies the missing migrations to a SQLite database (src/store/migrations.ts). */
import type Database from 'better-sqlite3';
import { pendingMigrations, VERSION_TABLE } from './migrations.ts';
import { commitOpenBatches } from './sqlite/batch.ts';

/** The highest applied migration (0 for a new database). */
export function sqliteSchemaVersion(db: Database.Database): number {
  db.exec(VERSION_TABLE);
  const row = db.prepare('SELECT max(version) AS v FROM schema_version').get() as {
    v: number | null;
  };
  return row.v ?? 0;
}

export function migrateSqlite(db: Database.Database, now: () => number): void {
  // Another store of this process on the file may hold its write lock until its next turn: the
  // busy wait below would block the very thread that must commit it.
  commitOpenBatches(db);
  db.exec(VERSION_TABLE);
  const record = db.prepare(
    'INSERT INTO schema_version (version, name, applied_at) VALUES (?, ?, ?)',
  );
  // IMMEDIATE: a second process opening the same file waits instead of applying the same step.
  const apply = db.transaction(() => {
    for (const m of pendingMigrations(sqliteSchemaVersion(db))) {
      db.exec(m.sqlite);
      m.sqliteData?.(db);
      record.run(m.version, m.name, now());
    }
  });
  apply.immediate();
}
