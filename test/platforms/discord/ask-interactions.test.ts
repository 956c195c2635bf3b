/**
 * Discord asks, the adapter's part of "authorize before input": a person the context's `mayAnswer`
 * refuses gets the refusal as an ephemeral message at the first step (the modal is not opened, the
 * ranking does not start); someone allowed gets the modal or the first ranking select as before.
 */
import { afterEach, expect, it } from 'vitest';
import { DiscordApi, type DiscordInteractionResponse } from '../../../platforms/discord/api.ts';
import { rememberAsk } from '../../../platforms/discord/ask-flow.ts';
import { InteractionFlow } from '../../../platforms/discord/interactions.ts';
import { discordMessageRef, type RawInteraction } from '../../../platforms/discord/parse.ts';
import type { Tap, TapReply, TapUser } from '../../../src/adapter.ts';
import { type AskKind, kindOf, parseAskContent } from '../../../src/asks/content.ts';
import { KINDS } from '../../asks/fixtures.ts';
import { type FakeDiscord, startFakeDiscord } from '../../fakes/discord-api.ts';
import {
  componentInteraction,
  TEST_DISCORD_APPLICATION_ID,
  TEST_DISCORD_CHANNEL_ID,
  TEST_DISCORD_TOKEN,
} from './harness.ts';
import { makeCard, makeContext } from './helpers.ts';

const ANN: TapUser = { id: '2100000000000000001', name: 'Ann' };
const MALLORY: TapUser = { id: '2100000000000000666', name: 'Mallory' };
const FORBIDDEN: TapReply = {
  outcome: 'not_an_approver',
  text: 'Only the listed approvers decide this one.',
  card: null,
};

let fake: FakeDiscord | null = null;
afterEach(async () => {
  await fake?.close();
  fake = null;
});

async function setup(kind: AskKind, key: string) {
  fake = await startFakeDiscord({
    token: TEST_DISCORD_TOKEN,
    applicationId: TEST_DISCORD_APPLICATION_ID,
  });
  const api = new DiscordApi({ token: TEST_DISCORD_TOKEN, apiUrl: fake.apiUrl });
  const flow = new InteractionFlow({ api, applicationId: TEST_DISCORD_APPLICATION_ID });
  const taps: Tap[] = [];
  const asked: Tap[] = [];
  const ctx = makeContext(async (tap) => {
    taps.push(tap);
    return { outcome: 'submitted', text: '', card: null };
  });
  ctx.mayAnswer = async (tap) => {
    asked.push(tap);
    return tap.user.id === MALLORY.id ? FORBIDDEN : null;
  };
  const parsed = parseAskContent(KINDS[kind].content);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  await rememberAsk(
    ctx,
    makeCard({ key, ask: { kind: kindOf(parsed.content), content: parsed.content } }),
  );
  const created = await api.createMessage(TEST_DISCORD_CHANNEL_ID, {
    content: 'card',
    components: [],
    allowed_mentions: { parse: [] },
  });
  const message = fake.message(TEST_DISCORD_CHANNEL_ID, created.id)!;
  /** Delivers a tap on `customId` by `user`; the initial responses the flow gave. */
  const press = async (customId: string, user: TapUser) => {
    const raw = componentInteraction({ message, customId, user }) as unknown as RawInteraction;
    const responses: DiscordInteractionResponse[] = [];
    await flow.handle(raw, async (r) => void responses.push(r), ctx);
    return responses;
  };
  return { press, taps, asked, messageId: created.id };
}

it('a modal is not opened for a person who may not answer: an ephemeral refusal instead', async () => {
  const { press, taps, asked, messageId } = await setup('context.form', 'form1');
  expect(await press('hitl-ask:form1:open', MALLORY)).toEqual([
    {
      type: 4,
      data: { content: FORBIDDEN.text, flags: 64, allowed_mentions: { parse: [] } },
    },
  ]);
  expect(asked).toEqual([
    {
      platform: 'discord',
      key: 'form1',
      action: 'submit',
      user: MALLORY,
      ref: discordMessageRef(TEST_DISCORD_CHANNEL_ID, messageId),
    },
  ]);
  const allowed = await press('hitl-ask:form1:open', ANN);
  expect(allowed.map((r) => r.type)).toEqual([9]);
  expect(taps).toEqual([]);
});

it('a ranking does not start for a person who may not answer', async () => {
  const { press } = await setup('decision.rank', 'rank1');
  const refused = await press('hitl-ask:rank1:rank', MALLORY);
  expect(refused).toHaveLength(1);
  expect(refused[0]).toMatchObject({ type: 4, data: { content: FORBIDDEN.text, flags: 64 } });
  expect(JSON.stringify(refused)).not.toContain('hitl-rank:');
  const allowed = await press('hitl-ask:rank1:rank', ANN);
  expect(JSON.stringify(allowed)).toContain('hitl-rank:rank1:');
});
