/**
 * Gateway receive mode: a discord.js Client (intent Guilds) delivers interactions over its
 * WebSocket; we turn each into the wire shape and feed the shared flow, answering through REST.
 * discord.js finds the gateway through REST `GET /gateway/bot` on the configured API base, so
 * tests run it against a fake gateway (test/fakes/discord-gateway.ts); it resumes by itself.
 */
import {
  type ButtonInteraction,
  type ChatInputCommandInteraction,
  Client,
  Events,
  GatewayIntentBits,
  type Interaction,
  type ModalSubmitInteraction,
  type StringSelectMenuInteraction,
} from 'discord.js';
import type { Logger } from '../../src/log.ts';
import { InteractionType, type RawInteraction } from './parse.ts';

/** A running gateway connection. */
export interface DiscordGateway {
  stop(): Promise<void>;
}

/** What the gateway needs. */
export interface DiscordGatewayOptions {
  token: string;
  apiUrl?: string;
  log: Logger;
  onInteraction(raw: RawInteraction): void;
}

/** The fields every interaction carries. */
function baseOf(interaction: Interaction): RawInteraction {
  const user = {
    id: interaction.user.id,
    username: interaction.user.username,
    global_name: interaction.user.globalName,
  };
  return {
    id: interaction.id,
    application_id: interaction.applicationId,
    type: interaction.type,
    token: interaction.token,
    ...(interaction.channelId ? { channel_id: interaction.channelId } : {}),
    ...(interaction.guildId ? { guild_id: interaction.guildId, member: { user } } : { user }),
  };
}

/** A button or an ask's select (the choice is the answer, or a ranking step). */
function componentData(
  interaction: ButtonInteraction | StringSelectMenuInteraction,
): Partial<RawInteraction> {
  return {
    type: InteractionType.messageComponent,
    message: { id: interaction.message.id, channel_id: interaction.message.channelId },
    data: {
      custom_id: interaction.customId,
      component_type: interaction.componentType,
      ...(interaction.isStringSelectMenu() ? { values: [...interaction.values] } : {}),
    },
  };
}

/** An ask's submitted modal: its text inputs as action rows. */
function modalData(interaction: ModalSubmitInteraction): Partial<RawInteraction> {
  const inputs = [...interaction.fields.fields.values()].flatMap((f) =>
    'value' in f && typeof f.value === 'string'
      ? [{ type: 1, components: [{ type: 4, custom_id: f.customId, value: f.value }] }]
      : [],
  );
  return {
    type: InteractionType.modalSubmit,
    ...(interaction.message
      ? { message: { id: interaction.message.id, channel_id: interaction.message.channelId } }
      : {}),
    data: { custom_id: interaction.customId, components: inputs },
  };
}

/** `/hitl <subcommand>`. */
function commandData(interaction: ChatInputCommandInteraction): Partial<RawInteraction> {
  const sub = interaction.options.getSubcommand(false);
  return {
    type: InteractionType.applicationCommand,
    data: {
      name: interaction.commandName,
      type: 1,
      ...(sub ? { options: [{ name: sub, type: 1 }] } : {}),
    },
  };
}

/** A discord.js interaction -> the documented interaction JSON (the fields parse.ts reads). */
export function toRawInteraction(interaction: Interaction): RawInteraction | null {
  let data: Partial<RawInteraction> | null = null;
  if (interaction.isButton() || interaction.isStringSelectMenu()) data = componentData(interaction);
  else if (interaction.isModalSubmit()) data = modalData(interaction);
  else if (interaction.isChatInputCommand()) data = commandData(interaction);
  return data ? ({ ...baseOf(interaction), ...data } as RawInteraction) : null;
}

/** Logs in and starts delivering interactions. One process per bot token (one shard). */
export async function startDiscordGateway(options: DiscordGatewayOptions): Promise<DiscordGateway> {
  const client = new Client({
    intents: [GatewayIntentBits.Guilds],
    ...(options.apiUrl ? { rest: { api: options.apiUrl } } : {}),
  });
  client.on(Events.InteractionCreate, (interaction) => {
    const raw = toRawInteraction(interaction);
    if (raw) options.onInteraction(raw);
  });
  client.on(Events.Error, (error) =>
    options.log.warn({ err: error.message }, 'discord gateway error'),
  );
  client.once(Events.ClientReady, (ready) =>
    options.log.info({ bot: ready.user.tag }, 'discord gateway connected'),
  );
  await client.login(options.token);
  return {
    async stop() {
      await client.destroy();
    },
  };
}
