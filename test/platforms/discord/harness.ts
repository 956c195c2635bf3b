/** The Discord harness for the shared adapter contract suite (HTTP interactions mode). */
import { generateKeyPairSync, type KeyObject, randomBytes, sign } from 'node:crypto';
import {
  createDiscordAdapter,
  type DiscordAdapter,
  type DiscordAdapterOptions,
} from '../../../platforms/discord/index.ts';
import type { MessageRef, TapUser } from '../../../src/adapter.ts';
import type { AdapterHarness, MakeHarness, SeenMessage } from '../../contract/harness.ts';
import {
  type FakeDiscord,
  type FakeDiscordMessage,
  fakeSnowflake,
  startFakeDiscord,
} from '../../fakes/discord-api.ts';

/** Test credentials: shaped like the real ones, valid nowhere. */
export const TEST_DISCORD_TOKEN =
  'MTEwMDAwMDAwMDAwMDAwMDAwMQ.GfakeT.discord-test-token-0123456789abcdef';
export const TEST_DISCORD_APPLICATION_ID = '1100000000000000001';
export const TEST_DISCORD_CHANNEL_ID = '1200000000000000001';
export const TEST_DISCORD_GUILD_ID = '1000000000000000001';

/** An Ed25519 key pair like the one Discord signs interactions with; the public key as hex. */
export function makeSigningKeys(): { publicKeyHex: string; privateKey: KeyObject } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const jwk = publicKey.export({ format: 'jwk' });
  return { publicKeyHex: Buffer.from(jwk.x ?? '', 'base64url').toString('hex'), privateKey };
}

/** Signs a body the way Discord does: Ed25519 over `timestamp + body`. */
export function signInteraction(
  privateKey: KeyObject,
  body: string,
  timestamp = Math.floor(Date.now() / 1000).toString(),
): Record<string, string> {
  const signature = sign(null, Buffer.from(timestamp + body), privateKey).toString('hex');
  return {
    'content-type': 'application/json',
    'x-signature-ed25519': signature,
    'x-signature-timestamp': timestamp,
  };
}

/** A MESSAGE_COMPONENT interaction as Discord sends it for a button on `message` (guild channel). */
export function componentInteraction(args: {
  message: FakeDiscordMessage;
  customId: string;
  user: TapUser;
  id?: string;
  token?: string;
}): Record<string, unknown> {
  const { message, customId, user } = args;
  return {
    app_permissions: '84992',
    application_id: TEST_DISCORD_APPLICATION_ID,
    authorizing_integration_owners: { '0': TEST_DISCORD_GUILD_ID },
    channel: { id: message.channel_id, guild_id: TEST_DISCORD_GUILD_ID, name: 'reviews', type: 0 },
    channel_id: message.channel_id,
    context: 0,
    data: { component_type: 2, custom_id: customId },
    entitlements: [],
    guild: { features: [], id: TEST_DISCORD_GUILD_ID, locale: 'en-US' },
    guild_id: TEST_DISCORD_GUILD_ID,
    guild_locale: 'en-US',
    id: args.id ?? fakeSnowflake(),
    locale: 'en-US',
    member: {
      avatar: null,
      deaf: false,
      flags: 0,
      joined_at: '2024-01-01T00:00:00.000000+00:00',
      mute: false,
      nick: null,
      pending: false,
      permissions: '2248473465835073',
      premium_since: null,
      roles: [],
      user: {
        avatar: null,
        discriminator: '0',
        global_name: user.name ?? null,
        id: user.id,
        public_flags: 0,
        username: (user.name ?? 'user').toLowerCase().replace(/[^a-z0-9_.]/g, ''),
      },
    },
    message: {
      attachments: [],
      author: {
        bot: true,
        id: TEST_DISCORD_APPLICATION_ID,
        username: 'hitl-relay',
        discriminator: '0',
      },
      channel_id: message.channel_id,
      components: message.components,
      content: message.content,
      edited_timestamp: null,
      embeds: [],
      flags: 0,
      id: message.id,
      mention_everyone: false,
      mention_roles: [],
      mentions: [],
      pinned: false,
      timestamp: '2024-01-01T00:00:00.000000+00:00',
      tts: false,
      type: 0,
    },
    token: args.token ?? `aW50ZXJhY3Rpb246${randomBytes(24).toString('base64url')}`,
    type: 3,
    version: 1,
  };
}

