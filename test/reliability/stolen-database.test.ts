/**
 * A stolen database: with RELAY_SECRET_KEY set, a copy of the SQLite file holds no submit token and
 * no review URL (sealed with AES-256-GCM), nothing in it opens them without the key, and nothing in
 * it mints a Details link (which would make the relay hand out the review URL).
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { linkSignature } from '../../src/cases/ids.ts';
import { createSealer } from '../../src/store/sealer.ts';
import {
  type DemoHandle,
  eventually,
  type RelayHandle,
  startDemo,
  startRelay,
} from '../helpers/relay-env.ts';
import { roomMessages } from './web.ts';

const SECRET_KEY = 'stolen-db-test-secret-key-0123';
let demo: DemoHandle;
let relay: RelayHandle;

beforeAll(async () => {
  demo = await startDemo();
  relay = await startRelay({
    adapters: [createWebAdapter()],
    env: { RELAY_SECRET_KEY: SECRET_KEY },
  });
});
afterAll(async () => {
  await relay?.stop();
  await demo?.stop();
});

it('a copy of the store opens no secret and mints no Details link', async () => {
  const response = await demo.create('approval', true);
  const sent = await relay.send('web:vault', response);
  expect(sent.status).toBe(201);
  const card = await eventually(
    async () => (await roomMessages(relay.url, 'vault')).find((m) => m.case === sent.body.id),
    5000,
    'the card',
  );

  // What a thief copies: every table.
  const db = new Database(join(relay.dataDir, 'hitl-relay.sqlite'), { readonly: true });
  const cases = db.prepare('SELECT key, secrets, doc FROM cases').all() as Array<{
    key: string;
    secrets: string;
    doc: string;
  }>;
  const kv = db.prepare('SELECT k, v FROM kv').all() as Array<{ k: string; v: string }>;
  const everything = JSON.stringify([cases, kv]);
  db.close();

  expect(cases).toHaveLength(1);
  expect(everything).not.toContain(response.hitl.submit_token);
  expect(everything).not.toContain(response.hitl.review_url);
  expect(everything).not.toContain(new URL(response.hitl.review_url).searchParams.get('token'));
  expect(cases[0]!.secrets).toMatch(/^v1:/);
  // Without the key the seal does not open (GCM's tag fails), with it it does.
  expect(() => createSealer('a-guess-at-the-secret-key').open(cases[0]!.secrets)).toThrow();
  expect(createSealer(SECRET_KEY).open(cases[0]!.secrets).submit_token).toBe(
    response.hitl.submit_token,
  );

  // No value in the store signs a Details link the relay accepts.
  const key = cases[0]!.key;
  for (const candidate of [...kv.map((r) => r.v), ...kv.map((r) => r.k), key]) {
    const res = await request(`${relay.url}/r/${key}/${linkSignature(candidate, key)}`);
    await res.body.dump();
    expect(res.statusCode).toBe(404);
  }
  // The real link (from the chat) still works: the control.
  const real = await request(card.link.url);
  await real.body.dump();
  expect(real.statusCode).toBe(303);
  expect(real.headers.location).toBe(response.hitl.review_url);
  // The review URL is not kept in caches nor sent on as a Referer by the browser.
  expect(real.headers['cache-control']).toBe('no-store');
  expect(real.headers['referrer-policy']).toBe('no-referrer');
});

it('LOW-LINK-1: a Details link is compared whole: a signature segment that only ends with the real one is 404', async () => {
  const sent = await relay.send('web:vault-suffix', await demo.create('approval', true));
  const card = await eventually(
    async () =>
      (await roomMessages(relay.url, 'vault-suffix')).find((m) => m.case === sent.body.id),
    5000,
    'the card',
  );
  const real = new URL(card.link.url);
  const [, , key, sig] = real.pathname.split('/') as [string, string, string, string];
  // A segment whose decoded value ends with "/<key>/<signature>": a suffix compare took it.
  for (const padded of [`${key}/${sig}`, `r/${key}/${sig}`, `x/${key}/${sig}`]) {
    const res = await request(`${real.origin}/r/${key}/${encodeURIComponent(padded)}`);
    await res.body.dump();
    expect(res.statusCode, padded).toBe(404);
  }
  for (const wrong of [sig.slice(1), `${sig}x`, `${sig.slice(0, -1)}A`]) {
    const res = await request(`${real.origin}/r/${key}/${wrong}`);
    await res.body.dump();
    expect(res.statusCode, wrong).toBe(404);
  }
  const ok = await request(card.link.url);
  await ok.body.dump();
  expect(ok.statusCode).toBe(303);
});
