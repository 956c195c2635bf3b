/**
 * The Discord wire of the `/pending` tests: the `/pending` command interaction as Discord sends
 * it, its delivery to the relay with the HTTP answer applied at the fake, and the ephemeral list
 * as a message a component interaction can come from.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import type { TapUser } from '../../../src/adapter.ts';
import { type FakeDiscordMessage, fakeSnowflake } from '../../fakes/discord-api.ts';
import {
  type DiscordHarness,
  signInteraction,
  TEST_DISCORD_APPLICATION_ID,
  TEST_DISCORD_CHANNEL_ID,
  TEST_DISCORD_GUILD_ID,
} from './harness.ts';

const CHANNEL = TEST_DISCORD_CHANNEL_ID;

/** The `/pending` APPLICATION_COMMAND interaction as Discord sends it in a guild channel. */
export function pendingCommand(user: TapUser, mine?: boolean): Record<string, unknown> {
  return {
    id: fakeSnowflake(),
    application_id: TEST_DISCORD_APPLICATION_ID,
    type: 2,
    token: `aW50ZXJhY3Rpb246${randomBytes(24).toString('base64url')}`,
    version: 1,
    guild_id: TEST_DISCORD_GUILD_ID,
    channel_id: CHANNEL,
    channel: { id: CHANNEL, guild_id: TEST_DISCORD_GUILD_ID, name: 'reviews', type: 0 },
    member: {
      user: { id: user.id, username: 'u', discriminator: '0', global_name: user.name ?? null },
      roles: [],
      permissions: '2147483647',
      joined_at: '2024-01-01T00:00:00.000000+00:00',
      deaf: false,
      mute: false,
    },
    app_permissions: '442368',
    locale: 'en-US',
    entitlements: [],
    authorizing_integration_owners: { '0': TEST_DISCORD_GUILD_ID },
    context: 0,
    data: {
      id: fakeSnowflake(),
      name: 'pending',
      type: 1,
      ...(mine === undefined ? {} : { options: [{ type: 5, name: 'mine', value: mine }] }),
    },
  };
}

/** Delivers an interaction to the relay and applies its HTTP answer at the fake, as Discord does. */
export async function deliverTo(
  h: DiscordHarness,
  relayUrl: string,
  interaction: Record<string, unknown>,
  messageId: string | null = null,
) {
  const id = interaction.id as string;
  const token = interaction.token as string;
  h.fake.registerInteraction({ id, token, channelId: CHANNEL, messageId });
  const body = JSON.stringify(interaction);
  const res = await fetch(`${relayUrl}/discord/interactions`, {
    method: 'POST',
    headers: signInteraction(h.privateKey, body),
    body,
  });
  expect(res.status).toBe(200);
  const answer = (await res.json()) as {
    type: number;
    data: { content: string; flags?: number; components: FakeDiscordMessage['components'] };
  };
  expect(h.fake.applyInteractionResponse(id, token, answer).status).toBe(204);
  return answer;
}

/** The ephemeral list as a message a component interaction can come from. */
export function ephemeralMessage(data: {
  content: string;
  components: FakeDiscordMessage['components'];
}): FakeDiscordMessage {
  return {
    id: fakeSnowflake(),
    channel_id: CHANNEL,
    content: data.content,
    components: data.components,
    embeds: [],
    allowed_mentions: { parse: [] },
    flags: 64,
    seenCustomIds: [],
    edits: 0,
  };
}
