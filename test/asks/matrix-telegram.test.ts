/**
 * The Telegram row of the asks matrix: each of the ten kinds end to end against the fake Bot API
 * with grammY long polling. The native widget is in the sendMessage the fake received (inline
 * keyboards, toggles, ForceReply prompts), the person's input arrives as Telegram delivers it
 * (callback queries, replies to the bot's prompt), invalid answers are refused natively (an alert or
 * a reply) with the case still pending, and the typed answer comes back from /wait.
 */
import type { InlineKeyboardButton, User } from 'grammy/types';
import { request } from 'undici';
import { afterAll, beforeAll, expect, expectTypeOf, it } from 'vitest';
import { createTelegramAdapter } from '../../platforms/telegram/index.ts';
import type { AskKind } from '../../src/asks/content.ts';
import { RelayClient } from '../../src/client/index.ts';
import { FakeTelegramApi } from '../fakes/telegram-api.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';
import { KINDS } from './fixtures.ts';

const CHAT = -1001234567890;
const ANN: User = { id: 111222333, is_bot: false, first_name: 'Ann', last_name: 'Example' };

let fake: FakeTelegramApi;
let relay: RelayHandle;
/** The relay's clock: a confirming second tap needs a moment after the first. */
let clock = Date.now();

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
  relay = await startRelay({ adapters: [adapter], now: () => clock });
});
afterAll(async () => {
  await relay?.stop();
  await fake?.close();
});

type Button = InlineKeyboardButton.CallbackButton;
const buttons = (messageId: number): Button[] =>
  (fake.message(CHAT, messageId)?.message.reply_markup?.inline_keyboard ?? [])
    .flat()
    .filter((b): b is Button => 'callback_data' in b);
const last = () => fake.messages(CHAT).at(-1)!;

/** Posts an ask to the chat; its id and the card's message id. */
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
  return { id, card: last().message.message_id };
}

/** Taps the button whose data ends with `op` (e.g. ":t:1") on a message; the query's answer. */
async function tap(messageId: number, op: string) {
  const data =
    buttons(messageId).find((b) => b.callback_data.endsWith(op))?.callback_data ??
    // A forged or stale button: the data a client could still send.
    `ha:${buttons(messageId)[0]!.callback_data.split(':')[1]}${op}`;
  const update = fake.queueUpdate(
    fake.callbackQuery({ chatId: CHAT, messageId, data, from: ANN }) as never,
  );
  return fake.waitForAnswer(update.callback_query!.id);
}

/** Replies to the bot's message `to` with `text`; the bot's next message (a prompt or a reply). */
async function reply(to: number, text: string) {
  const before = fake.messages(CHAT).length;
  fake.queueUpdate(fake.textMessage({ chatId: CHAT, from: ANN, text, replyTo: to }) as never);
  await eventually(async () => fake.messages(CHAT).length > before, 10_000, 'the bot answering');
  return last();
}

/** Waits for the bot's next message after `before` messages (a flow prompt). */
async function nextMessage(before: number) {
  await eventually(async () => fake.messages(CHAT).length > before, 10_000, 'a prompt');
  return last();
}

async function status(id: string): Promise<string> {
  const res = await request(`${relay.url}/v1/asks/${id}`);
  return ((await res.body.json()) as any).status;
}

async function answered(id: string, kind: AskKind) {
  const res = await request(`${relay.url}/v1/asks/${id}/wait?timeout=10`);
  const body = (await res.body.json()) as any;
  expect(body).toMatchObject({ kind, status: 'completed', answer: KINDS[kind].result });
  return body;
}

const content = (kind: AskKind) => KINDS[kind].content;
const sent = () => fake.calls('sendMessage').at(-1)!;

it('approval.binary: the choices as buttons with their impact; a forged one refused; approve', async () => {
  const { id, card } = await ask(content('approval.binary'));
  const labels = buttons(card).map((b) => b.text);
  expect(labels).toEqual(['Send it', 'Cancel (No email is sent)']);
  // Bot API 10 styles as the fake received them: approve green, reject red.
  expect(buttons(card).map((b) => b.style)).toEqual(['success', 'danger']);
  expect(buttons(card).every((b) => Buffer.byteLength(b.callback_data) <= 64)).toBe(true);
  expect((await tap(card, ':c:7')).text).toMatch(/no longer active/);
  expect(await status(id)).toBe('pending');
  await tap(card, ':c:0');
  await answered(id, 'approval.binary');
});

