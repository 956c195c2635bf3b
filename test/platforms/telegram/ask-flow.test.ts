/**
 * Telegram asks against the fake Bot API with grammY long polling, the adapter's own part: in a
 * group each person's multi-select / ranking is their own (the shared keyboard shows nobody's
 * ticks; each tap's toast shows the tapper's picks; Done submits only theirs), a private chat's
 * keyboard shows the person's ticks, and a person the context's `mayAnswer` refuses is refused at
 * the first tap of a multi-step ask, before any prompt is sent or any pick is kept.
 */
import type { InlineKeyboardButton, User } from 'grammy/types';
import { afterEach, beforeEach, expect, it } from 'vitest';
import type { Tap, TapReply } from '../../../src/adapter.ts';
import { kindOf, parseAskContent } from '../../../src/asks/content.ts';
import type { Card } from '../../../src/render/card.ts';
import { KINDS } from '../../asks/fixtures.ts';
import { makeCard, type Setup, setup } from './helpers.ts';

const GROUP = -1001234567890;
const ANN: User = { id: 111, is_bot: false, first_name: 'Ann' };
const BOB: User = { id: 222, is_bot: false, first_name: 'Bob' };
const MALLORY: User = { id: 666, is_bot: false, first_name: 'Mallory' };
const FORBIDDEN: TapReply = {
  outcome: 'forbidden',
  text: 'You are not allowed to answer this one.',
  card: null,
};

let s: Setup;
/** Every mayAnswer question the adapter asked. */
let asked: Tap[];
/** The case key of each posted card ("chat:message"). */
const cards = new Map<string, string>();

beforeEach(async () => {
  s = await setup({ tapAnswerWaitMs: 5_000 });
  asked = [];
  s.ctx.mayAnswer = async (tap) => {
    asked.push(tap);
    return tap.user.id === String(MALLORY.id) ? FORBIDDEN : null;
  };
  await s.adapter.start(s.ctx);
});
afterEach(async () => {
  await s.close();
});

function askCard(kind: keyof typeof KINDS, key: string): Card {
  const parsed = parseAskContent(KINDS[kind].content);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return makeCard({
    key,
    actions: [],
    ask: { kind: kindOf(parsed.content), content: parsed.content },
  });
}

type Button = InlineKeyboardButton.CallbackButton;
const labels = (chat: number, id: number) =>
  (s.fake.message(chat, id)?.message.reply_markup?.inline_keyboard ?? [])
    .flat()
    .filter((b): b is Button => 'callback_data' in b)
    .map((b) => b.text);

/** Each card its own case key (the kind's family and sub-type letters). */
const keyOf = (kind: string) => kind.replace(/[^a-z]/g, '').slice(0, 12);

async function post(chat: number, kind: keyof typeof KINDS): Promise<number> {
  const ref = await s.adapter.post(String(chat), askCard(kind, keyOf(kind)));
  cards.set(`${chat}:${Number(ref.id.split(':').at(-1))}`, keyOf(kind));
  return Number(ref.id.split(':').at(-1));
}

/** A tap on the ask button with `op` by `from`; the toast or alert Telegram was answered with. */
async function tap(chat: number, message: number, op: string, from: User) {
  const u = s.fake.queueUpdate(
    s.fake.callbackQuery({
      chatId: chat,
      messageId: message,
      data: `ha:${cards.get(`${chat}:${message}`)}${op}`,
      from,
    }),
  );
  return s.fake.waitForAnswer(u.callback_query!.id);
}

it('a group: two people toggle different options; the keyboard shows neither; each Done submits their own', async () => {
  const card = await post(GROUP, 'decision.multi');
  const posted = labels(GROUP, card);
  expect(posted).toEqual(['⬜ Infrastructure', '⬜ Backend', '⬜ Frontend', 'Done (choose 1-2)']);
  expect((await tap(GROUP, card, ':t:0', ANN)).text).toBe(
    'Your choice (1; 1-2): Infrastructure. Done sends it.',
  );
  expect((await tap(GROUP, card, ':t:2', BOB)).text).toBe(
    'Your choice (1; 1-2): Frontend. Done sends it.',
  );
  expect((await tap(GROUP, card, ':t:1', ANN)).text).toBe(
    'Your choice (2; 1-2): Infrastructure, Backend. Done sends it.',
  );
  expect(labels(GROUP, card)).toEqual(posted);
  expect(s.fake.calls('editMessageReplyMarkup')).toHaveLength(0);
  await tap(GROUP, card, ':d', BOB);
  await tap(GROUP, card, ':d', ANN);
  expect(s.taps.map((t) => [t.user.id, t.action, t.data])).toEqual([
    ['222', 'select', { selected: ['frontend'] }],
    ['111', 'select', { selected: ['infra', 'backend'] }],
  ]);
});

it('a group ranking: each person ranks on their own; the toast shows their order', async () => {
  const card = await post(GROUP, 'decision.rank');
  await tap(GROUP, card, ':r:2', ANN);
  expect((await tap(GROUP, card, ':r:1', BOB)).text).toBe('Your order (1/3): 1. SMS');
  expect((await tap(GROUP, card, ':r:0', ANN)).text).toBe(
    'Your order (2/3): 1. Push Notification › 2. Email',
  );
  expect((await tap(GROUP, card, ':u', BOB)).text).toBe('Your order (0/3): none yet');
  await tap(GROUP, card, ':r:1', ANN);
  await tap(GROUP, card, ':d', ANN);
  expect(s.taps.map((t) => t.data)).toEqual([{ ranking: ['push', 'email', 'sms'] }]);
  expect(labels(GROUP, card).at(-1)).toBe('Done (rank all 3)');
});

it('a private chat: the keyboard shows the person their ticks', async () => {
  const dm = ANN.id;
  const card = await post(dm, 'decision.multi');
  await tap(dm, card, ':t:1', ANN);
  expect(labels(dm, card)).toEqual([
    '⬜ Infrastructure',
    '✅ Backend',
    '⬜ Frontend',
    'Done (1 chosen; 1-2)',
  ]);
});

it('refused before any input: no prompt for a freetext, no pick kept for a multi', async () => {
  const text = await post(GROUP, 'context.freetext');
  const before = s.fake.messages(GROUP).length;
  // In a group the refusal is an ephemeral message only Mallory sees (Bot API 10), not a toast.
  const refused = await tap(GROUP, text, ':f', MALLORY);
  expect(refused.text).toBeUndefined();
  expect(s.fake.ephemeralMessages().at(-1)).toEqual({
    chat_id: GROUP,
    receiver_user_id: MALLORY.id,
    callback_query_id: refused.callback_query_id,
    text: FORBIDDEN.text,
  });
  expect(asked.at(-1)).toMatchObject({
    platform: 'telegram',
    key: 'contextfreet',
    action: 'submit',
    user: { id: '666' },
    ref: { platform: 'telegram' },
  });
  const multi = await post(GROUP, 'decision.multi');
  await tap(GROUP, multi, ':t:0', MALLORY);
  expect(s.fake.ephemeralMessages().map((e) => e.text)).toEqual([FORBIDDEN.text, FORBIDDEN.text]);
  expect(await s.ctx.kv.get('telegram:ask:decisionmult:pick:666')).toBeUndefined();
  expect(s.fake.messages(GROUP)).toHaveLength(before + 1);
  expect(s.taps).toHaveLength(0);
  // Someone allowed goes on as before.
  expect((await tap(GROUP, text, ':f', ANN)).text).toBe('Answer below.');
  expect(s.fake.messages(GROUP).length).toBe(before + 2);
});
