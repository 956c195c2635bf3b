/**
 * Asks in Discord against the fake REST API and signed HTTP interactions: single and multi
 * decisions arrive as a native string select (min/max values from the ask); the choice comes back as
 * a MESSAGE_COMPONENT interaction with `data.values`; a bad one is answered ephemerally with
 * nothing recorded; a good one comes back typed from /wait.
 */
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { KINDS } from '../asks/fixtures.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';
import {
  componentInteraction,
  type DiscordHarness,
  makeDiscordHarnessWith,
  signInteraction,
  TEST_DISCORD_CHANNEL_ID,
  visibleText,
} from '../platforms/discord/harness.ts';

let h: DiscordHarness;
let relay: RelayHandle;
beforeAll(async () => {
  h = await makeDiscordHarnessWith();
  relay = await startRelay({ adapters: [h.adapter] });
});
afterAll(async () => {
  await relay?.stop();
  await h?.close();
});

async function choose(values: string[]): Promise<string | null> {
  const message = h.fake.messages(TEST_DISCORD_CHANNEL_ID).at(-1)!;
  const select = message.components[0]!.components[0] as unknown as Record<string, any>;
  const interaction = componentInteraction({
    message,
    customId: select.custom_id,
    user: h.users.allowed,
  });
  interaction.data = { component_type: 3, custom_id: select.custom_id, values };
  const id = interaction.id as string;
  const token = interaction.token as string;
  h.fake.registerInteraction({ id, token, channelId: message.channel_id, messageId: message.id });
  const body = JSON.stringify(interaction);
  const res = await fetch(`${relay.url}/discord/interactions`, {
    method: 'POST',
    headers: signInteraction(h.privateKey, body),
    body,
  });
  expect(res.status).toBe(200);
  h.fake.applyInteractionResponse(id, token, await res.json());
  await h.adapter.drain();
  const notes = h.fake.followUps(token);
  return notes.length ? visibleText(notes.at(-1)!) : null;
}

it.each([
  ['decision.single', 1, ['qa'], ['staging'], { selected: 'staging' }],
  [
    'decision.multi',
    2,
    ['infra', 'sales'],
    ['backend', 'infra'],
    { selected: ['infra', 'backend'] },
  ],
] as const)(
  '%s: a native string select, a bad choice refused, the typed answer',
  async (kind, max, bad, good, result) => {
    const before = h.fake.messages(TEST_DISCORD_CHANNEL_ID).length;
    const created = await request(`${relay.url}/v1/asks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ target: h.target, content: KINDS[kind].content }),
    });
    const id = ((await created.body.json()) as any).relay.id;
    await eventually(async () => h.fake.messages(TEST_DISCORD_CHANNEL_ID).length > before);
    const message = h.fake.messages(TEST_DISCORD_CHANNEL_ID).at(-1)!;
    const select = message.components[0]!.components[0] as unknown as Record<string, any>;
    expect(select).toMatchObject({ type: 3, max_values: max });
    expect(select.options.map((o: any) => o.value)).toEqual(
      (KINDS[kind].content.options as Array<{ key: string }>).map((o) => o.key),
    );

    expect(await choose([...bad])).toMatch(/not valid/);
    const open = await request(`${relay.url}/v1/asks/${id}`);
    expect(((await open.body.json()) as any).status).toBe('pending');

    await choose([...good]);
    const done = await request(`${relay.url}/v1/asks/${id}/wait?timeout=10`);
    expect(await done.body.json()).toMatchObject({ kind, status: 'completed', answer: result });
  },
);
