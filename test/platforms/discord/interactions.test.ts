/**
 * The shared interaction flow with the gateway's way of answering: a REST interaction callback.
 * (The gateway connection itself cannot be faked; this covers everything after it.)
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DiscordApi } from '../../../platforms/discord/api.ts';
import {
  InteractionFlow,
  logDeliveryFailure,
  type Respond,
} from '../../../platforms/discord/interactions.ts';
import type { RawInteraction } from '../../../platforms/discord/parse.ts';
import type { TapOutcome, TapReply } from '../../../src/adapter.ts';
import { type FakeDiscord, startFakeDiscord } from '../../fakes/discord-api.ts';
import {
  componentInteraction,
  TEST_DISCORD_APPLICATION_ID,
  TEST_DISCORD_CHANNEL_ID,
  TEST_DISCORD_TOKEN,
} from './harness.ts';
import { makeCard, makeContext } from './helpers.ts';

let fake: FakeDiscord | null = null;
afterEach(async () => {
  await fake?.close();
  fake = null;
});

async function setup() {
  fake = await startFakeDiscord({
    token: TEST_DISCORD_TOKEN,
    applicationId: TEST_DISCORD_APPLICATION_ID,
  });
  const api = new DiscordApi({ token: TEST_DISCORD_TOKEN, apiUrl: fake.apiUrl });
  const flow = new InteractionFlow({ api, applicationId: TEST_DISCORD_APPLICATION_ID });
  const created = await api.createMessage(TEST_DISCORD_CHANNEL_ID, {
    content: 'card',
    components: [
      {
        type: 1,
        components: [{ type: 2, style: 1, label: 'Approve', custom_id: 'hitl:k7f3q:approve' }],
      },
    ],
    allowed_mentions: { parse: [] },
  });
  const message = fake.message(TEST_DISCORD_CHANNEL_ID, created.id)!;
  const raw = componentInteraction({
    message,
    customId: 'hitl:k7f3q:approve',
    user: { id: '2100000000000000001', name: 'Ann' },
  }) as unknown as RawInteraction;
  fake.registerInteraction({
    id: raw.id,
    token: raw.token,
    channelId: TEST_DISCORD_CHANNEL_ID,
    messageId: message.id,
  });
  const respond: Respond = (body) => api.interactionCallback(raw.id, raw.token, body);
  return { fake, api, flow, raw, respond, message };
}

describe('InteractionFlow answering through the REST callback (gateway mode)', () => {
  it('updates the message with type 7 and sends the ephemeral follow-up after it', async () => {
    const { fake, flow, raw, respond, message } = await setup();
    const reply: TapReply = {
      outcome: 'closed',
      text: 'Already answered by Bo',
      card: makeCard({ final: true, status: 'Rejected by Bo' }),
    };
    const ctx = makeContext(async () => reply);
    expect(await flow.handle(raw, respond, ctx)).toBe(true);
    expect(fake.answeredWith(raw.token)).toBe(7);
    expect(message.content).toContain('Rejected by Bo');
    expect(message.components.flatMap((r) => r.components).filter((b) => b.style !== 5)).toEqual(
      [],
    );
    expect(fake.followUps(raw.token)).toEqual(['Already answered by Bo']);
    const callback = fake.requests().find((r) => r.path.endsWith('/callback'));
    expect(callback?.authorization).toBeUndefined();
  });

  it('treats an interaction already answered elsewhere (40060) as routine, not as an error for people', async () => {
    const { fake, flow, raw, respond } = await setup();
    fake.applyInteractionResponse(raw.id, raw.token, { type: 6 });
    const ctx = makeContext(async () => ({ outcome: 'submitted', text: 'ok', card: makeCard() }));
    const error = await flow.handle(raw, respond, ctx).catch((e: unknown) => e);
    logDeliveryFailure(ctx, 'interaction', error);
    expect(ctx.lines.some((l) => l.includes('already answered') && l.includes('"level":20'))).toBe(
      true,
    );
    expect(ctx.lines.some((l) => l.includes('"level":40'))).toBe(false);
  });

  it('turns a failing onTap into a "failed" notice and never throws at Discord', async () => {
    const { fake, flow, raw, respond } = await setup();
    const ctx = makeContext(async () => {
      throw new Error('store down');
    });
    await flow.handle(raw, respond, ctx);
    expect(fake.answeredWith(raw.token)).toBe(6);
    expect(fake.followUps(raw.token)[0]).toMatch(/nothing was decided/);
  });

  const NOTICES: Array<[TapOutcome, string]> = [
    ['not_an_approver', 'Only the listed approvers decide this one.'],
    ['requester_may_not_approve', 'You asked for this; someone else must approve it.'],
    ['already_voted', 'You already voted on this case.'],
    ['vote_recorded', 'Your vote is counted: 1 of 2 approvals.'],
    ['confirm_required', 'This cannot be undone. Tap Approve again to confirm.'],
  ];

  it.each(NOTICES)(
    '%s: an ephemeral follow-up (flags 64) only the tapper sees',
    async (outcome, text) => {
      const { fake, flow, raw, respond, message } = await setup();
      const ctx = makeContext(async () => ({ outcome, text, card: makeCard() }));
      await flow.handle(raw, respond, ctx);
      expect(fake.answeredWith(raw.token)).toBe(7);
      // The payload sent: POST /webhooks/:application/:token with the EPHEMERAL flag, no mentions.
      const sent = fake
        .requests()
        .filter(
          (r) =>
            r.method === 'POST' &&
            r.path.endsWith(`/webhooks/${TEST_DISCORD_APPLICATION_ID}/${raw.token}`),
        )
        .map((r) => JSON.parse(r.body) as Record<string, unknown>);
      expect(sent).toEqual([
        expect.objectContaining({ content: text, flags: 64, allowed_mentions: { parse: [] } }),
      ]);
      // The card in the channel is the card as it stands, not the notice.
      expect(message.content).not.toContain(text);
    },
  );
});
