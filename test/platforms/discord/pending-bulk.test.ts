import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFastService } from '../../../bench/lib/hitl-service.ts';
import type { TapUser } from '../../../src/adapter.ts';
import type { FakeDiscordMessage } from '../../fakes/discord-api.ts';
import { eventually, type RelayHandle, startRelay } from '../../helpers/relay-env.ts';
import {
  componentInteraction,
  type DiscordHarness,
  makeDiscordHarnessWith,
  TEST_DISCORD_APPLICATION_ID,
  TEST_DISCORD_CHANNEL_ID,
  visibleText,
} from './harness.ts';
import { deliverTo, ephemeralMessage, pendingCommand } from './pending-wire.ts';

const CHANNEL = TEST_DISCORD_CHANNEL_ID;
const ann: TapUser = { id: '2100000000000000011', name: 'Ann' };
const mallory: TapUser = { id: '2100000000000000012', name: 'Mallory' };
let service: Awaited<ReturnType<typeof startFastService>>;
let h: DiscordHarness;
let relay: RelayHandle;
let clock = Date.now();
const submitted: string[] = [];

beforeAll(async () => {
  service = await startFastService();
  service.onSubmit = (id) => submitted.push(id);
  h = await makeDiscordHarnessWith();
  relay = await startRelay({
    adapters: [h.adapter],
    now: () => clock,
    allow: { [`discord:${CHANNEL}`]: [ann.id] },
    configFile: {
      policies: { pair: { required: 2, approvers: [`discord:${ann.id}`, 'discord:1'] } },
      routes: { four: { targets: [`discord:${CHANNEL}`], policy: 'pair' } },
    },
  });
  for (const [target, name] of [
    [`discord:${CHANNEL}`, 'dc-bulk-1'],
    [`discord:${CHANNEL}`, 'dc-bulk-2'],
    ['route:four', 'dc-bulk-four'],
  ] as const) {
    clock += 1000;
    expect((await relay.send(target, service.create(name))).status).toBe(201);
  }
  await eventually(async () => h.fake.messages(CHANNEL).length === 3, 10_000, 'the cards');
});
afterAll(async () => {
  await relay?.stop();
  await h?.close();
  await service?.stop();
});

/** Delivers an interaction to the relay and applies its HTTP answer at the fake, as Discord does. */
const deliver = (interaction: Record<string, unknown>, messageId: string | null = null) =>
  deliverTo(h, relay.url, interaction, messageId);

const idsOf = (a: { data: { components: FakeDiscordMessage['components'] } }) =>
  a.data.components.flatMap((r) =>
    r.components.map((c: any) => c as { label: string; custom_id: string }),
  );

