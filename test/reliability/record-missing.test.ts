/**
 * Disk full after a post (issue 32, item 6): a card was sent but its record could not be written,
 * and the live relay later posted it again as if its process had died: two cards, the old one with
 * live buttons. Now the record is retried (sent, record missing), never the post.
 *
 * Real pieces: the relay on SQLite made full for real (max_page_count, then another connection
 * fills the last pages, so the relay's next write gets SQLITE_FULL), the Telegram adapter against
 * the fake Bot API, the demo HITL service.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTelegramAdapter } from '../../platforms/telegram/index.ts';
import { readConfig } from '../../src/config/config.ts';
import { createLogger } from '../../src/log.ts';
import { createRelay, type Relay } from '../../src/relay.ts';
import { openSqliteStore } from '../../src/store/sqlite-store.ts';
import { FakeTelegramApi } from '../fakes/telegram-api.ts';
import { type DemoHandle, startDemo } from '../helpers/relay-env.ts';

const CHAT = -1001234500077;
const target = `telegram:${CHAT}`;
let demo: DemoHandle;
let tg: FakeTelegramApi;
const dir = mkdtempSync(join(tmpdir(), 'hitl-record-missing-'));
beforeAll(async () => {
  demo = await startDemo();
  tg = await FakeTelegramApi.start();
  writeFileSync(join(dir, 'relay-config.json'), '{}');
});
afterAll(async () => {
  await tg?.close();
  await demo?.stop();
  rmSync(dir, { recursive: true, force: true });
});

function startRelay(file: string, maxPageCount: number | undefined, logs: string[]): Relay {
  return createRelay({
    config: readConfig({
      PORT: '0',
      DATA_DIR: dir,
      RELAY_CONFIG: join(dir, 'relay-config.json'),
      DEMO: '0',
      POLL_INTERVAL_MIN_SECONDS: '300',
      POLL_INTERVAL_MAX_SECONDS: '600',
    }),
    store: openSqliteStore(file, Date.now, { maxPageCount }),
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
    log: createLogger({ level: 'warn', destination: { write: (l) => void logs.push(l) } }),
    // A post not recorded within 300 ms would be taken as cut by its process's death.
    repostAfterMs: 300,
    reconcileEveryMs: 100,
  });
}

/** Waits until `ok()` holds, failing after `ms`. */
async function until(ok: () => boolean, ms: number, what: string) {
  const t0 = Date.now();
  while (!ok()) {
    if (Date.now() - t0 > ms) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

it('RECORD-MISSING-1: a card sent while the disk is full is recorded once there is room, never posted twice', async () => {
  const file = join(dir, 'hitl-relay.sqlite');
  const logs: string[] = [];
  const first = startRelay(file, undefined, logs);
  await first.start(); // the schema
  await first.stop();
  const probe = new Database(file);
  const limit = (probe.pragma('page_count', { simple: true }) as number) + 40;
  probe.close();
  const relay = startRelay(file, limit, logs);
  await relay.start();
  const filler = new Database(file);
  try {
    const body = await demo.create('approval', true, { prompt: `Full-disk ${Date.now()}` });
    const marker = body.hitl.prompt as string;
    const cards = () =>
      tg.messages(CHAT).filter(({ message }) => (message.text ?? '').includes(marker)).length;
    // The post waits at Telegram while the disk fills up to the relay's limit.
    const release = tg.hold('sendMessage');
    const intake = request(`${relay.url}/v1/cases`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ target, response: body }),
    });
    await until(() => tg.requests().some((r) => r.method === 'sendMessage'), 5000, 'the post');
    filler.pragma(`max_page_count = ${limit}`);
    filler.exec('CREATE TABLE IF NOT EXISTS filler (b BLOB)');
    const fill = (sql: string, arg: unknown) => {
      const st = filler.prepare(sql);
      for (;;)
        try {
          st.run(arg);
        } catch (err) {
          expect(String(err)).toMatch(/full/i);
          return;
        }
    };
    fill('INSERT INTO filler (b) VALUES (?)', Buffer.alloc(2000));
    fill("INSERT INTO history (case_id, at, kind, detail) VALUES (?, 0, 'x', '')", 'z');
    fill('INSERT INTO filler (b) VALUES (?)', Buffer.alloc(1));
    release();
    const answer = await intake;
    expect(answer.statusCode).toBe(201);
    await answer.body.json();
    // The record is retried (three times at least, past several reconcile passes) …
    const missing = () => logs.filter((l) => l.includes('sent, record missing')).length;
    await until(() => missing() >= 3 || cards() > 1, 10_000, 'three record retries');
    expect(cards()).toBe(1);
    // … and lands once there is room again.
    // The relay retries its record in the meantime; on a busy machine its write can hold the
    // lock past the busy timeout, so the room is made as soon as the lock is free.
    const free = (sql: string) => () => {
      try {
        filler.exec(sql);
        return true;
      } catch (err) {
        if (!/locked|busy/i.test(String(err))) throw err;
        return false;
      }
    };
    await until(free('DELETE FROM filler'), 20_000, 'room in the file');
    await until(free("DELETE FROM history WHERE case_id = 'z'"), 20_000, 'room in history');
    const row = () =>
      filler.prepare('SELECT state, ref_id FROM messages WHERE target = ?').get(target) as
        | { state: string; ref_id: string | null }
        | undefined;
    await until(() => row()?.state === 'posted', 40_000, 'the record');
    expect(row()?.ref_id).toBeTruthy();
    expect(cards()).toBe(1);
    expect(logs.join('\n')).not.toMatch(/post_retaken|cut by/);
  } finally {
    filler.close();
    await relay.stop();
  }
}, 60_000);
