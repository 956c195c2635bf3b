/**
 * Gateway mode turns discord.js interaction objects back into the wire shape parse.ts reads.
 * The objects here are built by discord.js's own INTERACTION_CREATE handler from the documented
 * payloads; the WebSocket connection itself is exercised in gateway.test.ts.
 */
import { readFileSync } from 'node:fs';
import { Client, Events, GatewayIntentBits, type Interaction } from 'discord.js';
import { afterEach, describe, expect, it } from 'vitest';
import { toRawInteraction } from '../../../platforms/discord/gateway.ts';
import { createDiscordAdapter } from '../../../platforms/discord/index.ts';
import {
  parseHitlCommand,
  parseTap,
  type RawInteraction,
} from '../../../platforms/discord/parse.ts';
import { TEST_DISCORD_APPLICATION_ID, TEST_DISCORD_TOKEN } from './harness.ts';

const fixture = (name: string): RawInteraction =>
  JSON.parse(
    readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8'),
  ) as RawInteraction;

let client: Client | null = null;
afterEach(async () => {
  await client?.destroy();
  client = null;
});

/** Feeds an INTERACTION_CREATE payload through discord.js (no connection) and maps what it emits. */
function throughDiscordJs(payload: RawInteraction): RawInteraction | null {
  client = new Client({ intents: [GatewayIntentBits.Guilds] });
  let mapped: RawInteraction | null = null;
  client.on(Events.InteractionCreate, (interaction: Interaction) => {
    mapped = toRawInteraction(interaction);
  });
  // discord.js's own handler for the gateway's INTERACTION_CREATE dispatch.
  const actions = (
    client as unknown as { actions: { InteractionCreate: { handle(d: unknown): void } } }
  ).actions;
  actions.InteractionCreate.handle(payload);
  return mapped;
}

describe('gateway mode mapping', () => {
  it('a guild button tap maps to the same Tap as the HTTP payload', () => {
    const raw = fixture('component-guild.json');
    const mapped = throughDiscordJs(raw);
    expect(mapped).not.toBeNull();
    expect(mapped!.token).toBe(raw.token);
    expect(parseTap(mapped!)).toEqual(parseTap(raw));
  });

  it('a DM button tap maps with the user and their global name', () => {
    const raw = fixture('component-dm.json');
    expect(parseTap(throughDiscordJs(raw)!)).toEqual(parseTap(raw));
  });

  it('/hitl id maps to the id subcommand', () => {
    const mapped = throughDiscordJs(fixture('command-hitl-id.json'));
    expect(parseHitlCommand(mapped!)).toBe('id');
    expect(mapped!.channel_id).toBe('645027906669510667');
  });

  it("an ask's select choice maps with its values (the same Tap as over HTTP)", () => {
    const raw = fixture('component-guild.json');
    raw.data = { custom_id: 'hitl-ask:k7f3q:many', component_type: 3, values: ['b', 'a'] };
    const mapped = throughDiscordJs(raw);
    expect(mapped?.data?.values).toEqual(['b', 'a']);
    expect(parseTap(mapped!)).toEqual(parseTap(raw));
    expect(parseTap(mapped!)?.data).toEqual({ selected: ['b', 'a'] });
  });

  it("an ask's submitted modal maps with its text inputs and the card's message", () => {
    const raw = fixture('component-guild.json');
    raw.type = 5;
    raw.data = {
      custom_id: 'hitl-modal:k7f3q',
      components: [
        { type: 1, components: [{ type: 4, custom_id: 'value', value: 'A full refund.' }] },
      ],
    };
    const mapped = throughDiscordJs(raw);
    expect(mapped).toMatchObject({
      type: 5,
      message: { id: raw.message!.id },
      data: { custom_id: 'hitl-modal:k7f3q', components: raw.data.components },
    });
  });

  it('a gateway-mode adapter serves no HTTP routes', () => {
    const adapter = createDiscordAdapter({
      token: TEST_DISCORD_TOKEN,
      applicationId: TEST_DISCORD_APPLICATION_ID,
      mode: 'gateway',
    });
    expect(adapter.routes).toEqual([]);
  });
});
