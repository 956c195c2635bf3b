/**
 * SQLite files of the HITL service from before it used the numbered migrations kept their cases in
 * demo_* tables the service created (and upgraded) itself. Migration 5 moves those rows into the
 * asks_* tables: a file in that layout (built here with the old DDL, holding real cases the service
 * made) opens with every case, its events, its tokens and its respond requests, and the old tables
 * are gone. A file from before compare-and-set and retention (no version, closed_at, received_at)
 * opens too.
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteServiceStore } from '../../src/hitl-service/service-store.ts';
import { SCHEMA_VERSION } from '../../src/store/migrations.ts';
import {
  createCase,
  type DemoServer,
  inlineSubmit,
  type Json,
  poll,
  startDemoServer,
  submitBody,
} from '../demo/helpers.ts';
import { tempDirs } from '../helpers/temp.ts';

const temp = tempDirs();

/** The tables as the service's own DDL and its upgrade() left them (main before migration 5). */
const TODAYS_LAYOUT = `
  CREATE TABLE demo_cases (case_id TEXT PRIMARY KEY, data TEXT NOT NULL, review_hash BLOB NOT NULL,
    submit_hash BLOB, due_at INTEGER, version INTEGER NOT NULL DEFAULT 1, closed_at INTEGER);
  CREATE INDEX demo_cases_due ON demo_cases (due_at);
  CREATE TABLE demo_events (case_id TEXT NOT NULL, seq INTEGER NOT NULL, event TEXT NOT NULL,
    data TEXT NOT NULL, PRIMARY KEY (case_id, seq));
  CREATE TABLE demo_submissions (id INTEGER PRIMARY KEY AUTOINCREMENT, data TEXT NOT NULL,
    received_at INTEGER);
  CREATE INDEX demo_cases_closed ON demo_cases (closed_at) WHERE closed_at IS NOT NULL;
  CREATE INDEX demo_submissions_received ON demo_submissions (received_at);`;

/** The first layout: before compare-and-set (version) and retention (closed_at, received_at). */
const FIRST_LAYOUT = `
  CREATE TABLE demo_cases (case_id TEXT PRIMARY KEY, data TEXT NOT NULL, review_hash BLOB NOT NULL,
    submit_hash BLOB, due_at INTEGER);
  CREATE INDEX demo_cases_due ON demo_cases (due_at);
  CREATE TABLE demo_events (case_id TEXT NOT NULL, seq INTEGER NOT NULL, event TEXT NOT NULL,
    data TEXT NOT NULL, PRIMARY KEY (case_id, seq));
  CREATE TABLE demo_submissions (id INTEGER PRIMARY KEY AUTOINCREMENT, data TEXT NOT NULL);`;

/** What the service wrote before the file was put in the old layout. */
interface Made {
  file: string;
  /** The open case's 202 hitl object (its tokens). */
  open: Json;
  answered: string;
  versions: Record<string, number>;
  events: number;
}

let servers: DemoServer[] = [];
afterEach(async () => {
  for (const s of servers) await s.close();
  servers = [];
});

async function start(file: string): Promise<DemoServer> {
  const server = await startDemoServer({ store: new SqliteServiceStore(file) });
  servers.push(server);
  return server;
}

/** Real cases made by the service: one open, one answered inline (events, a respond request). */
async function makeCases(): Promise<Made> {
  const file = join(temp.make('hitl-made-'), 'made.sqlite');
  const server = await start(file);
  const { hitl: open } = await createCase(server.base, 'approval', true);
  const { hitl: other } = await createCase(server.base, 'confirmation', true);
  expect((await fetch(other.review_url)).status).toBe(200);
  const r = await inlineSubmit(other.submit_url, other.submit_token, submitBody('confirm'));
  expect(r.status).toBe(200);
  await server.close();
  servers = [];
  const db = new Database(file, { readonly: true });
  const rows = db.prepare('SELECT case_id, version FROM asks_cases').all() as Json[];
  const events = db.prepare('SELECT count(*) FROM asks_events').pluck().get() as number;
  db.close();
  const versions = Object.fromEntries(rows.map((x) => [x.case_id, x.version]));
  return { file, open, answered: other.case_id as string, versions, events };
}

/** The same rows in a file of the old layout, as that build wrote them (no schema_version). */
function oldLayoutFile(made: Made, layout: string, withNewColumns: boolean): string {
  const file = join(temp.make('hitl-demo-tables-'), 'asks.sqlite');
  const db = new Database(file);
  db.exec(layout);
  db.prepare('ATTACH DATABASE ? AS made').run(made.file);
  db.exec(
    withNewColumns
      ? `INSERT INTO demo_cases SELECT case_id, data, review_hash, submit_hash, due_at, version, closed_at FROM made.asks_cases;
         INSERT INTO demo_submissions SELECT id, data, received_at FROM made.asks_submissions;`
      : `INSERT INTO demo_cases SELECT case_id, data, review_hash, submit_hash, due_at FROM made.asks_cases;
         INSERT INTO demo_submissions SELECT id, data FROM made.asks_submissions;`,
  );
  db.exec('INSERT INTO demo_events SELECT case_id, seq, event, data FROM made.asks_events');
  db.exec('DETACH DATABASE made');
  db.close();
  return file;
}

function tables(file: string): string[] {
  const db = new Database(file, { readonly: true });
  const names = db
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
    .pluck()
    .all() as string[];
  db.close();
  return names;
}

describe.each([
  ["today's layout", TODAYS_LAYOUT, true],
  ['the first layout', FIRST_LAYOUT, false],
])('a service file in %s', (_name, layout, withNewColumns) => {
  it('opens with every case, event, token and respond request; the demo_* tables are gone', async () => {
    const made = await makeCases();
    const file = oldLayoutFile(made, layout, withNewColumns);

    const store = new SqliteServiceStore(file);
    try {
      const answered = await store.get(made.answered);
      expect(answered?.kase.status).toBe('completed');
      const open = await store.get(made.open.case_id);
      expect(open?.kase.status).toBe('pending');
      // Versions are what ETags are made of: kept where the file had them, 1 where it had none.
      for (const [id, version] of Object.entries(made.versions))
        expect((await store.stateOf(id))?.version).toBe(withNewColumns ? version : 1);
      expect((await store.eventsAfter(made.answered, 0)).length).toBe(made.events);
      expect((await store.submissions()).map((x) => x.case_id)).toEqual([made.answered]);
      expect(await store.nextDue()).toBe(Date.parse(open!.kase.expires_at));
    } finally {
      await store.close();
    }
    const names = tables(file);
    expect(names.filter((t) => t.startsWith('demo_'))).toEqual([]);
    expect(names).toEqual(
      expect.arrayContaining(['asks_cases', 'asks_events', 'asks_submissions']),
    );
    const db = new Database(file, { readonly: true });
    expect(db.prepare('SELECT max(version) FROM schema_version').pluck().get()).toBe(
      SCHEMA_VERSION,
    );
    db.close();

    // The service on the upgraded file: both cases poll, and the open one takes its submit token.
    const server = await start(file);
    const at = (url: string) => url.replace(/^http:\/\/127\.0\.0\.1:\d+\/demo/, server.base);
    const polled = await poll(at(made.open.poll_url));
    expect(polled.json).toMatchObject({ case_id: made.open.case_id, status: 'pending' });
    const r = await inlineSubmit(
      at(made.open.submit_url),
      made.open.submit_token,
      submitBody('approve'),
    );
    expect(r.status).toBe(200);
    const done = await poll(`${server.base}/api/reviews/${made.answered}/status`);
    expect(done.json).toMatchObject({ status: 'completed' });
  });
});