it('approval.modify: fields one by one (a wrong number refused), then the decision', async () => {
  const { id, card } = await ask(content('approval.modify'));
  expect(fake.message(CHAT, card)!.message.text).toContain('Refund Amount (USD): 75');
  let n = fake.messages(CHAT).length;
  await tap(card, ':f');
  const amount = await nextMessage(n);
  expect(amount.message.text).toContain('Refund Amount (USD)');
  const wrong = await reply(amount.message.message_id, 'x');
  expect(wrong.message.text).toContain('must be a number');
  expect(await status(id)).toBe('pending');
  const note = await reply(wrong.message.message_id, '45');
  expect(note.message.text).toContain('Internal Note');
  n = fake.messages(CHAT).length;
  await tap(note.message.message_id, ':k');
  const reason = await nextMessage(n);
  expect(buttons(reason.message.message_id).map((b) => b.text)).toEqual([
    'duplicate',
    'fraud',
    'other',
    'Skip',
  ]);
  n = fake.messages(CHAT).length;
  await tap(reason.message.message_id, ':s');
  const decision = await nextMessage(n);
  expect(buttons(decision.message.message_id).map((b) => b.text)).toEqual(['Approve', 'Reject']);
  await tap(decision.message.message_id, ':v:0');
  await answered(id, 'approval.modify');
});

it('decision.single: one button per option, irreversible marked; a stale one refused', async () => {
  const { id, card } = await ask(content('decision.single'));
  expect(buttons(card).map((b) => b.text)).toEqual([
    'Staging',
    '⚠️ Production (Affects live users)',
  ]);
  expect((await tap(card, ':p:5')).text).toMatch(/no longer active/);
  expect(await status(id)).toBe('pending');
  await tap(card, ':p:0');
  await answered(id, 'decision.single');
});

it("decision.multi: toggles answered with the person's picks (the group's keyboard stays shared); too many refused; Done", async () => {
  const { id, card } = await ask(content('decision.multi'));
  const posted = ['⬜ Infrastructure', '⬜ Backend', '⬜ Frontend', 'Done (choose 1-2)'];
  expect(buttons(card).map((b) => b.text)).toEqual(posted);
  const empty = await tap(card, ':d');
  expect(empty).toMatchObject({ show_alert: true });
  expect(empty.text).toMatch(/Your choice: select at least 1/);
  for (const op of [':t:0', ':t:1']) await tap(card, op);
  expect((await tap(card, ':t:2')).text).toBe(
    'Your choice (3; 1-2): Infrastructure, Backend, Frontend. Done sends it.',
  );
  expect(buttons(card).map((b) => b.text)).toEqual(posted);
  expect(await tap(card, ':d')).toMatchObject({ show_alert: true });
  expect(await status(id)).toBe('pending');
  await tap(card, ':t:2');
  await tap(card, ':d');
  await answered(id, 'decision.multi');
});

it('decision.rank: successive taps answered with the order so far; Undo; an incomplete ranking refused', async () => {
  const { id, card } = await ask(content('decision.rank'));
  await tap(card, ':r:2');
  await tap(card, ':r:1');
  await tap(card, ':u');
  expect((await tap(card, ':r:0')).text).toBe('Your order (2/3): 1. Push Notification › 2. Email');
  expect(buttons(card).map((b) => b.text)).toEqual([
    '➕ Email',
    '➕ SMS',
    '➕ Push Notification',
    '↩️ Undo',
    'Done (rank all 3)',
  ]);
  const incomplete = await tap(card, ':d');
  expect(incomplete).toMatchObject({ show_alert: true });
  expect(await status(id)).toBe('pending');
  await tap(card, ':r:1');
  await tap(card, ':d');
  await answered(id, 'decision.rank');
});

it('context.freetext: a ForceReply prompt; a blank reply refused; the reply is the answer', async () => {
  const { id, card } = await ask(content('context.freetext'));
  const n = fake.messages(CHAT).length;
  await tap(card, ':f');
  const prompt = await nextMessage(n);
  expect(sent().reply_markup).toMatchObject({ force_reply: true, selective: true });
  expect(prompt.message.text).toContain('Customer preference');
  const blank = await reply(prompt.message.message_id, '   ');
  expect(blank.message.text).toContain('must not be empty');
  expect(await status(id)).toBe('pending');
  await reply(blank.message.message_id, 'A full refund.');
  await answered(id, 'context.freetext');
});