/** What Discord shows for escaped markdown: the backslashes and zero-width spaces are invisible. */
export function visibleText(markdown: string): string {
  return markdown.replace(/\\([^A-Za-z0-9\s])/g, '$1').replace(/\u200b/g, '');
}

/** What a person sees of a message: content, action names of the buttons, the Details link. */
export function seen(message: FakeDiscordMessage): SeenMessage {
  const buttons = message.components.flatMap((row) => row.components);
  return {
    text: message.content,
    actions: buttons
      .filter((b) => b.style !== 5 && b.custom_id)
      .map((b) => (b.custom_id ?? '').split(':').pop() ?? ''),
    link: buttons.find((b) => b.style === 5)?.url ?? null,
  };
}

/** Harness internals some Discord tests use directly. */
export interface DiscordHarness extends AdapterHarness {
  adapter: DiscordAdapter;
  fake: FakeDiscord;
  privateKey: KeyObject;
  publicKeyHex: string;
}

/** Builds the fake Discord and an HTTP-interactions-mode adapter pointed at it. */
export async function makeDiscordHarnessWith(
  options: DiscordAdapterOptions = {},
): Promise<DiscordHarness> {
  const fake = await startFakeDiscord({
    token: TEST_DISCORD_TOKEN,
    applicationId: TEST_DISCORD_APPLICATION_ID,
  });
  const { publicKeyHex, privateKey } = makeSigningKeys();
  const adapter = createDiscordAdapter(
    {
      token: TEST_DISCORD_TOKEN,
      applicationId: TEST_DISCORD_APPLICATION_ID,
      publicKey: publicKeyHex,
      apiUrl: fake.apiUrl,
      mode: 'http',
    },
    options,
  );
  const messageOf = (ref: MessageRef): FakeDiscordMessage => {
    const [channelId, messageId] = ref.id.split(':');
    const message = fake.message(channelId ?? '', messageId ?? '');
    if (!message) throw new Error(`fake Discord has no message ${ref.id}`);
    return message;
  };

  return {
    adapter,
    fake,
    privateKey,
    publicKeyHex,
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
    async tap({ ref, action, user, relayUrl }) {
      const message = messageOf(ref);
      const current = message.components
        .flatMap((row) => row.components)
        .map((b) => b.custom_id)
        .filter((id): id is string => Boolean(id));
      // A person may still tap a button their client shows from an earlier version of the message.
      const customId = [...current, ...message.seenCustomIds].find((id) =>
        id.endsWith(`:${action}`),
      );
      if (!customId) throw new Error(`message ${ref.id} never had a button for "${action}"`);
      const interaction = componentInteraction({ message, customId, user });
      const id = interaction.id as string;
      const token = interaction.token as string;
      fake.registerInteraction({ id, token, channelId: message.channel_id, messageId: message.id });
      const body = JSON.stringify(interaction);
      const sentAt = Date.now();
      const res = await fetch(`${relayUrl}/discord/interactions`, {
        method: 'POST',
        headers: signInteraction(privateKey, body),
        body,
      });
      if (res.status !== 200) throw new Error(`relay answered the interaction with ${res.status}`);
      const answerMs = Date.now() - sentAt;
      // Over HTTP the interaction response is our HTTP answer; Discord applies it to the message.
      const applied = fake.applyInteractionResponse(id, token, await res.json());
      if (applied.status >= 300)
        throw new Error(`fake Discord refused the response: ${JSON.stringify(applied.body)}`);
      // Follow-ups go out after the answer; wait for the adapter to finish this interaction.
      await adapter.drain();
      const notices = fake.followUps(token);
      return {
        notice: notices.length ? visibleText(notices[notices.length - 1]!) : null,
        answerMs,
      };
    },
    requests: () => fake.requests().map((r) => r.body),
    close: () => fake.close(),
  };
}

/** The contract suite's harness: HTTP interactions mode with default timings. */
export const makeDiscordHarness: MakeHarness = () => makeDiscordHarnessWith();
