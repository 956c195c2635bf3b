/**
 * A post whose lease lapsed with its dead holder is posted again, with `post_retaken` in the case's
 * history (card-delivery.ts, the 'lapsed' takeover), on a clock the test moves. What a process
 * killed in the middle of a post leaves is written into the real store: the message slot still
 * 'posting' with no error, and its posting lease; the process's card did land (the web chat shows
 * it), which is why the history must say a second card may appear. The chaos test covers this only
 * by timing; here each step is run by the test.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { readConfig } from '../../src/config/config.ts';
import { createLogger } from '../../src/log.ts';
import { parse202Body } from '../../src/protocol/hitl.ts';
import { createRelay, type Relay } from '../../src/relay.ts';
import { type SpecDouble, startSpecDouble } from '../fakes/spec-double.ts';
import { roomMessages } from '../reliability/web.ts';

const LEASE_MS = 60_000;
let clock = Date.now();
let double: SpecDouble;
let relay: Relay;
const lines: string[] = [];
const dataDir = mkdtempSync(join(tmpdir(), 'hitl-lapsed-'));

beforeAll(async () => {
  double = await startSpecDouble();
  relay = createRelay({
    config: readConfig({
      PORT: '0',
      DATA_DIR: dataDir,
      DEMO: '0',
      LEASE_SECONDS: String(LEASE_MS / 1000),
    }),
    adapters: [createWebAdapter()],
    log: createLogger({
      level: 'warn',
      format: 'json',
      destination: { write: (l) => void lines.push(l) },
    }),
    now: () => clock,
    // Nothing runs on its own: the test runs each reconcile pass.
    watcher: { tickMs: 2 ** 31 - 1 },
    reconcileEveryMs: 2 ** 31 - 1,
  });
  await relay.start();
});
afterAll(async () => {
  await relay?.stop();
  await double?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A case whose card is posted, then its slot set back to what a process killed mid-post leaves. */
async function cutPost(room: string, leftover: { error: string | null; holder?: string }) {
  const body = double.create();
  delete body.hitl.events_url;
  const { case: c } = await relay.services.intake.ingest({
    target: `web:${room}`,
    hitl: parse202Body(body).hitl,
  });
  const store = relay.services.store;
  const [posted] = await store.listMessages(c.id);
  expect(posted?.state).toBe('posted');
  await store.updateMessage({
    ...posted!,
    ref_id: null,
    state: 'posting',
    error: leftover.error,
    posted_at: clock,
  });
  if (leftover.holder) await store.kv.set(`posting:${c.id}:web:${room}`, leftover.holder, LEASE_MS);
  return c;
}

const reconcile = () => relay.services.cards.reconcile({ retryPostingOlderThanMs: 2000 });
const retaken = async (id: string) =>
  (await relay.services.store.listHistory(id)).filter((h) => h.kind === 'post_retaken');

it("a dead holder's lapsed posting lease: posted again, once, with post_retaken in the history", async () => {
  const c = await cutPost('lapsed', { error: null, holder: 'dead-replica' });
  expect(await roomMessages(relay.url, 'lapsed')).toHaveLength(1);

  // While the lease lasts and its holder looks alive, nobody posts: its post may be under way.
  clock += LEASE_MS - 1;
  await relay.services.store.kv.set('alive:dead-replica', '1', 10_000);
  await reconcile();
  expect(await roomMessages(relay.url, 'lapsed')).toHaveLength(1);
  expect(await retaken(c.id)).toEqual([]);

  clock += 2; // the lease lapsed: its holder stopped renewing it (it died mid-post)
  await reconcile();
  const [m] = await relay.services.store.listMessages(c.id);
  expect(m).toMatchObject({ state: 'posted', error: null });
  expect(m?.ref_id).toBeTruthy();
  expect(await roomMessages(relay.url, 'lapsed')).toHaveLength(2);
  expect((await retaken(c.id)).map((h) => h.detail)).toEqual([{ target: 'web:lapsed' }]);
  const warn = lines.map((l) => JSON.parse(l)).find((l) => l.case === c.id);
  expect(warn).toMatchObject({ holder: 'lapsed', target: 'web:lapsed' });

  // Done: a later pass posts nothing more.
  clock += LEASE_MS;
  await reconcile();
  expect(await roomMessages(relay.url, 'lapsed')).toHaveLength(2);
  expect(await retaken(c.id)).toHaveLength(1);
});

it('a post that failed and waits for its retry is posted again without post_retaken', async () => {
  const c = await cutPost('failed', { error: 'sendMessage: 502' });
  clock += LEASE_MS;
  await reconcile();
  expect((await relay.services.store.listMessages(c.id))[0]?.state).toBe('posted');
  expect(await retaken(c.id)).toEqual([]);
});
