/** Answers sealed at rest in the relay's own SQLite file (issue 32 item 5): the rows read raw. */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openSqliteStore } from '../../src/store/sqlite-store.ts';
import { tempDirs } from '../helpers/temp.ts';
import { sealedAnswerChecks } from './sealed-answers-cases.ts';

const temp = tempDirs();

sealedAnswerChecks('sqlite', async () => {
  const file = join(temp.make('sealed-answers-'), 'hitl-relay.sqlite');
  const store = openSqliteStore(file);
  return {
    store,
    async rows() {
      const db = new Database(file, { readonly: true });
      try {
        const tables = db
          .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
          .all();
        return JSON.stringify(tables.map((t) => db.prepare(`SELECT * FROM "${t.name}"`).all()));
      } finally {
        db.close();
      }
    },
    close: () => store.close(),
  };
});
