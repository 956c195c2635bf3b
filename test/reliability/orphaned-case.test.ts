/**
 * Finding 1 (orphaned case): a crash or a full disk between storing a case and reserving its
 * message left a case that nothing would ever post, and the agent's retry got 200 with no
 * messages. Now the case and its message reservations are one write, a retried intake finishes
 * an unposted delivery, and a full disk answers 507 with nothing half-written.
 *
 * Real pieces: the relay (SQLite made "full" with max_page_count, a real SQLITE_FULL), the
 * Telegram adapter against the fake Bot API, the demo HITL service for the 202 bodies.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTelegramAdapter } from '../../platforms/telegram/index.ts';
import { aliveKey } from '../../src/cases/posting-lease.ts';
import { readConfig } from '../../src/config/config.ts';
import { createLogger } from '../../src/log.ts';
import { createRelay, type Relay } from '../../src/relay.ts';
import { openSqliteStore } from '../../src/store/sqlite-store.ts';
import type { StoredCase } from '../../src/store/types.ts';
import { FakeTelegramApi } from '../fakes/telegram-api.ts';
import { type DemoHandle, startDemo } from '../helpers/relay-env.ts';

const CHAT = -1001234500001;
const target = `telegram:${CHAT}`;
let demo: DemoHandle;
let tg: FakeTelegramApi;
const dirs: string[] = [];

beforeAll(async () => {
  demo = await startDemo();
  tg = await FakeTelegramApi.start();
});
afterAll(async () => {
  await tg?.close();
  await demo?.stop();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function dataDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'hitl-orphan-'));
  dirs.push(d);
  writeFileSync(join(d, 'relay-config.json'), '{}');
  return d;
}

async function startRelay(dir: string, maxPageCount?: number): Promise<Relay> {
  const config = readConfig({
    PORT: '0',
    DATA_DIR: dir,
    RELAY_CONFIG: join(dir, 'relay-config.json'),
    DEMO: '0',
    POLL_INTERVAL_MIN_SECONDS: '300',
    POLL_INTERVAL_MAX_SECONDS: '600',
  });
  const relay = createRelay({
    config,
    store: openSqliteStore(join(dir, 'hitl-relay.sqlite'), Date.now, { maxPageCount }),
    adapters: [
      createTelegramAdapter({
        botToken: tg.token,
        apiRoot: tg.apiRoot,
        botInfo: tg.botInfo,
        pace: { perChatIntervalMs: 1, groupWindowMs: 5, globalWindowMs: 1 },
        retry: { retryAfterUnitMs: 1 },
        pollingTimeoutSeconds: 1,
      }),
    ],
    log: createLogger({ level: 'silent' }),
    repostAfterMs: 60_000,
  });
  await relay.start();
  return relay;
}

async function send(relay: Relay, response: unknown): Promise<{ status: number; body: any }> {
  const res = await request(`${relay.url}/v1/cases`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ target, response }),
  });
  return { status: res.statusCode, body: await res.body.json() };
}

/** Cards in the chat whose text carries `marker` (from the case's prompt). */
function cardsFor(marker: string): number {
  return tg.messages(CHAT).filter(({ message }) => (message.text ?? '').includes(marker)).length;
}

it('finding 1 (orphaned case): a retried intake of a case stored without its message posts it', async () => {
  const dir = dataDir();
  const body = await demo.create('approval', true, { prompt: `Orphan ${Date.now()}` });
  const hitl = body.hitl as Record<string, any>;
  // What a crash between the two writes of b0cfcf7 left behind: the case row, no message row.
  const store = openSqliteStore(join(dir, 'hitl-relay.sqlite'));
  const { submit_token, review_url, ...stored } = hitl;
  const orphan: StoredCase = {
    id: 'hc_orphan000001',
    key: 'orphan',
    origin: new URL(hitl.poll_url).origin,
    case_id: hitl.case_id,
    target,
    status: 'pending',
    version: 1,
    doc: { hitl: stored as StoredCase['doc']['hitl'], warnings: [], reminders_sent: [] },
    secrets: `plain:${JSON.stringify({ submit_token, review_url })}`,
    next_check_at: Date.now() + 300_000,
    etag: null,
    poll_failures: 0,
    claim: null,
    created_at: Date.now(),
    updated_at: Date.now(),
  };
  await store.createCase(orphan);
  await store.close();

  const relay = await startRelay(dir);
  try {
    const retry = await send(relay, body);
    expect(retry.status).toBe(200);
    expect(retry.body.id).toBe(orphan.id);
    expect(retry.body.messages).toMatchObject([{ target, state: 'posted' }]);
    expect(cardsFor(hitl.prompt)).toBe(1);
    // A second retry posts nothing more.
    expect((await send(relay, body)).status).toBe(200);
    expect(cardsFor(hitl.prompt)).toBe(1);
  } finally {
    await relay.stop();
  }
});

