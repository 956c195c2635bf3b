/** A card that waits long in a platform's send pace is posted once, though reconcile runs meanwhile. */
import { afterAll, expect, it } from 'vitest';
import { createTelegramAdapter } from '../../platforms/telegram/index.ts';
import { FakeTelegramApi } from '../fakes/telegram-api.ts';
import { eventually, type RelayHandle, startDemo, startRelay } from '../helpers/relay-env.ts';

let relay: RelayHandle | undefined;
let fake: FakeTelegramApi | undefined;
afterAll(async () => {
  await relay?.stop();
  await fake?.close();
});

it('posts each of a burst into one chat exactly once', async () => {
  fake = await FakeTelegramApi.start();
  // Telegram's real per-chat pace is ~1 message per second; 1.5 s here makes the last of the burst
  // wait longer than the relay's re-post threshold (2 s in the test relay), with reconcile every 5 s.
  const adapter = createTelegramAdapter({
    botToken: fake.token,
    apiRoot: fake.apiRoot,
    botInfo: fake.botInfo,
    pace: { perChatIntervalMs: 1500, groupWindowMs: 5, globalWindowMs: 1 },
    pollingTimeoutSeconds: 1,
  });
  const demo = await startDemo();
  relay = await startRelay({ adapters: [adapter] });
  const bodies = await Promise.all(Array.from({ length: 6 }, () => demo.create('approval', true)));
  const sent = await Promise.all(bodies.map((b) => relay!.send('telegram:4242', b)));
  expect(sent.map((s) => s.status)).toEqual(Array(6).fill(201));
  await eventually(async () => fake!.calls('sendMessage').length >= 6, 20_000, 'six posts');
  // Let a reconcile pass run over the now-posted messages before counting.
  await new Promise((r) => setTimeout(r, 6000));
  expect(fake.calls('sendMessage')).toHaveLength(6);
  await demo.stop();
}, 40_000);
