/**
 * Telegram Bot API 10 ephemeral notices: in a group, what is said to the tapper alone (refusals of
 * this person, "vote counted", "tap again to confirm") is an ephemeral message tied to the query,
 * not a toast and not a message the group sees; in a private chat it stays a toast. The fake Bot
 * API checks `ephemeral_message_parameters` (integer receiver, groups only, a known query).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { TapOutcome } from '../../../src/adapter.ts';
import { FakeTelegramApi } from '../../fakes/telegram-api.ts';
import { makeCard, type Setup, setup } from './helpers.ts';

const GROUP = -1001234567890;
const PRIVATE = 111222333;
const ann = FakeTelegramApi.user(PRIVATE, 'Ann');

let s: Setup | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

async function started(): Promise<Setup> {
  const current = await setup();
  await current.adapter.start(current.ctx);
  return current;
}

async function tapIn(current: Setup, chatId: number) {
  const update = current.fake.callbackQuery({
    chatId,
    messageId: 1,
    data: 'hitl:k7Qx2:approve',
    from: ann,
  });
  current.fake.queueUpdate(update);
  const id = update.callback_query?.id as string;
  return { id, answer: await current.fake.waitForAnswer(id) };
}

const NOTICES: Array<[TapOutcome, string]> = [
  ['not_an_approver', 'Only the listed approvers decide this one.'],
  ['requester_may_not_approve', 'You asked for this; someone else must approve it.'],
  ['already_voted', 'You already voted on this case.'],
  ['vote_recorded', 'Your vote is counted: 1 of 2 approvals.'],
  ['confirm_required', 'This cannot be undone. Tap Approve again to confirm.'],
];

describe('telegram ephemeral notices (Bot API 10)', () => {
  it.each(NOTICES)(
    '%s in a group: an ephemeral message to the tapper, the query answered silently',
    async (outcome, text) => {
      s = await started();
      await s.adapter.post(String(GROUP), makeCard());
      s.reply.fn = async () => ({ outcome, text, card: null });
      const { id, answer } = await tapIn(s, GROUP);
      // The payload sent: a sendMessage with the receiver and the query it answers.
      expect(s.fake.calls('sendMessage').at(-1)).toEqual({
        chat_id: GROUP,
        text,
        ephemeral_message_parameters: { receiver_user_id: ann.id, callback_query_id: id },
      });
      expect(s.fake.ephemeralMessages()).toEqual([
        { chat_id: GROUP, receiver_user_id: ann.id, callback_query_id: id, text },
      ]);
      expect(answer.text).toBeUndefined();
      // Nothing the group sees: only the card is in its history.
      expect(s.fake.messages(GROUP)).toHaveLength(1);
    },
  );

  it('in a private chat the same notice is a toast (ephemerals are for groups)', async () => {
    s = await started();
    await s.adapter.post(String(PRIVATE), makeCard());
    const text = 'Your vote is counted: 1 of 2 approvals.';
    s.reply.fn = async () => ({ outcome: 'vote_recorded', text, card: null });
    const { answer } = await tapIn(s, PRIVATE);
    expect(answer.text).toBe(text);
    expect(s.fake.ephemeralMessages()).toEqual([]);
  });

  it('a submitted tap and a closed case stay toasts in a group (the card says the rest)', async () => {
    s = await started();
    await s.adapter.post(String(GROUP), makeCard());
    s.reply.fn = async () => ({ outcome: 'closed', text: 'Already decided by Bo.', card: null });
    expect((await tapIn(s, GROUP)).answer.text).toBe('Already decided by Bo.');
    s.reply.fn = async () => ({ outcome: 'submitted', text: 'Approved.', card: null });
    expect((await tapIn(s, GROUP)).answer.text).toBe('Approved.');
    expect(s.fake.ephemeralMessages()).toEqual([]);
  });
});