it('context.form: field by field, BOOLEAN and DROPDOWN as buttons, bad values refused', async () => {
  const { id, card } = await ask(content('context.form'));
  let n = fake.messages(CHAT).length;
  await tap(card, ':f');
  const ticket = await nextMessage(n);
  expect(sent().reply_markup).toMatchObject({ force_reply: true });
  const priority = await reply(ticket.message.message_id, 'TKT-123');
  expect(priority.message.text).toContain('Priority (1-5)');
  const again = await reply(priority.message.message_id, 'high');
  expect(again.message.text).toContain('must be a number');
  const urgent = await reply(again.message.message_id, '2');
  n = fake.messages(CHAT).length;
  await tap(urgent.message.message_id, ':v:1');
  const due = await nextMessage(n);
  const bad = await reply(due.message.message_id, '2026-02-30');
  expect(bad.message.text).toContain('must be a date');
  expect(await status(id)).toBe('pending');
  const team = await reply(bad.message.message_id, '2026-12-01');
  expect(buttons(team.message.message_id).map((b) => b.text)).toEqual(['infra', 'backend']);
  n = fake.messages(CHAT).length;
  await tap(team.message.message_id, ':v:0');
  await answered(id, 'context.form');
  expect((await nextMessage(n)).message.text).toMatch(/recorded/);
});

it('context.confirm: the statement on the card; a forged action refused; Confirm twice', async () => {
  const { id, card } = await ask(content('context.confirm'));
  expect(fake.message(CHAT, card)!.message.text).toContain(
    'All customer PII will be deleted after 90 days.',
  );
  const actions = buttons(card).map((b) => b.callback_data);
  expect(actions.some((d) => d.endsWith(':confirm'))).toBe(true);
  const key = actions[0]!.split(':')[1];
  const forged = fake.queueUpdate(
    fake.callbackQuery({
      chatId: CHAT,
      messageId: card,
      data: `hitl:${key}:approve`,
      from: ANN,
    }) as never,
  );
  expect((await fake.waitForAnswer(forged.callback_query!.id)).text).toBeTruthy();
  expect(await status(id)).toBe('pending');
  const confirm = buttons(card).find((b) => b.callback_data.endsWith(':confirm'))!.callback_data;
  for (let i = 0; i < 2; i++) {
    const u = fake.queueUpdate(
      fake.callbackQuery({ chatId: CHAT, messageId: card, data: confirm, from: ANN }) as never,
    );
    await fake.waitForAnswer(u.callback_query!.id);
    clock += 2_000;
  }
  await answered(id, 'context.confirm');
});

it('edit.content: the draft in the prompt; a blank version refused; the new version', async () => {
  const { id, card } = await ask(content('edit.content'));
  const n = fake.messages(CHAT).length;
  await tap(card, ':f');
  const prompt = await nextMessage(n);
  expect(prompt.sent).toContain('<pre>Hi Jane,');
  const blank = await reply(prompt.message.message_id, ' ');
  expect(blank.message.text).toContain('must not be empty');
  expect(await status(id)).toBe('pending');
  await reply(blank.message.message_id, 'Hi Jane,\n\nThank you!\n\nBest, Support');
  await answered(id, 'edit.content');
});

it('edit.tool_args: only editable args asked, each with Keep; a wrong type refused', async () => {
  const { id, card } = await ask(content('edit.tool_args'));
  expect(fake.message(CHAT, card)!.message.text).toContain('Target Table: orders (read-only)');
  let n = fake.messages(CHAT).length;
  await tap(card, ':f');
  const limit = await nextMessage(n);
  expect(limit.message.text).toContain('(1/2) Row Limit');
  const wrong = await reply(limit.message.message_id, 'lots');
  expect(wrong.message.text).toContain('must be a number');
  expect(await status(id)).toBe('pending');
  const dry = await reply(wrong.message.message_id, '500');
  expect(buttons(dry.message.message_id).map((b) => b.text)).toEqual([
    'Yes',
    'No',
    'Keep as it is',
  ]);
  n = fake.messages(CHAT).length;
  await tap(dry.message.message_id, ':k');
  await answered(id, 'edit.tool_args');
});

