/** A card that waits long in a platform's send pace is posted once, though reconcile runs meanwhile. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { createTelegramAdapter } from '../../platforms/telegram/index.ts';
import { openSqliteStore } from '../../src/store/sqlite-store.ts';
import { FakeTelegramApi } from '../fakes/telegram-api.ts';
import {
  type DemoHandle,
  eventually,
  type RelayHandle,
  startDemo,
  startRelay,
} from '../helpers/relay-env.ts';
import { countStore } from '../helpers/store-counter.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'hitl-slow-post-'));
let relay: RelayHandle | undefined;
let fake: FakeTelegramApi | undefined;
let demo: DemoHandle | undefined;
afterAll(async () => {
  // The relay first: its connections to the demo service end with it, so the demo closes at once.
  await relay?.stop();
  await demo?.stop();
  await fake?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

it('posts each of a burst into one chat exactly once', async () => {
  fake = await FakeTelegramApi.start();
  // Telegram's real per-chat pace is ~1 message per second; 1.5 s here makes the last of the burst
  // wait longer than the relay's re-post threshold (2 s in the test relay).
  const adapter = createTelegramAdapter({
    botToken: fake.token,
    apiRoot: fake.apiRoot,
    botInfo: fake.botInfo,
    pace: { perChatIntervalMs: 1500, groupWindowMs: 5, globalWindowMs: 1 },
    pollingTimeoutSeconds: 1,
  });
  demo = await startDemo();
  // The store's calls show each reconcile pass: it begins with staleMessages, ends with orphanCases.
  const counted = countStore(openSqliteStore(join(dataDir, 'hitl-relay.sqlite')));
  const r = await startRelay({ adapters: [adapter], dataDir, store: counted.store });
  relay = r;
  /**
   * One whole reconcile pass that begins now: run here, or after the loop's pass under way (passes
   * never overlap; one started meanwhile returns at once). A pass waits for the posts it makes.
   */
  const reconcilePass = () => {
    const from = counted.calls.length;
    return eventually(
      async () => {
        await r.relay.services.cards.reconcile({ retryPostingOlderThanMs: 2000 });
        const methods = counted.calls.slice(from).map((c) => c.method);
        const begun = methods.indexOf('staleMessages');
        return begun >= 0 && methods.indexOf('orphanCases', begun) > begun;
      },
      10_000,
      'a reconcile pass',
    );
  };
  const bodies = await Promise.all(Array.from({ length: 6 }, () => demo!.create('approval', true)));
  const sending = Promise.all(bodies.map((b) => r.send('telegram:4242', b)));
  // Three posts take 3 s of pace: the last three cards have waited past the re-post threshold.
  await eventually(async () => fake!.calls('sendMessage').length >= 3, 20_000, 'three posts');
  await reconcilePass();
  const sent = await sending;
  expect(sent.map((s) => s.status)).toEqual(Array(6).fill(201));
  await eventually(async () => fake!.calls('sendMessage').length >= 6, 20_000, 'six posts');
  // And one pass over the posted cards; any second post of a card has been sent by its end.
  await reconcilePass();
  expect(fake.calls('sendMessage')).toHaveLength(6);
}, 40_000);
