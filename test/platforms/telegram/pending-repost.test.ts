/**
 * Issue 35, `/pending`'s "Re-post" on Telegram against the fake Bot API: a button per item under
 * the private list; its press posts the card again at the bottom of the group (its buttons decide
 * the case, the final edit lands on it), the old card is edited to say it moved; someone who may
 * not decide gets nothing, a second press within 30 s is refused, an ended case is not re-posted.
 */
import type { User } from 'grammy/types';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFastService } from '../../../bench/lib/hitl-service.ts';
import { createTelegramAdapter } from '../../../platforms/telegram/index.ts';
import { FakeTelegramApi } from '../../fakes/telegram-api.ts';
import { eventually, type RelayHandle, startRelay } from '../../helpers/relay-env.ts';

const GROUP = -1005556667778;
const ann: User = FakeTelegramApi.user(7101, 'Ann');
const mallory: User = FakeTelegramApi.user(7102, 'Mallory');
let service: Awaited<ReturnType<typeof startFastService>>;
let telegram: FakeTelegramApi;
let relay: RelayHandle;
let clock = Date.now();

beforeAll(async () => {
  service = await startFastService();
  telegram = await FakeTelegramApi.start();
  relay = await startRelay({
    adapters: [
      createTelegramAdapter({
        botToken: telegram.token,
        apiRoot: telegram.apiRoot,
        botInfo: telegram.botInfo,
        pace: { perChatIntervalMs: 1, groupWindowMs: 5, globalWindowMs: 1 },
        retry: { retryAfterUnitMs: 1 },
        pollingTimeoutSeconds: 1,
      }),
    ],
    now: () => clock,
    allow: { [`telegram:${GROUP}`]: [String(ann.id)] },
  });
});
afterAll(async () => {
  await relay?.stop();
  await telegram?.close();
  await service?.stop();
});

type Button = { text: string; callback_data?: string };
const buttons = (chat: number, id: number) =>
  (telegram.message(chat, id)?.message.reply_markup?.inline_keyboard ?? []).flat() as Button[];

/** Presses `data` on message `id` of `chat` as `from`; the toast it was answered with. */
const press = async (chat: number, id: number, data: string, from: User) => {
  const update = telegram.queueUpdate(
    telegram.callbackQuery({ chatId: chat, messageId: id, data, from }),
  );
  return (await telegram.waitForAnswer(update.callback_query!.id)).text;
};

it('REPOST-TG-1 Re-post: the new card decides, takes the final edit; the old one says it moved', async () => {
  const sent = await relay.send(`telegram:${GROUP}`, service.create('tg-rp-1'));
  const id = sent.body.id as string;
  await eventually(async () => telegram.messages(GROUP).length === 1, 10_000, 'the card');
  const old = telegram.messages(GROUP)[0]!.message.message_id;
  telegram.queueUpdate(telegram.textMessage({ chatId: GROUP, from: ann, text: '/pending' }));
  await eventually(async () => telegram.messages(ann.id).length === 1, 10_000, 'the list');
  const list = telegram.messages(ann.id)[0]!.message.message_id;
  const repost = buttons(ann.id, list).find((b) => b.text === 'Re-post 1')!;
  expect(repost.callback_data).toMatch(/^hitlr:/);

  // Mallory may not decide: nothing is posted, nothing of the case told.
  expect(await press(ann.id, list, repost.callback_data!, mallory)).toBe(
    'You may not decide this case here; nothing was posted.',
  );
  expect(telegram.messages(GROUP)).toHaveLength(1);

  expect(await press(ann.id, list, repost.callback_data!, ann)).toMatch(/posted again/);
  expect(telegram.messages(GROUP)).toHaveLength(2);
  const fresh = telegram.messages(GROUP)[1]!.message;
  expect(fresh.text).toContain('Deploy build tg-rp-1 to production?');
  expect(telegram.message(GROUP, old)!.message.text).toContain(
    'This card was posted again further down: answer there.',
  );
  expect(buttons(GROUP, old).filter((b) => b.callback_data)).toEqual([]);
  const history = await relay.relay.services.store.listHistory(id);
  expect(history.filter((h) => h.kind === 'card_reposted')).toHaveLength(1);

  // A second press at once is refused: one re-post per case in 30 s.
  expect(await press(ann.id, list, repost.callback_data!, ann)).toBe(
    'This card was re-posted a moment ago; try again in 30 s.',
  );
  expect(telegram.messages(GROUP)).toHaveLength(2);

  const approve = buttons(GROUP, fresh.message_id).find((b) =>
    b.callback_data?.endsWith(':approve'),
  )!;
  await press(GROUP, fresh.message_id, approve.callback_data!, ann);
  await relay.until(id, (c) => c.final);
  await relay.relay.services.cards.settled(id);
  await eventually(
    async () => telegram.message(GROUP, fresh.message_id)!.message.text?.includes('Approved'),
    10_000,
    'the final edit on the new card',
  );
  expect(telegram.message(GROUP, old)!.message.text).not.toContain('Approved');

  // Decided: a press after the limit says so and posts nothing.
  clock += 31_000;
  expect(await press(ann.id, list, repost.callback_data!, ann)).toBe(
    'This case has ended (completed); nothing was posted.',
  );
  expect(telegram.messages(GROUP)).toHaveLength(2);
});
