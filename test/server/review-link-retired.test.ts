/**
 * A Details link after its review URL is dropped (CONFORMANCE "Do not store review URLs long-term"):
 * it works while the case is open and through the grace after the end; once the retention pass has
 * dropped the URL (here at the start of a relay a day later), /r/ answers 410 with a page that
 * names no review URL, the case view says the link is retired, and the final card keeps only the
 * relay's own link to that page.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import {
  type DemoHandle,
  eventually,
  type RelayHandle,
  startDemo,
  startRelay,
} from '../helpers/relay-env.ts';
import { roomMessages, tapWeb } from '../reliability/web.ts';

const SECRET_KEY = 'review-link-retired-secret-0123';
const DAY = 86_400_000;
let clock = Date.now();
let demo: DemoHandle;
let relay: RelayHandle | undefined;
const dataDir = mkdtempSync(join(tmpdir(), 'hitl-relay-review-link-'));
const start = () =>
  startRelay({
    adapters: [createWebAdapter()],
    env: { RELAY_SECRET_KEY: SECRET_KEY },
    now: () => clock,
    dataDir,
  });

beforeAll(async () => {
  demo = await startDemo();
});
afterAll(async () => {
  await relay?.stop();
  await demo?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

it('REVIEWURL-4 a Details link answers 410 once its case ended and its review URL was dropped', async () => {
  relay = await start();
  const response = await demo.create('approval', true);
  const sent = await relay.send('web:retire', response);
  expect(sent.status).toBe(201);
  const card = await eventually(
    async () => (await roomMessages(relay!.url, 'retire')).find((m) => m.case === sent.body.id),
    10_000,
    'the card',
  );
  const link: string = card.link.url;
  const open = await request(link);
  await open.body.dump();
  expect(open.statusCode).toBe(303);

  // A person approves; the case ends; within the grace the link still leads to the review.
  expect((await tapWeb(relay.url, 'retire', card.id, 'approve')).status).toBeLessThan(300);
  const ended = await relay.until(sent.body.id, (c) => c.status === 'completed', 15_000);
  expect(ended.review_link.state).toBe('kept');
  const kept = await request(link);
  await kept.body.dump();
  expect(kept.statusCode).toBe(303);
  expect(kept.headers.location).toBe(response.hitl.review_url);

  // A day later the relay starts again; its first retention pass drops the URL.
  await relay.stop();
  clock += DAY + 60_000;
  relay = await start();
  const view = await eventually(
    async () => {
      const c = await relay!.get(sent.body.id);
      return c.review_link.state === 'retired' ? c : undefined;
    },
    15_000,
    'the review link retired',
  );
  expect(view.review_link.at).toEqual(expect.any(String));
  // The same link on the new relay's port (PORT=0 in tests).
  const gone = await request(`${relay.url}${new URL(link).pathname}`);
  const page = await gone.body.text();
  expect(gone.statusCode).toBe(410);
  expect(gone.headers.location).toBeUndefined();
  expect(gone.headers['cache-control']).toBe('no-store');
  expect(page).not.toContain(response.hitl.review_url);
  expect(page).not.toContain(new URL(response.hitl.review_url).searchParams.get('token') ?? '\0');
  // The final card keeps the relay's own link (its page says why), never the review URL.
  const final = (await roomMessages(relay.url, 'retire')).find((x) => x.case === sent.body.id);
  expect(new URL(final.link.url).pathname).toBe(new URL(link).pathname);
  expect(JSON.stringify(final)).not.toContain(response.hitl.review_url);
});
