/**
 * Issue 35, `/pending` on Telegram: a real relay and the Telegram adapter against the fake Bot
 * API. The list goes to the asker's private chat (the group sees nothing of it), five a page with
 * a "More" button only its owner can use; someone the allowlist leaves out gets an empty list; a
 * person who never opened the private chat is told how in the group, and nothing else.
 */
import type { User } from 'grammy/types';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFastService } from '../../../bench/lib/hitl-service.ts';
import { createTelegramAdapter } from '../../../platforms/telegram/index.ts';
import { FakeTelegramApi } from '../../fakes/telegram-api.ts';
import { eventually, type RelayHandle, startRelay } from '../../helpers/relay-env.ts';

const GROUP = -1009876543210;
const ann: User = FakeTelegramApi.user(7001, 'Ann');
const mallory: User = FakeTelegramApi.user(7002, 'Mallory');
const zoe: User = FakeTelegramApi.user(7003, 'Zoe');
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
    allow: { [`telegram:${GROUP}`]: [String(ann.id), String(zoe.id)] },
  });
  for (let i = 1; i <= 7; i++) {
    clock += 1000;
    expect((await relay.send(`telegram:${GROUP}`, service.create(`tg-pend-${i}`))).status).toBe(
      201,
    );
  }
});
afterAll(async () => {
  await relay?.stop();
  await telegram?.close();
  await service?.stop();
});

const texts = (chat: number) => telegram.messages(chat).map((m) => m.message.text ?? '');

it('PENDING-TG-1 the list goes to the private chat, newest first, with card links and a More button', async () => {
  telegram.queueUpdate(telegram.textMessage({ chatId: GROUP, from: ann, text: '/pending' }));
  await eventually(async () => telegram.messages(ann.id).length === 1, 10_000, 'the list');
  const [list] = telegram.messages(ann.id);
  const text = list!.message.text!;
  expect(text.split('\n')[0]).toBe('Waiting for a decision here (5+), newest first:');
  expect(text).toContain('1. Deploy build tg-pend-7 to production?');
  expect(text).toContain('5. Deploy build tg-pend-3 to production?');
  expect(text).not.toContain('tg-pend-2');
  // Each item links to its card in the supergroup.
  const cardOf7 = telegram.messages(GROUP).find((m) => m.message.text?.includes('tg-pend-7'))!;
  expect(list!.sent).toContain(`https://t.me/c/9876543210/${cardOf7.message.message_id}`);
  // The group holds the seven cards and nothing else.
  expect(telegram.messages(GROUP)).toHaveLength(7);
  const more = list!.message.reply_markup!.inline_keyboard[0]![0] as { callback_data: string };
  expect(more.callback_data).toMatch(/^hitlp:/);

  // Someone else's tap on Ann's More button changes nothing.
  telegram.queueUpdate(
    telegram.callbackQuery({
      chatId: ann.id,
      messageId: list!.message.message_id,
      data: more.callback_data,
      from: mallory,
    }),
  );
  await eventually(async () => telegram.answers().length >= 1, 10_000, 'the refused press');
  expect(telegram.answers()[0]!.text).toBe('This button is no longer active.');
  telegram.queueUpdate(
    telegram.callbackQuery({
      chatId: ann.id,
      messageId: list!.message.message_id,
      data: more.callback_data,
      from: ann,
    }),
  );
  await eventually(
    async () =>
      telegram.message(ann.id, list!.message.message_id)?.message.text?.includes('tg-pend-2'),
    10_000,
    'the second page',
  );
  const second = telegram.message(ann.id, list!.message.message_id)!.message;
  expect(second.text).toContain('1. Deploy build tg-pend-2');
  expect(second.text).toContain('2. Deploy build tg-pend-1');
  // The last page has no More button (its bulk button is PENDING-TG-BULK's); its items' Re-post.
  const buttons = (second.reply_markup?.inline_keyboard ?? []).flat() as {
    text: string;
    callback_data: string;
  }[];
  expect(buttons.filter((b) => b.callback_data.startsWith('hitlp:'))).toEqual([]);
  expect(buttons.map((b) => b.text).filter((t) => t.startsWith('Re-post'))).toEqual([
    'Re-post 1',
    'Re-post 2',
  ]);
});

it('PENDING-TG-2 privacy: not on the allowlist, an empty list; no private chat yet, a pointer in the group', async () => {
  telegram.queueUpdate(telegram.textMessage({ chatId: GROUP, from: mallory, text: '/pending' }));
  await eventually(
    async () => telegram.messages(mallory.id).length === 1,
    10_000,
    "Mallory's list",
  );
  expect(texts(mallory.id)).toEqual(['Nothing is waiting for you here.']);
  // Zoe may decide, but never started the bot: Telegram refuses the private message.
  telegram.kickBot(zoe.id);
  telegram.queueUpdate(telegram.textMessage({ chatId: GROUP, from: zoe, text: '/pending mine' }));
  await eventually(async () => telegram.messages(GROUP).length === 8, 10_000, 'the pointer');
  const pointer = texts(GROUP)[7]!;
  expect(pointer).toContain(`https://t.me/${telegram.botInfo.username}`);
  expect(pointer).not.toContain('tg-pend');
});
