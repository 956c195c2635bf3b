/**
 * Issue 35, `/pending`'s "Re-post" on Discord (HTTP interactions) against the fake Discord API: a
 * row of Re-post buttons under the ephemeral list; a press posts the card again in the channel,
 * answered by an ephemeral note; the new card's buttons decide the case and it takes the final
 * edit; the old card is edited to say it moved. Someone who may not decide gets nothing, a second
 * press within 30 s is refused, an ended case is not re-posted.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFastService } from '../../../bench/lib/hitl-service.ts';
import type { TapUser } from '../../../src/adapter.ts';
import { type FakeDiscordMessage, fakeSnowflake } from '../../fakes/discord-api.ts';
import { eventually, type RelayHandle, startRelay } from '../../helpers/relay-env.ts';
import {
  componentInteraction,
  type DiscordHarness,
  makeDiscordHarnessWith,
  signInteraction,
  TEST_DISCORD_APPLICATION_ID,
  TEST_DISCORD_CHANNEL_ID,
  TEST_DISCORD_GUILD_ID,
} from './harness.ts';

const CHANNEL = TEST_DISCORD_CHANNEL_ID;
const ann: TapUser = { id: '2200000000000000001', name: 'Ann' };
const mallory: TapUser = { id: '2200000000000000002', name: 'Mallory' };
let service: Awaited<ReturnType<typeof startFastService>>;
let h: DiscordHarness;
let relay: RelayHandle;
let clock = Date.now();

beforeAll(async () => {
  service = await startFastService();
  h = await makeDiscordHarnessWith();
  relay = await startRelay({
    adapters: [h.adapter],
    now: () => clock,
    allow: { [`discord:${CHANNEL}`]: [ann.id] },
  });
});
afterAll(async () => {
  await relay?.stop();
  await h?.close();
  await service?.stop();
});

/** The `/pending` APPLICATION_COMMAND interaction as Discord sends it in a guild channel. */
function pendingCommand(user: TapUser): Record<string, unknown> {
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
    data: { id: fakeSnowflake(), name: 'pending', type: 1 },
  };
}

/** Delivers an interaction and applies its HTTP answer at the fake, as Discord does. */
async function deliver(interaction: Record<string, unknown>, messageId: string | null = null) {
  const id = interaction.id as string;
  const token = interaction.token as string;
  h.fake.registerInteraction({ id, token, channelId: CHANNEL, messageId });
  const body = JSON.stringify(interaction);
  const res = await fetch(`${relay.url}/discord/interactions`, {
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

const seen = (m: FakeDiscordMessage | undefined) => JSON.stringify(m ?? null);
const find = (id: string) => h.fake.messages(CHANNEL).find((m) => m.id === id);

it('REPOST-DC-1 Re-post: the new card decides, takes the final edit; the old one says it moved', async () => {
  const id = (await relay.send(`discord:${CHANNEL}`, service.create('dc-rp-1'))).body.id as string;
  await eventually(async () => h.fake.messages(CHANNEL).length === 1, 10_000, 'the card');
  const old = h.fake.messages(CHANNEL)[0]!;
  const first = await deliver(pendingCommand(ann));
  const row = first.data.components.at(-1)!;
  expect(row.components.map((b) => b.label)).toEqual(['Re-post 1']);
  const list: FakeDiscordMessage = {
    id: fakeSnowflake(),
    channel_id: CHANNEL,
    content: first.data.content,
    components: first.data.components,
    embeds: [],
    allowed_mentions: { parse: [] },
    flags: 64,
    seenCustomIds: [],
    edits: 0,
  };
  const press = async (user: TapUser) => {
    const a = await deliver(
      componentInteraction({ message: list, customId: row.components[0]!.custom_id!, user }),
    );
    expect(a).toMatchObject({ type: 4, data: { flags: 64 } });
    return a.data.content.replace(/\\/g, '');
  };

  expect(await press(mallory)).toBe('You may not decide this case here; nothing was posted.');
  expect(h.fake.messages(CHANNEL)).toHaveLength(1);

  expect(await press(ann)).toMatch(/posted again/);
  expect(h.fake.messages(CHANNEL)).toHaveLength(2);
  const fresh = h.fake.messages(CHANNEL)[1]!;
  expect(seen(fresh)).toContain('dc-rp-1');
  expect(seen(find(old.id))).toContain('posted again further down');
  expect(JSON.stringify(find(old.id)!.components)).not.toContain('"hitl:');

  expect(await press(ann)).toBe('This card was re-posted a moment ago; try again in 30 s.');
  expect(h.fake.messages(CHANNEL)).toHaveLength(2);

  const approve = fresh.components
    .flatMap((r) => r.components)
    .find((b) => b.custom_id?.endsWith(':approve'))!;
  await deliver(
    componentInteraction({ message: fresh, customId: approve.custom_id!, user: ann }),
    fresh.id,
  );
  await relay.until(id, (c) => c.final);
  await relay.relay.services.cards.settled(id);
  await eventually(async () => seen(find(fresh.id)).includes('Approved'), 10_000, 'final edit');
  expect(seen(find(old.id))).not.toContain('Approved');

  clock += 31_000;
  expect(await press(ann)).toBe('This case has ended (completed); nothing was posted.');
  expect(h.fake.messages(CHANNEL)).toHaveLength(2);
});
