/** The Slack adapter, pointed at the fake Slack Web API, for the shared adapter contract suite. */

import {
  createSlackAdapter,
  SLACK_EVENTS_PATH,
  type SlackAdapter,
} from '../../../platforms/slack/index.ts';
import type { MessageRef } from '../../../src/adapter.ts';
import type { AdapterHarness, MakeHarness, SeenMessage } from '../../contract/harness.ts';
import { FakeSlack, type FakeSlackMessage } from '../../fakes/slack-api.ts';
import {
  blockActionsPayload,
  findButton,
  interactionForm,
  signSlackRequest,
} from '../../fakes/slack-interactions.ts';

/** Test credentials: shaped like Slack's, long enough for registerSecret. */
export const SLACK_TEST_BOT_TOKEN = 'xoxb-1111-2222-fakeBotTokenForTests';
export const SLACK_TEST_SIGNING_SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
export const SLACK_TEST_CHANNEL = 'C0HITLTEST';

/** A pace with Slack's shape and tiny windows, so that tests never wait for real limits. */
export const SLACK_TEST_PACE = {
  postMessagePerChannel: [{ limit: 1, windowMs: 5 }],
  update: [{ limit: 50, windowMs: 100 }],
};

/** Slack's three entities back to characters: the text as a person sees it. */
export function unescapeSlack(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/** Every text a person sees in a message's blocks, top to bottom. */
export function blockTexts(message: FakeSlackMessage): string[] {
  const texts: string[] = [];
  for (const block of message.blocks) {
    const text = block.text as { text?: string } | undefined;
    if (typeof text?.text === 'string') texts.push(text.text);
    if (block.type === 'context' && Array.isArray(block.elements)) {
      for (const el of block.elements as { text?: string }[]) {
        if (typeof el.text === 'string') texts.push(el.text);
      }
    }
  }
  return texts;
}

/** The message a MessageRef names in the fake. */
export function messageAt(fake: FakeSlack, ref: MessageRef): FakeSlackMessage {
  const [channel, ts] = ref.id.split(':');
  const message = fake.message(channel ?? '', ts ?? '');
  if (!message) throw new Error(`the fake holds no message ${ref.id}`);
  return message;
}

/** Delivers a signed block_actions request for the button whose payload ends in `:<action>`. */
export async function tapButton(args: {
  fake: FakeSlack;
  adapter: SlackAdapter;
  ref: MessageRef;
  action: string;
  user: { id: string; name?: string };
  relayUrl: string;
  signingSecret?: string;
}): Promise<{ status: number; notice: string | null; answerMs: number }> {
  const { fake } = args;
  const message = messageAt(fake, args.ref);
  const found = findButton(
    message,
    (b) =>
      (typeof b.value === 'string' && b.value.endsWith(`:${args.action}`)) ||
      (args.action === 'link' && typeof b.url === 'string'),
  );
  if (!found) throw new Error(`message ${args.ref.id} has no button for "${args.action}"`);
  const body = interactionForm(blockActionsPayload({ fake, message, ...found, user: args.user }));
  const before = fake.requests.length;
  const sentAt = Date.now();
  const res = await fetch(`${args.relayUrl}${SLACK_EVENTS_PATH}`, {
    method: 'POST',
    headers: signSlackRequest(args.signingSecret ?? SLACK_TEST_SIGNING_SECRET, body),
    body,
  });
  await res.arrayBuffer();
  const answerMs = Date.now() - sentAt;
  // The HTTP answer is the ack; the tap's work (users.info, the engine, the ephemeral) follows it.
  await args.adapter.idle();
  const notices = fake.ephemerals.filter((e) => e.user === args.user.id && e.seq >= before);
  const last = notices.at(-1);
  return { status: res.status, notice: last ? unescapeSlack(last.text) : null, answerMs };
}

/** The people every Slack harness knows, added to `fake`. */
export function addSlackTestUsers(fake: FakeSlack) {
  const allowed = { id: 'U0ALLOWED1', name: 'Ann Allowed' };
  const stranger = { id: 'U0STRANGER', name: 'Sam Stranger' };
  fake.addUser({ id: allowed.id, name: 'ann', realName: allowed.name, displayName: allowed.name });
  fake.addUser({
    id: stranger.id,
    name: 'sam',
    realName: stranger.name,
    displayName: stranger.name,
  });
  return { allowed, stranger };
}

/** The harness parts every receive mode shares: reading messages back from the fake. */
export function slackHarness(args: {
  fake: FakeSlack;
  adapter: SlackAdapter;
  users: AdapterHarness['users'];
  tap: AdapterHarness['tap'];
  close(): Promise<void>;
}): AdapterHarness {
  const { fake, adapter } = args;
  return {
    adapter,
    target: `slack:${SLACK_TEST_CHANNEL}`,
    users: args.users,
    answerWindowMs: 3_000,
    world: {
      deleteMessage: (ref) => {
        const [channel, ts] = ref.id.split(':');
        fake.deleteMessage(channel ?? '', ts ?? '');
      },
      removeBot: () => fake.removeBot(SLACK_TEST_CHANNEL),
      archive: () => fake.archiveChannel(SLACK_TEST_CHANNEL),
    },
    // Irreversible actions carry Slack's `confirm` dialog: one tap arrives confirmed.
    nativeConfirm: true,
    async read(ref): Promise<SeenMessage> {
      const message = messageAt(fake, ref);
      const actions: string[] = [];
      let link: string | null = null;
      for (const block of message.blocks) {
        if (block.type !== 'actions' || !Array.isArray(block.elements)) continue;
        for (const el of block.elements as Record<string, unknown>[]) {
          if (typeof el.url === 'string') link = el.url;
          else if (typeof el.value === 'string') actions.push(el.value.split(':').at(-1) ?? '');
        }
      }
      const text = blockTexts(message).map(unescapeSlack).join('\n') || unescapeSlack(message.text);
      return { text, actions, link };
    },
    async messages(address) {
      // Cards only (each has a header block): not the reminders in a card's thread.
      return fake
        .messages(address)
        .filter((m) => m.blocks.some((b) => b.type === 'header'))
        .map((m) => ({
          platform: 'slack',
          address,
          id: `${m.channel}:${m.ts}`,
        }));
    },
    tap: args.tap,
    requests: () => fake.requests.map((r) => r.body),
    close: args.close,
  };
}

/** Builds the Slack harness: a fresh fake and an HTTP-mode adapter, not started. */
export const makeSlackHarness: MakeHarness = async () => {
  const fake = await FakeSlack.start({ botToken: SLACK_TEST_BOT_TOKEN });
  const users = addSlackTestUsers(fake);
  const adapter = createSlackAdapter(
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
  return slackHarness({
    fake,
    adapter,
    users,
    async tap({ ref, action, user, relayUrl }) {
      const result = await tapButton({ fake, adapter, ref, action, user, relayUrl });
      if (result.status !== 200)
        throw new Error(`the relay answered the tap with ${result.status}`);
      return { notice: result.notice, answerMs: result.answerMs };
    },
    async close() {
      await adapter.stop();
      await fake.close();
    },
  });
};
