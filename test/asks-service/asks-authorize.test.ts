/**
 * Authorize before input, end to end with a real relay: a person not on the target's allowlist who
 * taps "Answer…" on Discord gets an ephemeral refusal instead of the modal, and on Slack no modal
 * opens (views.open is never called) and the refusal is an ephemeral message; someone allowed gets
 * the modal. Needs the relay to hand adapters AdapterContext.mayAnswer (the core's wiring of issue
 * 19's check): skipped until then.
 */
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  createSlackAdapter,
  SLACK_EVENTS_PATH,
  type SlackAdapter,
} from '../../platforms/slack/index.ts';
import type { AdapterContext } from '../../src/adapter.ts';
import { KINDS } from '../asks/fixtures.ts';
import type { FakeDiscordMessage } from '../fakes/discord-api.ts';
import { FakeSlack } from '../fakes/slack-api.ts';
import {
  blockActionsPayload,
  interactionForm,
  signSlackRequest,
} from '../fakes/slack-interactions.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';
import {
  componentInteraction,
  type DiscordHarness,
  makeDiscordHarnessWith,
  signInteraction,
  TEST_DISCORD_CHANNEL_ID,
} from '../platforms/discord/harness.ts';
import {
  SLACK_TEST_BOT_TOKEN,
  SLACK_TEST_CHANNEL,
  SLACK_TEST_SIGNING_SECRET,
} from '../platforms/slack/harness.ts';

const ANN = { id: 'U0ANN', name: 'ann' };
const SAM = { id: 'U0SAM', name: 'sam' };

let h: DiscordHarness;
let slack: FakeSlack;
let slackAdapter: SlackAdapter;
let relay: RelayHandle;
let wired = false;

beforeAll(async () => {
  h = await makeDiscordHarnessWith();
  const start = h.adapter.start.bind(h.adapter);
  Object.assign(h.adapter, {
    start: (ctx: AdapterContext) => {
      wired = typeof ctx.mayAnswer === 'function';
      return start(ctx);
    },
  });
  slack = await FakeSlack.start({ botToken: SLACK_TEST_BOT_TOKEN });
  slack.addUser({ id: ANN.id, name: 'ann', realName: 'Ann Example', displayName: 'Ann' });
  slack.addUser({ id: SAM.id, name: 'sam', realName: 'Sam', displayName: 'Sam' });
  slackAdapter = createSlackAdapter(
    {
      botToken: SLACK_TEST_BOT_TOKEN,
      signingSecret: SLACK_TEST_SIGNING_SECRET,
      apiUrl: slack.apiUrl,
      mode: 'http',
      botId: slack.botId,
      botUserId: slack.botUserId,
    },
    { retryConfig: { retries: 0 } },
  );
  relay = await startRelay({
    adapters: [h.adapter, slackAdapter],
    allow: { [h.target]: [h.users.allowed.id], [`slack:${SLACK_TEST_CHANNEL}`]: [ANN.id] },
  });
});
afterAll(async () => {
  await relay?.stop();
  await h?.close();
  await slack?.close();
});

async function ask(target: string, seen: () => number): Promise<string> {
  const before = seen();
  const res = await request(`${relay.url}/v1/asks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ target, content: KINDS['context.form'].content }),
  });
  expect(res.statusCode).toBe(202);
  await eventually(async () => seen() > before, 10_000, 'the card');
  return ((await res.body.json()) as any).relay.id as string;
}

/** Clicks the card's "Answer…" button as `user`; the relay's HTTP answer to Discord. */
async function discordOpen(card: FakeDiscordMessage, user: { id: string; name?: string }) {
  const open = card.components
    .flatMap((row) => row.components as unknown as Array<{ custom_id?: string }>)
    .find((c) => /^hitl-ask:.*:open$/.test(c.custom_id ?? ''))!;
  const interaction = componentInteraction({ message: card, customId: open.custom_id!, user });
  const id = interaction.id as string;
  const token = interaction.token as string;
  h.fake.registerInteraction({ id, token, channelId: card.channel_id, messageId: card.id });
  const body = JSON.stringify(interaction);
  const res = await fetch(`${relay.url}/discord/interactions`, {
    method: 'POST',
    headers: signInteraction(h.privateKey, body),
    body,
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { type: number; data?: any };
}

it('Discord: a stranger gets an ephemeral refusal, not the modal', async (t) => {
  if (!wired) t.skip('needs the relay to wire AdapterContext.mayAnswer (core helper, issue 19)');
  const messages = () => h.fake.messages(TEST_DISCORD_CHANNEL_ID);
  const id = await ask(h.target, () => messages().length);
  const card = messages().at(-1)!;
  const refused = await discordOpen(card, h.users.stranger);
  expect(refused).toMatchObject({ type: 4, data: { flags: 64 } });
  expect(String(refused.data.content)).not.toBe('');
  expect((await discordOpen(card, h.users.allowed)).type).toBe(9);
  const status = await request(`${relay.url}/v1/asks/${id}`);
  expect(((await status.body.json()) as any).status).toBe('pending');
});

it('Slack: a stranger opens no modal and is told why, ephemerally', async (t) => {
  if (!wired) t.skip('needs the relay to wire AdapterContext.mayAnswer (core helper, issue 19)');
  const cards = () => slack.messages(SLACK_TEST_CHANNEL).filter((m) => m.blocks.length > 0);
  await ask(`slack:${SLACK_TEST_CHANNEL}`, () => cards().length);
  const message = cards().at(-1)!;
  const block = message.blocks.find((b) => String(b.block_id ?? '').startsWith('hitl-ask-'))!;
  const button = (block.elements as Array<Record<string, unknown>>)[0]!;
  const press = async (user: { id: string; name: string }) => {
    const body = interactionForm(
      blockActionsPayload({ fake: slack, message, button, blockId: String(block.block_id), user }),
    );
    await fetch(`${relay.url}${SLACK_EVENTS_PATH}`, {
      method: 'POST',
      headers: signSlackRequest(SLACK_TEST_SIGNING_SECRET, body),
      body,
    }).then((r) => r.arrayBuffer());
    await slackAdapter.idle();
  };
  const ephemerals = slack.ephemerals.length;
  await press(SAM);
  expect(slack.views).toHaveLength(0);
  expect(slack.ephemerals.slice(ephemerals)).toEqual([
    expect.objectContaining({ channel: SLACK_TEST_CHANNEL, user: SAM.id }),
  ]);
  await press(ANN);
  expect(slack.views).toHaveLength(1);
});