it('finding 1 (orphaned case): reconcile posts a case an older version left without its message', async () => {
  const dir = dataDir();
  const body = await demo.create('approval', true, { prompt: `Orphan-reconcile ${Date.now()}` });
  const hitl = body.hitl as Record<string, any>;
  const store = openSqliteStore(join(dir, 'hitl-relay.sqlite'));
  const { submit_token, review_url, ...stored } = hitl;
  await store.createCase({
    id: 'hc_orphan000002',
    key: 'orphan2',
    origin: new URL(hitl.poll_url).origin,
    case_id: hitl.case_id,
    target,
    status: 'pending',
    version: 1,
    doc: { hitl: stored as StoredCase['doc']['hitl'], warnings: [], reminders_sent: [] },
    secrets: `plain:${JSON.stringify({ submit_token, review_url })}`,
    next_check_at: Date.now() + 300_000,
    etag: null,
    poll_failures: 0,
    claim: null,
    created_at: Date.now() - 3_600_000,
    updated_at: Date.now() - 3_600_000,
  });
  await store.close();
  const relay = await startRelay(dir);
  try {
    // No retry from the agent: the start-up reconcile finds the case and posts its card.
    const deadline = Date.now() + 10_000;
    while (cardsFor(hitl.prompt) === 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    expect(cardsFor(hitl.prompt)).toBe(1);
  } finally {
    await relay.stop();
  }
});

it('finding 1 (orphaned case): a full disk answers 507 with nothing half-written, and the retry posts once', async () => {
  const dir = dataDir();
  const file = join(dir, 'hitl-relay.sqlite');
  // Create the schema, then allow only a few more pages: the disk fills after a handful of cases.
  await (await startRelay(dir)).stop();
  const probe = new Database(file);
  const pages = probe.pragma('page_count', { simple: true }) as number;
  probe.close();
  const relay = await startRelay(dir, pages + 6);
  const sent: Array<{ body: any; status: number; id?: string }> = [];
  let full: { body: any } | undefined;
  try {
    for (let i = 0; i < 400 && !full; i++) {
      const body = await demo.create('approval', true, {
        prompt: `Disk-${i}- ${'x'.repeat(400)}`,
      });
      const res = await send(relay, body);
      expect([201, 507]).toContain(res.status);
      if (res.status === 507) {
        expect(res.body).toMatchObject({ error: 'insufficient_storage' });
        full = { body };
      } else sent.push({ body, status: res.status, id: res.body.id });
    }
    expect(full).toBeDefined();
  } finally {
    await relay.stop();
  }
  // Nothing half-written: every stored case has its message row, the refused one is not stored.
  const db = new Database(file, { readonly: true });
  const orphans = db
    .prepare(
      'SELECT count(*) AS n FROM cases c WHERE NOT EXISTS (SELECT 1 FROM messages m WHERE m.case_id = c.id)',
    )
    .get() as { n: number };
  const refused = db
    .prepare('SELECT count(*) AS n FROM cases WHERE case_id = ?')
    .get(full!.body.hitl.case_id) as { n: number };
  const count = db.prepare('SELECT count(*) AS n FROM cases').get() as { n: number };
  db.close();
  expect(orphans.n).toBe(0);
  expect(refused.n).toBe(0);
  expect(count.n).toBe(sent.length);

  // Room again: the agent's retry is taken and every case has exactly one card.
  const again = await startRelay(dir);
  try {
    const retry = await send(again, full!.body);
    expect(retry.status).toBe(201);
    expect(retry.body.messages).toMatchObject([{ target, state: 'posted' }]);
    for (const s of [...sent, { body: full!.body }])
      expect(cardsFor(s.body.hitl.prompt.split(' ')[0])).toBe(1);
  } finally {
    await again.stop();
  }
});

for (const holderAlive of [false, true])
  it(`finding 1 (orphaned case): a post cut by a SIGKILL (its posting lease held by a ${holderAlive ? 'live' : 'dead'} process) is ${holderAlive ? 'left to its holder' : 'taken over at once, not after 15 min'}`, async () => {
    const dir = dataDir();
    const body = await demo.create('approval', true, {
      prompt: `Cut-post-${holderAlive ? 'alive' : 'dead'} ${Date.now()}`,
    });
    const hitl = body.hitl as Record<string, any>;
    // What the chaos run found: the process took the posting lease, then died before the post
    // was recorded; the lease would have held the card back for 15 minutes.
    const store = openSqliteStore(join(dir, 'hitl-relay.sqlite'));
    const { submit_token, review_url, ...stored } = hitl;
    const id = holderAlive ? 'hc_cutpost00001' : 'hc_cutpost00002';
    const at = Date.now() - 120_000;
    await store.createCase(
      {
        id,
        key: holderAlive ? 'cutpa' : 'cutpd',
        origin: new URL(hitl.poll_url).origin,
        case_id: hitl.case_id,
        target,
        status: 'pending',
        version: 1,
        doc: { hitl: stored as StoredCase['doc']['hitl'], warnings: [], reminders_sent: [] },
        secrets: `plain:${JSON.stringify({ submit_token, review_url })}`,
        next_check_at: Date.now() + 300_000,
        etag: null,
        poll_failures: 0,
        claim: null,
        created_at: at,
        updated_at: at,
      },
      {
        messages: [
          {
            case_id: id,
            target,
            platform: 'telegram',
            address: String(CHAT),
            ref_id: null,
            state: 'posting',
            rendered_version: 1,
            error: null,
            posted_at: at,
          },
        ],
      },
    );
    await store.kv.set(`posting:${id}:${target}`, 'killed-1234-abcdef', 15 * 60_000);
    if (holderAlive) await store.kv.set(aliveKey('killed-1234-abcdef'), '1', 60_000);
    await store.close();
    // The start-up reconcile (awaited by start) is what posts it, or leaves it to its live holder.
    const relay = await startRelay(dir);
    try {
      expect(cardsFor(hitl.prompt)).toBe(holderAlive ? 0 : 1);
    } finally {
      await relay.stop();
    }
  });
