/**
 * Issue 35, bulk decisions in a Telegram `/pending` list: a real relay and the Telegram adapter
 * against the fake Bot API, a fast fake HITL service counting submits per case. The list offers
 * "Approve all (n)" only for cases a bulk decision may take; a press shows a confirm step naming
 * each case and those left out with why (four-eyes); Confirm is this person's only and single
 * use, and submits each chosen case once; the list then shows each case's outcome.
 */
import type { User } from 'grammy/types';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFastService } from '../../../bench/lib/hitl-service.ts';
import { createTelegramAdapter } from '../../../platforms/telegram/index.ts';
import { FakeTelegramApi } from '../../fakes/telegram-api.ts';
import { eventually, type RelayHandle, startRelay } from '../../helpers/relay-env.ts';

const GROUP = -1009876500001;
const PAIRS = -1009876500002;
const ann: User = FakeTelegramApi.user(7101, 'Ann');
const mallory: User = FakeTelegramApi.user(7102, 'Mallory');
let service: Awaited<ReturnType<typeof startFastService>>;
let telegram: FakeTelegramApi;
let relay: RelayHandle;
let clock = Date.now();
const submitted: string[] = [];

beforeAll(async () => {
  service = await startFastService();
  service.onSubmit = (id) => submitted.push(id);
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
    allow: { [`telegram:${GROUP}`]: [String(ann.id)], [`telegram:${PAIRS}`]: [String(ann.id)] },
    configFile: {
      policies: { pair: { required: 2 } },
      routes: {
        four: { targets: [`telegram:${GROUP}`], policy: 'pair' },
        pairs: { targets: [`telegram:${PAIRS}`], policy: 'pair' },
      },
    },
  });
  const cases: [string, string][] = [
    [`telegram:${GROUP}`, 'tg-bulk-1'],
    [`telegram:${GROUP}`, 'tg-bulk-2'],
    ['route:four', 'tg-bulk-four'],
    ['route:pairs', 'tg-bulk-pair'],
  ];
  for (const [target, name] of cases) {
    clock += 1000;
    expect((await relay.send(target, service.create(name))).status).toBe(201);
  }
});
afterAll(async () => {
  await relay?.stop();
  await telegram?.close();
  await service?.stop();
});

type Button = { text: string; callback_data: string };
const buttonsOf = (chat: number, id: number) =>
  (telegram.message(chat, id)?.message.reply_markup?.inline_keyboard ?? []).flat() as Button[];
const press = (chatId: number, messageId: number, data: string, from: User) =>
  telegram.queueUpdate(telegram.callbackQuery({ chatId, messageId, data, from }));

it('PENDING-TG-BULK-1 no bulk button when no listed case may be in a bulk decision', async () => {
  telegram.queueUpdate(telegram.textMessage({ chatId: PAIRS, from: ann, text: '/pending' }));
  await eventually(async () => telegram.messages(ann.id).length === 1, 10_000, 'the list');
  const list = telegram.messages(ann.id)[0]!;
  expect(list.message.text).toContain('tg-bulk-pair');
  expect(JSON.stringify(buttonsOf(ann.id, list.message.message_id))).not.toMatch(/ all \(/);
});

it('PENDING-TG-BULK-2 confirm lists the cases and those left out; only its owner, only once', async () => {
  telegram.queueUpdate(telegram.textMessage({ chatId: GROUP, from: ann, text: '/pending' }));
  await eventually(async () => telegram.messages(ann.id).length === 2, 10_000, 'the list');
  const id = telegram.messages(ann.id)[1]!.message.message_id;
  const all = buttonsOf(ann.id, id).find((b) => b.text === 'Approve all (2)')!;
  expect(all.callback_data).toMatch(/^hitlb:/);

  // Someone else's press on Ann's button changes nothing.
  press(ann.id, id, all.callback_data, mallory);
  await eventually(async () => telegram.answers().length >= 1, 10_000, 'the refused press');
  expect(telegram.answers()[0]!.text).toBe('This button is no longer active.');

  press(ann.id, id, all.callback_data, ann);
  await eventually(
    async () => telegram.message(ann.id, id)?.message.text?.startsWith('Approve: 2 cases'),
    10_000,
    'the confirm step',
  );
  const text = telegram.message(ann.id, id)!.message.text!;
  expect(text).toContain('1. Deploy build tg-bulk-2 to production?');
  expect(text).toContain('2. Deploy build tg-bulk-1 to production?');
  expect(text).toMatch(/Left out:\n• Deploy build tg-bulk-four to production\? — four-eyes/);
  expect(submitted).toEqual([]);
  const [confirm, cancel] = buttonsOf(ann.id, id);
  expect([confirm!.text, cancel!.text]).toEqual(['Confirm', 'Cancel']);

  // Mallory's Confirm is refused and does not use it up.
  press(ann.id, id, confirm!.callback_data, mallory);
  await eventually(async () => telegram.messages(mallory.id).length === 1, 10_000, 'refusal');
  expect(telegram.messages(mallory.id)[0]!.message.text).toContain('used, expired or not yours');
  expect(submitted).toEqual([]);

  press(ann.id, id, confirm!.callback_data, ann);
  await eventually(
    async () => telegram.message(ann.id, id)?.message.text?.startsWith('Approve: the outcome'),
    10_000,
    'the results',
  );
  const results = telegram.message(ann.id, id)!.message.text!;
  expect(results).toContain('✅ Deploy build tg-bulk-2 to production?');
  expect(results).toContain('✅ Deploy build tg-bulk-1 to production?');
  expect(results).not.toContain('tg-bulk-four');
  expect([...submitted].sort()).toEqual(['tg-bulk-1', 'tg-bulk-2']);

  // Single use: the same Confirm again sends nothing.
  press(ann.id, id, confirm!.callback_data, ann);
  await eventually(async () => telegram.messages(ann.id).length === 3, 10_000, 'expired');
  expect(telegram.messages(ann.id)[2]!.message.text).toContain('used, expired or not yours');
  expect(submitted).toHaveLength(2);
});
