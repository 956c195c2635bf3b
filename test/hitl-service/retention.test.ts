/**
 * Retention of the service's own data (issue 18), on SQLite and PostgreSQL with a hand-moved clock:
 * a case final for longer than the period is deleted with its events and old respond requests go
 * too; open and recently final cases stay; storage stays bounded over many asks opened and closed;
 * without a period nothing is deleted. Rows are counted in the database itself.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import type { ServiceStore } from '../../src/hitl-service/index.ts';
import { SqliteServiceStore } from '../../src/hitl-service/service-store.ts';
import { openPostgresServiceStore } from '../../src/hitl-service/service-store-postgres.ts';
import {
  createCase,
  type DemoServer,
  inlineSubmit,
  type Json,
  manualClock,
  poll,
  startDemoServer,
  submitBody,
} from '../demo/helpers.ts';
import { freshSchemaUrl } from '../helpers/postgres.ts';
import { tempDirs } from '../helpers/temp.ts';

const temp = tempDirs();

const DAY = 86_400_000;

/** Rows in the service's three tables. */
interface Rows {
  cases: number;
  events: number;
  submissions: number;
}

/** A store of one dialect and a way to count its rows from outside. */
interface Backend {
  open(): Promise<ServiceStore>;
  rows(): Promise<Rows>;
  /** Runs SQL on the database from outside the service. */
  exec(sql: string): Promise<void>;
  /** Undoes what retention added to the schema: the database as an older build left it. */
  downgrade: string;
  end(): Promise<void>;
}

async function sqliteBackend(): Promise<Backend> {
  const file = join(temp.make('hitl-ret-'), 'asks.sqlite');
  let db: Database.Database | undefined;
  return {
    open: async () => new SqliteServiceStore(file),
    async rows() {
      db ??= new Database(file, { readonly: true });
      const n = (t: string) => (db!.prepare(`SELECT count(*) AS n FROM ${t}`).get() as Json).n;
      return {
        cases: n('asks_cases'),
        events: n('asks_events'),
        submissions: n('asks_submissions'),
      };
    },
    async exec(sql) {
      const w = new Database(file);
      w.exec(sql);
      w.close();
    },
    // Migration 4 undone (and the later ones, so 4 applies again): the schema as migration 3 left it.
    downgrade: `DROP INDEX asks_cases_closed; DROP INDEX asks_submissions_received;
      ALTER TABLE asks_cases DROP COLUMN closed_at;
      ALTER TABLE asks_submissions DROP COLUMN received_at;
      DROP INDEX cases_review_url_drop; ALTER TABLE cases DROP COLUMN review_url_drop_at;
      DELETE FROM schema_version WHERE version >= 4;`,
    async end() {
      db?.close();
    },
  };
}

