/** Answers sealed at rest in PostgreSQL (issue 32 item 5): the rows read raw with pg. */
import pg from 'pg';
import { openPostgresStore } from '../../src/store/postgres-store.ts';
import { freshSchemaUrl } from '../helpers/postgres.ts';
import { sealedAnswerChecks } from './sealed-answers-cases.ts';

sealedAnswerChecks('postgres', async () => {
  const url = await freshSchemaUrl();
  const store = await openPostgresStore(url);
  return {
    store,
    async rows() {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        const out: unknown[] = [];
        for (const t of ['cases', 'notify_outbox', 'history', 'kv', 'messages'])
          out.push((await client.query(`SELECT * FROM ${t}`)).rows);
        return JSON.stringify(out);
      } finally {
        await client.end();
      }
    },
    close: () => store.close(),
  };
});