it('PENDING-DC-BULK-1 no bulk button when no listed case may be in a bulk decision', async () => {
  const mine = await deliver(pendingCommand(ann, true));
  expect(visibleText(mine.data.content)).toContain('dc-bulk-four');
  expect(JSON.stringify(mine.data.components)).not.toMatch(/ all \(/);
});

it('PENDING-DC-BULK-2 confirm lists the cases and those left out; only its owner, only once', async () => {
  const first = await deliver(pendingCommand(ann));
  const all = idsOf(first).find((b) => b.label === 'Approve all (2)')!;
  expect(all.custom_id).toMatch(/^hitlb:/);
  const list = ephemeralMessage(first.data);

  const refused = await deliver(
    componentInteraction({ message: list, customId: all.custom_id, user: mallory }),
  );
  expect(refused).toMatchObject({ type: 4, data: { flags: 64 } });
  expect(visibleText(refused.data.content)).toBe('This button is no longer active.');

  const step = await deliver(
    componentInteraction({ message: list, customId: all.custom_id, user: ann }),
  );
  expect(step.type).toBe(7);
  const text = visibleText(step.data.content);
  expect(text.split('\n')[0]).toMatch(/^Approve: 2 cases/);
  expect(text).toContain('1. Deploy build dc-bulk-2 to production?');
  expect(text).toContain('2. Deploy build dc-bulk-1 to production?');
  expect(text).toMatch(/Left out:\n• Deploy build dc-bulk-four to production\? — four-eyes/);
  expect(submitted).toEqual([]);
  const [confirm, cancel] = idsOf(step);
  expect([confirm!.label, cancel!.label]).toEqual(['Confirm', 'Cancel']);
  const shown = ephemeralMessage(step.data);

  const theirs = await deliver(
    componentInteraction({ message: shown, customId: confirm!.custom_id, user: mallory }),
  );
  expect(theirs).toMatchObject({ type: 4, data: { flags: 64 } });
  expect(visibleText(theirs.data.content)).toContain('used, expired or not yours');
  expect(submitted).toEqual([]);

  const done = await deliver(
    componentInteraction({ message: shown, customId: confirm!.custom_id, user: ann }),
  );
  expect(done.type).toBe(7);
  const results = visibleText(done.data.content);
  expect(results).toMatch(/^Approve: the outcome of each of 2 cases/);
  expect(results).toContain('✅ Deploy build dc-bulk-2 to production?');
  expect(results).toContain('✅ Deploy build dc-bulk-1 to production?');
  expect([...submitted].sort()).toEqual(['dc-bulk-1', 'dc-bulk-2']);

  const again = await deliver(
    componentInteraction({ message: shown, customId: confirm!.custom_id, user: ann }),
  );
  expect(visibleText(again.data.content)).toContain('used, expired or not yours');
  expect(submitted).toHaveLength(2);
});

describe('a Confirm that outlasts the interaction window', () => {
  let slow: Awaited<ReturnType<typeof startFastService>>;
  let sh: DiscordHarness;
  let sr: RelayHandle;
  const asked: string[] = [];
  /** Opens the service's held answers (set while the test holds them). */
  let release: () => void = () => {};
  let held: Promise<void> | null = null;

  beforeAll(async () => {
    slow = await startFastService();
    slow.onSubmit = (id) => asked.push(id);
    slow.beforeAnswer = () => held ?? Promise.resolve();
    sh = await makeDiscordHarnessWith({ tapDeadlineMs: 20 });
    sr = await startRelay({ adapters: [sh.adapter], allow: { [`discord:${CHANNEL}`]: [ann.id] } });
    for (const name of ['dc-slow-1', 'dc-slow-2'])
      expect((await sr.send(`discord:${CHANNEL}`, slow.create(name))).status).toBe(201);
    await eventually(async () => sh.fake.messages(CHANNEL).length === 2, 10_000, 'the cards');
  });
  afterAll(async () => {
    release();
    await sr?.stop();
    await sh?.close();
    await slow?.stop();
  });

  it('PENDING-DC-BULK-3 is acknowledged at once; the outcomes follow as an ephemeral follow-up', async () => {
    const list = await deliverTo(sh, sr.url, pendingCommand(ann));
    const all = idsOf(list).find((b) => b.label === 'Approve all (2)')!;
    const step = await deliverTo(
      sh,
      sr.url,
      componentInteraction({
        message: ephemeralMessage(list.data),
        customId: all.custom_id,
        user: ann,
      }),
    );
    const [confirm] = idsOf(step);
    const shown = ephemeralMessage(step.data);
    held = new Promise<void>((r) => (release = r));
    const press = componentInteraction({ message: shown, customId: confirm!.custom_id, user: ann });
    const token = press.token as string;
    const webhook = `/api/v10/webhooks/${TEST_DISCORD_APPLICATION_ID}/${token}`;
    const followUps = () => sh.fake.requests().filter((r) => r.path === webhook);

    // The service holds its answer: the acknowledgement comes before any outcome exists.
    const ack = await deliverTo(sh, sr.url, press);
    expect(ack).toEqual({ type: 6 });
    expect(slow.submits).toBe(0);
    expect(followUps()).toEqual([]);

    release();
    await sh.adapter.drain();
    expect(followUps()).toHaveLength(1);
    const body = JSON.parse(followUps()[0]!.body);
    expect(body).toMatchObject({ flags: 64, components: [], allowed_mentions: { parse: [] } });
    const results = visibleText(body.content);
    expect(results).toMatch(/^Approve: the outcome of each of 2 cases/);
    expect(results).toContain('✅ Deploy build dc-slow-1 to production?');
    expect(results).toContain('✅ Deploy build dc-slow-2 to production?');
    expect([...asked].sort()).toEqual(['dc-slow-1', 'dc-slow-2']);

    const again = await deliverTo(
      sh,
      sr.url,
      componentInteraction({ message: shown, customId: confirm!.custom_id, user: ann }),
    );
    expect(again).toMatchObject({ type: 4, data: { flags: 64 } });
    expect(visibleText(again.data.content)).toContain('used, expired or not yours');
    await sh.adapter.drain();
    expect(asked).toHaveLength(2);
    expect(followUps()).toHaveLength(1);
  });
});
