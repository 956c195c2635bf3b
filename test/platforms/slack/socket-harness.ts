/** The Slack adapter in Socket Mode against the fake Web API and the fake Socket Mode server. */
import {
  createSlackAdapter,
  type SlackAdapter,
  type SlackAdapterOptions,
} from '../../../platforms/slack/index.ts';
import type { MessageRef, TapUser } from '../../../src/adapter.ts';
import type { AdapterHarness, MakeHarness } from '../../contract/harness.ts';
import { FakeSlack } from '../../fakes/slack-api.ts';
import { blockActionsPayload, findButton } from '../../fakes/slack-interactions.ts';
import { FakeSlackSocket, type FakeSocketAck } from '../../fakes/slack-socket.ts';
import {
  addSlackTestUsers,
  messageAt,
  SLACK_TEST_BOT_TOKEN,
  SLACK_TEST_PACE,
  slackHarness,
  unescapeSlack,
} from './harness.ts';

export const SLACK_TEST_APP_TOKEN = 'xapp-1-A0FAKEAPP-1111-fakeAppLevelTokenForTests';

/** A Socket Mode harness with its fakes, for tests beyond the contract. */
export interface SlackSocketHarness extends AdapterHarness {
  adapter: SlackAdapter;
  fake: FakeSlack;
  socket: FakeSlackSocket;
  /** Delivers a tap envelope; resolves with the ack once the adapter finished the tap's work. */
  deliverTap(args: {
    ref: MessageRef;
    action: string;
    user: TapUser;
    loseAcks?: number;
  }): Promise<FakeSocketAck>;
}

/** The block_actions payload for the button `action` of the message at `ref`. */
export function tapPayload(
  fake: FakeSlack,
  ref: MessageRef,
  action: string,
  user: TapUser,
): Record<string, unknown> {
  const message = messageAt(fake, ref);
  const found = findButton(
    message,
    (b) => typeof b.value === 'string' && b.value.endsWith(`:${action}`),
  );
  if (!found) throw new Error(`message ${ref.id} has no button for "${action}"`);
  return blockActionsPayload({ fake, message, ...found, user });
}

/** Builds the fakes and a Socket Mode adapter (not started). */
export async function makeSlackSocketHarnessWith(
  options: SlackAdapterOptions = {},
): Promise<SlackSocketHarness> {
  const fake = await FakeSlack.start({
    botToken: SLACK_TEST_BOT_TOKEN,
    appToken: SLACK_TEST_APP_TOKEN,
  });
  const socket = await FakeSlackSocket.start();
  fake.useSocket(socket);
  const users = addSlackTestUsers(fake);
  const adapter = createSlackAdapter(
    {
      botToken: SLACK_TEST_BOT_TOKEN,
      appToken: SLACK_TEST_APP_TOKEN,
      apiUrl: fake.apiUrl,
      mode: 'socket',
      botId: fake.botId,
      botUserId: fake.botUserId,
    },
    // A short reconnect delay keeps the drop tests quick; the SDK's default is 5 s.
    {
      retryConfig: { retries: 0 },
      socket: { reconnectDelayMs: 300 },
      pace: SLACK_TEST_PACE,
      ...options,
    },
  );
  const deliverTap: SlackSocketHarness['deliverTap'] = async ({ ref, action, user, loseAcks }) => {
    const ack = await socket.deliver('interactive', tapPayload(fake, ref, action, user), {
      ...(loseAcks ? { loseAcks } : {}),
    });
    // The ack goes out first; the tap's work (users.info, the engine, the ephemeral) follows it.
    await adapter.idle();
    return ack;
  };
  const base = slackHarness({
    fake,
    adapter,
    users,
    async tap({ ref, action, user }) {
      const before = fake.requests.length;
      const ack = await deliverTap({ ref, action, user });
      const notices = fake.ephemerals.filter((e) => e.user === user.id && e.seq >= before);
      const last = notices.at(-1);
      return { notice: last ? unescapeSlack(last.text) : null, answerMs: ack.ms };
    },
    async close() {
      await adapter.stop();
      await socket.close();
      await fake.close();
    },
  });
  return { ...base, adapter, fake, socket, deliverTap };
}

/** The contract suite's Socket Mode harness. */
export const makeSlackSocketHarness: MakeHarness = () => makeSlackSocketHarnessWith();
