/**
 * Telegram asks in a group against a real relay (fake Bot API, grammY long polling): each person's
 * multi-select is their own on the shared keyboard (the relay records only the selection of the
 * person who pressed Done), and a person not on the target's allowlist is refused at the first tap
 * of a field-by-field flow, before any prompt is sent (AdapterContext.mayAnswer, wired by the relay).
 */
import type { InlineKeyboardButton, User } from 'grammy/types';
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTelegramAdapter } from '../../platforms/telegram/index.ts';
import type { AdapterContext } from '../../src/adapter.ts';
import { KINDS } from '../asks/fixtures.ts';
import { FakeTelegramApi } from '../fakes/telegram-api.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';

const CHAT = -1001234567890;
const ANN: User = { id: 111222333, is_bot: false, first_name: 'Ann' };
const BOB: User = { id: 444555666, is_bot: false, first_name: 'Bob' };
const MALLORY: User = { id: 666777888, is_bot: false, first_name: 'Mallory' };

let fake: FakeTelegramApi;
let relay: RelayHandle;
/** Whether the relay hands adapters `mayAnswer` (the core's wiring of issue 19's check). */
let wired = false;

beforeAll(async () => {
  fake = await FakeTelegramApi.start();
  const adapter = createTelegramAdapter({
    botToken: fake.token,
    apiRoot: fake.apiRoot,
    botInfo: fake.botInfo,
    pace: { perChatIntervalMs: 1, groupWindowMs: 5, globalWindowMs: 1 },
    retry: { retryAfterUnitMs: 1 },
    pollingTimeoutSeconds: 1,
    tapAnswerWaitMs: 10_000,
  });
  const start = adapter.start.bind(adapter);
  Object.assign(adapter, {
    start: (ctx: AdapterContext) => {
      wired = typeof ctx.mayAnswer === 'function';
      return start(ctx);
    },
  });
  relay = await startRelay({
    adapters: [adapter],
    allow: { [`telegram:${CHAT}`]: [String(ANN.id), String(BOB.id)] },
  });
});
afterAll(async () => {
  await relay?.stop();
  await fake?.close();
});

type Button = InlineKeyboardButton.CallbackButton;
const labels = (messageId: number) =>
  (fake.message(CHAT, messageId)?.message.reply_markup?.inline_keyboard ?? [])
    .flat()
    .filter((b): b is Button => 'callback_data' in b)
    .map((b) => b.text);

async function ask(content: Record<string, unknown>): Promise<{ id: string; card: number }> {
  const before = fake.messages(CHAT).length;
  const res = await request(`${relay.url}/v1/asks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ target: `telegram:${CHAT}`, content }),
  });
  expect(res.statusCode).toBe(202);
  const id = ((await res.body.json()) as any).relay.id as string;
  await eventually(async () => fake.messages(CHAT).length > before, 10_000, 'the card');
  return { id, card: fake.messages(CHAT).at(-1)!.message.message_id };
}

/** `from` taps the ask button of `card` whose data ends with `op`; the toast they got. */
async function tap(card: number, op: string, from: User) {
  const data = (fake.message(CHAT, card)!.message.reply_markup!.inline_keyboard.flat() as Button[])
    .map((b) => b.callback_data)
    .find((d) => d?.endsWith(op))!;
  const u = fake.queueUpdate(fake.callbackQuery({ chatId: CHAT, messageId: card, data, from }));
  return fake.waitForAnswer(u.callback_query!.id);
}

it('two people in one group pick on the same keyboard; Done records only the presser’s picks', async () => {
  const { id, card } = await ask(KINDS['decision.multi'].content);
  const posted = labels(card);
  expect((await tap(card, ':t:2', BOB)).text).toMatch(/^Your choice \(1; 1-2\): Frontend\./);
  await tap(card, ':t:0', ANN);
  expect((await tap(card, ':t:1', ANN)).text).toMatch(/Infrastructure, Backend\./);
  expect(labels(card)).toEqual(posted);
  await tap(card, ':d', ANN);
  const res = await request(`${relay.url}/v1/asks/${id}/wait?timeout=10`);
  expect(await res.body.json()).toMatchObject({
    status: 'completed',
    answer: { selected: ['infra', 'backend'] },
  });
  // Bob's own selection never mixed in; his Done now finds the case answered.
  const late = await tap(card, ':d', BOB);
  expect(late.text).toBeTruthy();
  const after = await request(`${relay.url}/v1/asks/${id}`);
  expect(await after.body.json()).toMatchObject({ answer: { selected: ['infra', 'backend'] } });
});

it('someone not on the allowlist is refused at the first tap of a flow: no prompt is sent', async (t) => {
  if (!wired) t.skip('needs the relay to wire AdapterContext.mayAnswer (core helper, issue 19)');
  const { id, card } = await ask(KINDS['context.freetext'].content);
  const before = fake.messages(CHAT).length;
  // In a group the refusal is an ephemeral message only Mallory sees (Bot API 10), not a toast.
  const seen = fake.ephemeralMessages().length;
  const refused = await tap(card, ':f', MALLORY);
  expect(refused.text ?? '').not.toBe('Answer below.');
  const told = fake.ephemeralMessages().slice(seen);
  expect(told).toHaveLength(1);
  expect(told[0]).toMatchObject({ chat_id: CHAT, receiver_user_id: MALLORY.id });
  expect(told[0]!.text).toBeTruthy();
  expect(fake.messages(CHAT)).toHaveLength(before);
  const toggled = await tap((await ask(KINDS['decision.multi'].content)).card, ':t:0', MALLORY);
  expect(toggled.text ?? '').not.toMatch(/^Your choice/);
  // Someone allowed gets the prompt.
  const n = fake.messages(CHAT).length;
  expect((await tap(card, ':f', ANN)).text).toBe('Answer below.');
  await eventually(async () => fake.messages(CHAT).length > n, 10_000, 'the prompt');
  const status = await request(`${relay.url}/v1/asks/${id}`);
  expect(((await status.body.json()) as any).status).toBe('pending');
});
