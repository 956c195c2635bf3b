/**
 * Slack ephemeral notices: what is said to the tapper alone (refusals of this person, "vote
 * counted", "tap again to confirm") goes out as chat.postEphemeral to that user in the card's
 * channel, never as a channel message; a submitted tap says nothing (the card update shows it).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { TapOutcome, TapReply } from '../../../src/adapter.ts';
import { approvalCard } from './cards.ts';
import { SLACK_TEST_CHANNEL, tapButton } from './harness.ts';
import { type SlackSetup, setupSlack } from './setup.ts';

let s: SlackSetup | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

const ann = { id: 'U0ANN', name: 'ann' };

const NOTICES: Array<[TapOutcome, string]> = [
  ['not_an_approver', 'Only the listed approvers decide this one.'],
  ['requester_may_not_approve', 'You asked for this; someone else must approve it.'],
  ['already_voted', 'You already voted on this case.'],
  ['vote_recorded', 'Your vote is counted: 1 of 2 approvals.'],
  ['confirm_required', 'This cannot be undone. Tap Approve again to confirm.'],
];

async function tapWith(reply: TapReply) {
  s = await setupSlack({ onTap: async () => reply });
  const ref = await s.adapter.post(SLACK_TEST_CHANNEL, approvalCard());
  const messagesBefore = s.fake.requests.filter((r) => r.method === 'chat.postMessage').length;
  const result = await tapButton({
    fake: s.fake,
    adapter: s.adapter,
    ref,
    action: 'approve',
    user: ann,
    relayUrl: s.relayUrl,
  });
  const posted = s.fake.requests.filter((r) => r.method === 'chat.postMessage').length;
  return { result, newChannelMessages: posted - messagesBefore };
}

describe('slack ephemeral notices', () => {
  it.each(NOTICES)(
    '%s: chat.postEphemeral to the tapper in the card channel',
    async (outcome, text) => {
      const { result, newChannelMessages } = await tapWith({ outcome, text, card: null });
      const sent = s!.fake.requests.filter((r) => r.method === 'chat.postEphemeral');
      expect(sent.map((r) => r.fields)).toEqual([
        expect.objectContaining({ channel: SLACK_TEST_CHANNEL, user: 'U0ANN', text }),
      ]);
      expect(result.notice).toBe(text);
      expect(newChannelMessages).toBe(0);
    },
  );

  it('a submitted tap sends no ephemeral (the card update says it)', async () => {
    await tapWith({ outcome: 'submitted', text: 'Approved.', card: null });
    expect(s!.fake.requests.filter((r) => r.method === 'chat.postEphemeral')).toEqual([]);
  });
});
