/** The Discord adapter in gateway mode against the fake REST API and the fake gateway. */
import { randomBytes } from 'node:crypto';
import {
  createDiscordAdapter,
  type DiscordAdapter,
  type DiscordAdapterOptions,
} from '../../../platforms/discord/index.ts';
import type { MessageRef, TapUser } from '../../../src/adapter.ts';
import type { AdapterHarness } from '../../contract/harness.ts';
import {
  type FakeDiscord,
  type FakeDiscordMessage,
  fakeSnowflake,
  startFakeDiscord,
} from '../../fakes/discord-api.ts';
import { FakeDiscordGateway } from '../../fakes/discord-gateway.ts';
import { eventually } from '../../helpers/relay-env.ts';
import {
  componentInteraction,
  seen,
  TEST_DISCORD_APPLICATION_ID,
  TEST_DISCORD_CHANNEL_ID,
  TEST_DISCORD_GUILD_ID,
  TEST_DISCORD_TOKEN,
  visibleText,
} from './harness.ts';

/** A gateway-mode harness with its fakes, for tests beyond the contract. */
export interface DiscordGatewayHarness extends AdapterHarness {
  adapter: DiscordAdapter;
  fake: FakeDiscord;
  gateway: FakeDiscordGateway;
  /** Dispatches INTERACTION_CREATE for a button tap; returns the interaction's token. */
  dispatchTap(args: { ref: MessageRef; action: string; user: TapUser }): {
    token: string;
    id: string;
  };
  /** Waits until the interaction is answered and the adapter has finished its follow-ups. */
  settle(token: string): Promise<void>;
}

/** An APPLICATION_COMMAND interaction for `/hitl id` in `channelId`, as the gateway delivers it. */
export function hitlIdCommand(channelId: string, user: TapUser): Record<string, unknown> {
  return {
    id: fakeSnowflake(),
    application_id: TEST_DISCORD_APPLICATION_ID,
    type: 2,
    token: `aW50ZXJhY3Rpb246${randomBytes(24).toString('base64url')}`,
    version: 1,
    guild_id: TEST_DISCORD_GUILD_ID,
    channel_id: channelId,
    channel: { id: channelId, guild_id: TEST_DISCORD_GUILD_ID, name: 'reviews', type: 0 },
    member: {
      user: { id: user.id, username: 'ann', discriminator: '0', global_name: user.name ?? null },
      roles: [],
      permissions: '2147483647',
      joined_at: '2024-01-01T00:00:00.000000+00:00',
      deaf: false,
      mute: false,
    },
    app_permissions: '442368',
    locale: 'en-US',
    guild_locale: 'en-US',
    entitlements: [],
    authorizing_integration_owners: { '0': TEST_DISCORD_GUILD_ID },
    context: 0,
    data: { id: fakeSnowflake(), name: 'hitl', type: 1, options: [{ type: 1, name: 'id' }] },
  };
}

/** Builds the fakes and a gateway-mode adapter (not started). */
export async function makeDiscordGatewayHarnessWith(
  options: DiscordAdapterOptions = {},
): Promise<DiscordGatewayHarness> {
  const fake = await startFakeDiscord({
    token: TEST_DISCORD_TOKEN,
    applicationId: TEST_DISCORD_APPLICATION_ID,
  });
  // A short heartbeat interval so that heartbeats and their ACKs really happen during a test.
  const gateway = await FakeDiscordGateway.start({
    token: TEST_DISCORD_TOKEN,
    applicationId: TEST_DISCORD_APPLICATION_ID,
    heartbeatIntervalMs: 1_000,
  });
  fake.useGateway(gateway);
  const adapter = createDiscordAdapter(
    {
      token: TEST_DISCORD_TOKEN,
      applicationId: TEST_DISCORD_APPLICATION_ID,
      apiUrl: fake.apiUrl,
      mode: 'gateway',
    },
    options,
  );
  const messageOf = (ref: MessageRef): FakeDiscordMessage => {
    const [channelId, messageId] = ref.id.split(':');
    const message = fake.message(channelId ?? '', messageId ?? '');
    if (!message) throw new Error(`fake Discord has no message ${ref.id}`);
    return message;
  };
  const dispatchTap: DiscordGatewayHarness['dispatchTap'] = ({ ref, action, user }) => {
    const message = messageOf(ref);
    const current = message.components
      .flatMap((row) => row.components)
      .map((b) => b.custom_id)
      .filter((id): id is string => Boolean(id));
    const customId = [...current, ...message.seenCustomIds].find((id) => id.endsWith(`:${action}`));
    if (!customId) throw new Error(`message ${ref.id} never had a button for "${action}"`);
    const interaction = componentInteraction({ message, customId, user });
    const id = interaction.id as string;
    const token = interaction.token as string;
    fake.registerInteraction({ id, token, channelId: message.channel_id, messageId: message.id });
    gateway.dispatch('INTERACTION_CREATE', interaction);
    return { token, id };
  };
  const settle = async (token: string) => {
    await eventually(
      async () => fake.answeredWith(token) !== null,
      15_000,
      'the interaction answer',
    );
    await adapter.drain();
  };

  return {
    adapter,
    fake,
    gateway,
    dispatchTap,
    settle,
    target: `discord:${TEST_DISCORD_CHANNEL_ID}`,
    users: {
      allowed: { id: '2100000000000000001', name: 'Ann' },
      stranger: { id: '2100000000000000002', name: 'Sam' },
    },
    answerWindowMs: 3_000,
    world: {
      deleteMessage: (ref) => {
        const [channelId, messageId] = ref.id.split(':');
        fake.deleteMessage(channelId ?? '', messageId ?? '');
      },
      removeBot: () => fake.removeBot(TEST_DISCORD_CHANNEL_ID),
    },
    nativeConfirm: false,
    async read(ref) {
      return seen(messageOf(ref));
    },
    async messages(address) {
      return fake.messages(address).map((m) => ({
        platform: 'discord',
        address,
        id: `${m.channel_id}:${m.id}`,
      }));
    },
    async tap({ ref, action, user }) {
      const { token } = dispatchTap({ ref, action, user });
      await settle(token);
      const notices = fake.followUps(token);
      return {
        notice: notices.length ? visibleText(notices[notices.length - 1]!) : null,
        answerMs: fake.answeredAfterMs(token) ?? Number.POSITIVE_INFINITY,
      };
    },
    requests: () => fake.requests().map((r) => r.body),
    async close() {
      await adapter.stop();
      await gateway.close();
      await fake.close();
    },
  };
}

/** The contract suite's gateway-mode harness. */
export const makeDiscordGatewayHarness = () => makeDiscordGatewayHarnessWith();
