import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFastService } from '../../../bench/lib/hitl-service.ts';
import { HITL_COMMANDS } from '../../../platforms/discord/commands.ts';
import type { TapUser } from '../../../src/adapter.ts';
import { eventually, type RelayHandle, startRelay } from '../../helpers/relay-env.ts';
import {
  componentInteraction,
  type DiscordHarness,
  makeDiscordHarnessWith,
  TEST_DISCORD_CHANNEL_ID,
  TEST_DISCORD_GUILD_ID,
  visibleText,
} from './harness.ts';
import { deliverTo, ephemeralMessage, pendingCommand } from './pending-wire.ts';

const CHANNEL = TEST_DISCORD_CHANNEL_ID;
const ann: TapUser = { id: '2100000000000000001', name: 'Ann' };
const mallory: TapUser = { id: '2100000000000000002', name: 'Mallory' };
const carol: TapUser = { id: '2100000000000000003', name: 'Carol' };
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
    allow: { [`discord:${CHANNEL}`]: [ann.id, carol.id] },
    configFile: {
      policies: { pair: { required: 2, approvers: [`discord:${carol.id}`, 'discord:1'] } },
      routes: { four: { targets: [`discord:${CHANNEL}`], policy: 'pair' } },
    },
  });
  for (let i = 1; i <= 6; i++) {
    clock += 1000;
    expect((await relay.send(`discord:${CHANNEL}`, service.create(`dc-pend-${i}`))).status).toBe(
      201,
    );
  }
  clock += 1000;
  expect((await relay.send('route:four', service.create('dc-pend-policy'))).status).toBe(201);
  await eventually(async () => h.fake.messages(CHANNEL).length === 7, 10_000, 'the cards');
});
afterAll(async () => {
  await relay?.stop();
  await h?.close();
  await service?.stop();
});

/** Delivers an interaction to the relay and applies its HTTP answer at the fake, as Discord does. */
const deliver = (interaction: Record<string, unknown>, messageId: string | null = null) =>
  deliverTo(h, relay.url, interaction, messageId);

it('PENDING-DC-0 /pending is registered next to /hitl with an optional boolean "mine"', () => {
  const pending = HITL_COMMANDS.find((c) => c.name === 'pending');
  expect(pending?.options).toEqual([expect.objectContaining({ type: 5, name: 'mine' })]);
});

it('PENDING-DC-1 an ephemeral list, newest first, with card links and a More button only its owner can use', async () => {
  const before = h.fake.messages(CHANNEL).length;
  const first = await deliver(pendingCommand(ann));
  expect(first.type).toBe(4);
  expect(first.data.flags).toBe(64);
  const text = visibleText(first.data.content);
  expect(text.split('\n')[0]).toBe('Waiting for a decision here (5+), newest first:');
  expect(text).toContain('1. Deploy build dc-pend-6 to production?');
  expect(text).toContain('5. Deploy build dc-pend-2 to production?');
  expect(text).not.toContain('dc-pend-1 ');
  // Ann is not among the policy's approvers: the policy case is not hers to decide.
  expect(text).not.toContain('dc-pend-policy');
  const cardOf6 = h.fake.messages(CHANNEL).find((m) => m.content.includes('dc-pend-6'))!;
  expect(first.data.content).toContain(
    `(<https://discord.com/channels/${TEST_DISCORD_GUILD_ID}/${CHANNEL}/${cardOf6.id}>)`,
  );
  // Nothing was posted in the channel.
  expect(h.fake.messages(CHANNEL)).toHaveLength(before);
  const more = first.data.components[0]!.components[0]!;
  expect(more.custom_id).toMatch(/^hitlp:/);
  const list = ephemeralMessage(first.data);

  const refused = await deliver(
    componentInteraction({ message: list, customId: more.custom_id!, user: mallory }),
  );
  expect(refused.type).toBe(4);
  expect(refused.data.flags).toBe(64);
  expect(visibleText(refused.data.content)).toBe('This button is no longer active.');

  const second = await deliver(
    componentInteraction({ message: list, customId: more.custom_id!, user: ann }),
  );
  expect(second.type).toBe(7);
  expect(visibleText(second.data.content)).toContain('1. Deploy build dc-pend-1');
  expect(second.data.content).not.toContain('dc-pend-2');
  // The last page has no More button (its bulk buttons are PENDING-DC-BULK's); its item's Re-post.
  const ids = second.data.components.flatMap((r) => r.components.map((c: any) => c.custom_id));
  expect(ids.filter((i) => i?.startsWith('hitlp:'))).toEqual([]);
  const labels = second.data.components.flatMap((r) => r.components.map((b) => b.label));
  expect(labels.filter((l) => String(l).startsWith('Re-post'))).toEqual(['Re-post 1']);
});

it('PENDING-DC-2 privacy: not on the allowlist sees nothing; mine lists the policy case for its approver', async () => {
  const none = await deliver(pendingCommand(mallory));
  expect(none.data.flags).toBe(64);
  expect(visibleText(none.data.content)).toBe('Nothing is waiting for you here.');
  expect(none.data.components).toEqual([]);

  const mine = await deliver(pendingCommand(carol, true));
  expect(mine.data.flags).toBe(64);
  const text = visibleText(mine.data.content);
  expect(text).toContain('1. Deploy build dc-pend-policy');
  expect(text).toContain('0 of 2 approvals');
  expect(text).not.toContain('dc-pend-6');
  const annMine = await deliver(pendingCommand(ann, true));
  expect(visibleText(annMine.data.content)).toBe('Nothing here names you as an approver.');
});
