/**
 * Issue 35, `/pending`'s "Re-post" on Slack against the fake Slack: a button per item under the
 * ephemeral list; its press posts the card again in the channel (chat.postMessage), answered by a
 * new ephemeral note through response_url; the new card's buttons decide the case and it takes the
 * final edit; the old card is edited (chat.update) to say it moved. Someone who may not decide gets
 * nothing, a second press within 30 s is refused, an ended case is not re-posted.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFastService } from '../../../bench/lib/hitl-service.ts';
import {
  createSlackAdapter,
  SLACK_EVENTS_PATH,
  type SlackAdapter,
} from '../../../platforms/slack/index.ts';
import { FakeSlack, type FakeSlackMessage } from '../../fakes/slack-api.ts';
import {
  blockActionsPayload,
  interactionForm,
  signSlackRequest,
  slashCommandForm,
} from '../../fakes/slack-interactions.ts';
import { eventually, type RelayHandle, startRelay } from '../../helpers/relay-env.ts';
import {
  blockTexts,
  SLACK_TEST_BOT_TOKEN,
  SLACK_TEST_PACE,
  SLACK_TEST_SIGNING_SECRET,
  tapButton,
} from './harness.ts';

const CHANNEL = 'C0REPOST';
let service: Awaited<ReturnType<typeof startFastService>>;
let fake: FakeSlack;
let adapter: SlackAdapter;
let relay: RelayHandle;
let clock = Date.now();

beforeAll(async () => {
  service = await startFastService();
  fake = await FakeSlack.start({ botToken: SLACK_TEST_BOT_TOKEN });
  adapter = createSlackAdapter(
    {
      botToken: SLACK_TEST_BOT_TOKEN,
      signingSecret: SLACK_TEST_SIGNING_SECRET,
      apiUrl: fake.apiUrl,
      mode: 'http',
      botId: fake.botId,
      botUserId: fake.botUserId,
    },
    { retryConfig: { retries: 0 }, pace: SLACK_TEST_PACE },
  );
  relay = await startRelay({
    adapters: [adapter],
    now: () => clock,
    allow: { [`slack:${CHANNEL}`]: ['U0ANN'] },
  });
});
afterAll(async () => {
  await relay?.stop();
  await fake?.close();
  await service?.stop();
});

const post = (body: string) =>
  fetch(`${relay.url}${SLACK_EVENTS_PATH}`, {
    method: 'POST',
    headers: signSlackRequest(SLACK_TEST_SIGNING_SECRET, body),
    body,
  });

/** A press of the list's first Re-post button; the response_url note it was answered with. */
async function pressRepost(list: { text: string; blocks: any[] }, userId: string) {
  const message: FakeSlackMessage = {
    channel: CHANNEL,
    ts: '1700000000.000200',
    text: list.text,
    blocks: list.blocks,
    attachments: [],
    edits: 0,
  };
  const block = list.blocks.find((b) => b.elements?.[0]?.action_id?.startsWith('hitlr:'));
  const payload = blockActionsPayload({
    fake,
    message,
    button: block.elements[0],
    blockId: 'reposts',
    user: { id: userId },
  });
  payload.container = { ...(payload.container as object), is_ephemeral: true };
  delete payload.message;
  const before = fake.responseUrls.posted.length;
  expect((await post(interactionForm(payload))).status).toBe(200);
  const note = await eventually(
    async () => fake.responseUrls.posted[before]?.body as any,
    10_000,
    'the response_url note',
  );
  expect(note).toMatchObject({ response_type: 'ephemeral', replace_original: false });
  return note.text as string;
}

it('REPOST-SL-1 Re-post: the new card decides, takes the final edit; the old one says it moved', async () => {
  const id = (await relay.send(`slack:${CHANNEL}`, service.create('sl-rp-1'))).body.id as string;
  await eventually(async () => fake.messages(CHANNEL).length === 1, 10_000, 'the card');
  const old = fake.messages(CHANNEL)[0]!;
  const res = await post(
    slashCommandForm({ fake, command: '/pending', text: '', channelId: CHANNEL, userId: 'U0ANN' }),
  );
  const list = (await res.json()) as { text: string; blocks: any[] };
  const buttons = list.blocks.at(-1).elements.map((e: any) => e.text.text);
  expect(buttons).toEqual(['Re-post 1']);

  expect(await pressRepost(list, 'U0MAL')).toBe(
    'You may not decide this case here; nothing was posted.',
  );
  expect(fake.messages(CHANNEL)).toHaveLength(1);

  expect(await pressRepost(list, 'U0ANN')).toMatch(/posted again/);
  expect(fake.messages(CHANNEL)).toHaveLength(2);
  const fresh = fake.messages(CHANNEL)[1]!;
  expect(blockTexts(fresh).join('\n')).toContain('sl-rp-1');
  const moved = fake.message(CHANNEL, old.ts)!;
  expect(blockTexts(moved).join('\n')).toContain('posted again further down');
  // Its buttons are gone (the Details link stays).
  const values = moved.blocks.flatMap((b: any) => b.elements ?? []).map((e: any) => e.value);
  expect(values.filter((v: unknown) => typeof v === 'string' && v.startsWith('hitl:'))).toEqual([]);

  expect(await pressRepost(list, 'U0ANN')).toBe(
    'This card was re-posted a moment ago; try again in 30 s.',
  );
  expect(fake.messages(CHANNEL)).toHaveLength(2);

  const ref = { platform: 'slack', address: CHANNEL, id: `${CHANNEL}:${fresh.ts}` };
  await tapButton({
    fake,
    adapter,
    ref,
    action: 'approve',
    user: { id: 'U0ANN' },
    relayUrl: relay.url,
  });
  await relay.until(id, (c) => c.final);
  await relay.relay.services.cards.settled(id);
  expect(blockTexts(fake.message(CHANNEL, fresh.ts)!).join('\n')).toContain('Approved');
  expect(blockTexts(fake.message(CHANNEL, old.ts)!).join('\n')).not.toContain('Approved');

  clock += 31_000;
  expect(await pressRepost(list, 'U0ANN')).toBe(
    'This case has ended (completed); nothing was posted.',
  );
  expect(fake.messages(CHANNEL)).toHaveLength(2);
});