it('fallback: more options than fit as buttons keeps only the signed review page', async () => {
  const many = Array.from({ length: 41 }, (_, i) => ({ key: `o${i}`, label: `Option ${i}` }));
  const { card } = await ask({
    type: 'decision',
    sub_type: 'single',
    prompt: 'Pick one of many',
    options: many,
  });
  const markup = fake.message(CHAT, card)!.message.reply_markup?.inline_keyboard.flat() ?? [];
  expect(markup.some((b) => 'callback_data' in b && b.callback_data.startsWith('ha:'))).toBe(false);
  expect(markup.some((b) => 'url' in b && /[?&]sig=|\/r\//.test(b.url))).toBe(true);
});

it('the TypeScript client: relay.ask() gets the ranking typed, answered by taps in Telegram', async () => {
  const client = new RelayClient({ relayUrl: relay.url, waitChunkSeconds: 5 });
  const before = fake.messages(CHAT).length;
  const asked = client.ask(
    {
      type: 'decision',
      sub_type: 'rank',
      prompt: 'Rank the channels.',
      options: [
        { key: 'email', label: 'Email' },
        { key: 'sms', label: 'SMS' },
      ],
    },
    { target: `telegram:${CHAT}`, timeoutMs: 15_000 },
  );
  await eventually(async () => fake.messages(CHAT).length > before, 10_000, 'the card');
  const card = last().message.message_id;
  await tap(card, ':r:1');
  await tap(card, ':r:0');
  await tap(card, ':d');
  const out = await asked;
  expectTypeOf(out.answer).toEqualTypeOf<{ ranking: string[] } | null>();
  expect(out).toMatchObject({ kind: 'decision.rank', status: 'completed' });
  expect(out.answer?.ranking).toEqual(['sms', 'email']);
});

it('in a private chat any text answers the open prompt; in a channel the typing kinds use Details', async () => {
  const DM = Number(ANN.id);
  const before = fake.messages(DM).length;
  const res = await request(`${relay.url}/v1/asks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ target: `telegram:${DM}`, content: content('context.freetext') }),
  });
  const id = ((await res.body.json()) as any).relay.id as string;
  await eventually(async () => fake.messages(DM).length > before, 10_000, 'the card');
  const card = fake.messages(DM).at(-1)!.message.message_id;
  const data = (fake.message(DM, card)!.message.reply_markup!.inline_keyboard.flat()[0] as Button)
    .callback_data;
  const n = fake.messages(DM).length;
  const q = fake.queueUpdate(fake.callbackQuery({ chatId: DM, messageId: card, data, from: ANN }));
  await fake.waitForAnswer(q.callback_query!.id);
  await eventually(async () => fake.messages(DM).length > n, 10_000, 'the prompt');
  fake.queueUpdate(fake.textMessage({ chatId: DM, from: ANN, text: 'A full refund.' }));
  await answered(id, 'context.freetext');

  const CHANNEL = -1005550001111;
  fake.markChannel(CHANNEL);
  const posted = await request(`${relay.url}/v1/asks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ target: `telegram:${CHANNEL}`, content: content('context.freetext') }),
  });
  const channelCase = ((await posted.body.json()) as any).relay.id as string;
  await eventually(async () => fake.messages(CHANNEL).length > 0, 10_000, 'the channel card');
  const post = fake.messages(CHANNEL)[0]!.message;
  const start = (post.reply_markup!.inline_keyboard.flat()[0] as Button).callback_data;
  const u = fake.queueUpdate(
    fake.callbackQuery({ chatId: CHANNEL, messageId: post.message_id, data: start, from: ANN }),
  );
  const answer = await fake.waitForAnswer(u.callback_query!.id);
  expect(answer).toMatchObject({ show_alert: true });
  expect(answer.text).toMatch(/Details/);
  expect(fake.messages(CHANNEL)).toHaveLength(1);
  expect(await status(channelCase)).toBe('pending');
});

it('button styles: an irreversible choice or option is red, other keys keep the app style', async () => {
  const { card } = await ask({
    type: 'approval',
    sub_type: 'binary',
    prompt: 'Ship the release?',
    choices: [
      { key: 'ship', label: 'Ship it' },
      { key: 'wipe', label: 'Wipe staging', irreversible: true },
    ],
  });
  expect(buttons(card).map((b) => [b.text, b.style])).toEqual([
    ['Ship it', undefined],
    ['⚠️ Wipe staging', 'danger'],
  ]);
  const single = await ask({
    type: 'decision',
    sub_type: 'single',
    prompt: 'Which?',
    options: [
      { key: 'keep', label: 'Keep' },
      { key: 'drop', label: 'Drop the table', irreversible: true },
    ],
  });
  expect(buttons(single.card).map((b) => b.style)).toEqual([undefined, 'danger']);
});

it('the fake Bot API refuses a style or disabled field Telegram does not know', async () => {
  const send = async (button: Record<string, unknown>) => {
    const res = await request(`${fake.apiRoot}/bot${fake.token}/sendMessage`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        chat_id: CHAT,
        text: 'styled',
        reply_markup: { inline_keyboard: [[{ text: 'B', ...button }]] },
      }),
    });
    return ((await res.body.json()) as { ok: boolean }).ok;
  };
  expect(await send({ callback_data: 'x', style: 'success' })).toBe(true);
  expect(await send({ disabled: {}, style: 'danger' })).toBe(true);
  expect(await send({ callback_data: 'x', style: 'green' })).toBe(false);
  expect(await send({ disabled: true })).toBe(false);
  // A disabled button is its own kind: not also a callback button.
  expect(await send({ disabled: {}, callback_data: 'x' })).toBe(false);
});