async function postgresBackend(): Promise<Backend> {
  const url = await freshSchemaUrl();
  const pool = new pg.Pool({ connectionString: url, max: 1 });
  return {
    open: () => openPostgresServiceStore(url, { poolSize: 2 }),
    async rows() {
      const n = async (t: string) =>
        (await pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${t}`)).rows[0]!.n;
      return {
        cases: await n('asks_cases'),
        events: await n('asks_events'),
        submissions: await n('asks_submissions'),
      };
    },
    async exec(sql) {
      await pool.query(sql);
    },
    // Migration 4 undone (and the later ones, so 4 applies again): the schema as migration 3 left it.
    downgrade: `ALTER TABLE asks_cases DROP COLUMN closed_at;
      ALTER TABLE asks_submissions DROP COLUMN received_at;
      DELETE FROM schema_version WHERE version >= 4;`,
    end: () => pool.end(),
  };
}

/** Creates a case, opens its review page and answers it inline (two events, one respond request). */
async function openAndClose(server: DemoServer): Promise<string> {
  const { hitl } = await createCase(server.base, 'approval', true);
  const page = await fetch(hitl.review_url);
  expect(page.status).toBe(200);
  await page.text();
  const r = await inlineSubmit(hitl.submit_url, hitl.submit_token, submitBody('approve'));
  expect(r.status).toBe(200);
  return hitl.case_id as string;
}

const statusOf = async (server: DemoServer, caseId: string) =>
  (await poll(`${server.base}/api/reviews/${caseId}/status`)).status;

describe.each([
  ['SQLite', sqliteBackend],
  ['PostgreSQL', postgresBackend],
])('retention of final cases on %s', (_name, makeBackend) => {
  let backend: Backend | undefined;
  let server: DemoServer | undefined;
  afterEach(async () => {
    await server?.close();
    await backend?.end();
    server = undefined;
    backend = undefined;
  });

  async function start(retentionMs?: number) {
    backend = await makeBackend();
    const clock = manualClock();
    server = await startDemoServer({
      store: await backend.open(),
      now: clock.now,
      ...(retentionMs !== undefined && { retentionMs }),
    });
    await server.demo.ready();
    return { clock, server, backend };
  }

  it('a case final for longer than the period goes with its events and respond requests; open and recently final ones stay', async () => {
    const { clock, server, backend } = await start(DAY);
    const old = await openAndClose(server);
    clock.advance(DAY / 2);
    const recent = await openAndClose(server);
    const open = (await createCase(server.base, 'approval', true)).hitl.case_id as string;
    expect(await backend.rows()).toEqual({ cases: 3, events: 4, submissions: 2 });

    // Exactly the period after `old` closed: not yet past it.
    clock.advance(DAY / 2);
    expect(await server.demo.purge()).toEqual({ cases: 0, submissions: 0 });
    clock.advance(1);
    expect(await server.demo.purge()).toEqual({ cases: 1, submissions: 1 });
    expect(await backend.rows()).toEqual({ cases: 2, events: 2, submissions: 1 });
    expect(await statusOf(server, old)).toBe(404);
    expect(await statusOf(server, recent)).toBe(200);

    // An open case is never purged, however old; it expires first and is then kept the period.
    clock.advance(DAY);
    expect(await server.demo.purge()).toEqual({ cases: 1, submissions: 1 });
    expect(await statusOf(server, recent)).toBe(404);
    const stillThere = await poll(`${server.base}/api/reviews/${open}/status`);
    expect(stillThere.json).toMatchObject({ case_id: open, status: 'expired' });
    clock.advance(DAY + 1);
    expect((await server.demo.purge()).cases).toBe(1);
    expect(await backend.rows()).toEqual({ cases: 0, events: 0, submissions: 0 });
  });

  it('storage stays bounded over many asks opened and closed', async () => {
    const { clock, server, backend } = await start(DAY);
    const counts: Rows[] = [];
    // 60 asks, one every hour: at any time at most a day's worth (24-25) is kept.
    for (let i = 0; i < 60; i++) {
      await openAndClose(server);
      clock.advance(DAY / 24);
      await server.demo.purge();
      counts.push(await backend.rows());
    }
    const most = Math.max(...counts.map((c) => c.cases));
    expect(most).toBeLessThanOrEqual(25);
    expect(counts.at(-1)).toEqual({ cases: most, events: 2 * most, submissions: most });
  });

  it('without a period (the standalone demo) nothing is deleted', async () => {
    const { clock, server, backend } = await start();
    await openAndClose(server);
    clock.advance(365 * DAY);
    expect(await server.demo.purge()).toEqual({ cases: 0, submissions: 0 });
    expect(await backend.rows()).toEqual({ cases: 1, events: 2, submissions: 1 });
  });
});

describe.each([
  ['SQLite', sqliteBackend],
  ['PostgreSQL', postgresBackend],
])('upgrade to asks retention on %s', (_name, makeBackend) => {
  it('a database from before retention gets the columns; its open ask carries on, and both asks go a period after the upgrade', async () => {
    const backend = await makeBackend();
    // Wall time: the upgrade stamps rows from before it with the real clock.
    const clock = manualClock(Date.now());
    const before = await startDemoServer({ store: await backend.open(), now: clock.now });
    const { hitl } = await createCase(before.base, 'approval', true);
    const closed = await openAndClose(before);
    await before.close();
    await backend.exec(backend.downgrade);

    const after = await startDemoServer({
      store: await backend.open(),
      now: clock.now,
      retentionMs: DAY,
    });
    try {
      const at = (url: string) => url.replace(before.base, after.base);
      const polled = await poll(at(hitl.poll_url));
      expect(polled.json).toMatchObject({ case_id: hitl.case_id, status: 'pending' });
      const r = await inlineSubmit(at(hitl.submit_url), hitl.submit_token, submitBody('approve'));
      expect(r.status).toBe(200);
      expect((await poll(at(hitl.poll_url))).json).toMatchObject({ status: 'completed' });
      expect(await statusOf(after, closed)).toBe(200);
      expect(await after.demo.purge()).toEqual({ cases: 0, submissions: 0 });
      expect(await backend.rows()).toEqual({ cases: 2, events: 3, submissions: 2 });

      clock.advance(2 * DAY);
      expect(await after.demo.purge()).toEqual({ cases: 2, submissions: 2 });
      expect(await backend.rows()).toEqual({ cases: 0, events: 0, submissions: 0 });
    } finally {
      await after.close();
      await backend.end();
    }
  });
});
