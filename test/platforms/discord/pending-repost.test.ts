import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFastService } from '../../../bench/lib/hitl-service.ts';
import type { TapUser } from '../../../src/adapter.ts';
import type { FakeDiscordMessage } from '../../fakes/discord-api.ts';
import { eventually, type RelayHandle, startRelay } from '../../helpers/relay-env.ts';
import {
  componentInteraction,
  type DiscordHarness,
  makeDiscordHarnessWith,
  TEST_DISCORD_CHANNEL_ID,
} from './harness.ts';
import { deliverTo, ephemeralMessage, pendingCommand } from './pending-wire.ts';

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

const deliver = (interaction: Record<string, unknown>, messageId: string | null = null) =>
  deliverTo(h, relay.url, interaction, messageId);

const seen = (m: FakeDiscordMessage | undefined) => JSON.stringify(m ?? null);
const find = (id: string) => h.fake.messages(CHANNEL).find((m) => m.id === id);

it('REPOST-DC-1 Re-post: the new card decides, takes the final edit; the old one says it moved', async () => {
  const id = (await relay.send(`discord:${CHANNEL}`, service.create('dc-rp-1'))).body.id as string;
  await eventually(async () => h.fake.messages(CHANNEL).length === 1, 10_000, 'the card');
  const old = h.fake.messages(CHANNEL)[0]!;
  const first = await deliver(pendingCommand(ann));
  const row = first.data.components.at(-1)!;
  expect(row.components.map((b) => b.label)).toEqual(['Re-post 1']);
  const list = ephemeralMessage(first.data);
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
