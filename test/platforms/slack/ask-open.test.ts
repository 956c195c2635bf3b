/**
 * Slack asks, the adapter's part of "authorize before input": an "Answer…" tap by a person the
 * context's `mayAnswer` refuses opens no modal (views.open is never called) and gets the refusal as
 * an ephemeral message; someone allowed gets the modal as before.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createSlackAdapter, SLACK_EVENTS_PATH } from '../../../platforms/slack/index.ts';
import type { Tap, TapReply } from '../../../src/adapter.ts';
import { kindOf, parseAskContent } from '../../../src/asks/content.ts';
import { createLogger } from '../../../src/log.ts';
import { MemoryKeyValue } from '../../../src/store/memory-kv.ts';
import { KINDS } from '../../asks/fixtures.ts';
import { FakeSlack } from '../../fakes/slack-api.ts';
import {
  blockActionsPayload,
  interactionForm,
  signSlackRequest,
} from '../../fakes/slack-interactions.ts';
import { approvalCard } from './cards.ts';
import {
  SLACK_TEST_BOT_TOKEN,
  SLACK_TEST_CHANNEL,
  SLACK_TEST_PACE,
  SLACK_TEST_SIGNING_SECRET,
} from './harness.ts';
import { serveRoutes } from './relay.ts';

const ANN = { id: 'U0ANN', name: 'ann' };
const MALLORY = { id: 'U0MAL', name: 'mallory' };
const CLOSED: TapReply = { outcome: 'closed', text: 'Already answered by Bo.', card: null };

let fake: FakeSlack;
let adapter: ReturnType<typeof createSlackAdapter>;
let relay: { url: string; close(): Promise<void> };
const asked: Tap[] = [];
const taps: Tap[] = [];

beforeAll(async () => {
  fake = await FakeSlack.start({ botToken: SLACK_TEST_BOT_TOKEN });
  fake.addUser({ id: ANN.id, name: 'ann', realName: 'Ann Example', displayName: 'Ann' });
  fake.addUser({ id: MALLORY.id, name: 'mallory', realName: 'Mallory', displayName: 'Mallory' });
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
  relay = await serveRoutes(adapter.routes);
  await adapter.start({
    kv: new MemoryKeyValue(),
    log: createLogger({ level: 'silent' }),
    onTap: async (tap) => {
      taps.push(tap);
      return { outcome: 'submitted', text: '', card: null };
    },
    mayAnswer: async (tap) => {
      asked.push(tap);
      return tap.user.id === MALLORY.id ? CLOSED : null;
    },
  });
});
afterAll(async () => {
  await adapter?.stop();
  await relay?.close();
  await fake?.close();
});

it('"Answer…" by a person who may not answer: no modal, the refusal told to them alone', async () => {
  const parsed = parseAskContent(KINDS['edit.tool_args'].content);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  const card = approvalCard({
    key: 'args1',
    actions: [],
    ask: { kind: kindOf(parsed.content), content: parsed.content },
  });
  const ref = await adapter.post(SLACK_TEST_CHANNEL, card);
  const message = fake.messages(SLACK_TEST_CHANNEL).at(-1)!;
  const block = message.blocks.find((b) => String(b.block_id ?? '').startsWith('hitl-ask-'))!;
  const button = (block.elements as Array<Record<string, unknown>>)[0]!;
  const press = async (user: { id: string; name: string }) => {
    const body = interactionForm(
      blockActionsPayload({ fake, message, button, blockId: String(block.block_id), user }),
    );
    await fetch(`${relay.url}${SLACK_EVENTS_PATH}`, {
      method: 'POST',
      headers: signSlackRequest(SLACK_TEST_SIGNING_SECRET, body),
      body,
    }).then((r) => r.arrayBuffer());
    await adapter.idle();
  };

  await press(MALLORY);
  expect(fake.views).toHaveLength(0);
  expect(fake.ephemerals.at(-1)).toMatchObject({
    channel: SLACK_TEST_CHANNEL,
    user: MALLORY.id,
    text: CLOSED.text,
  });
  expect(asked).toEqual([
    { platform: 'slack', key: 'args1', action: 'submit', user: { id: MALLORY.id }, ref },
  ]);

  await press(ANN);
  expect(fake.views).toHaveLength(1);
  expect(taps).toEqual([]);
});
