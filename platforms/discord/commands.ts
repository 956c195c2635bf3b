/** The `/hitl` slash command and the bot's invite URL. */
import type { DiscordApi } from './api.ts';
import { PENDING_COMMAND } from './pending.ts';

/**
 * Permissions the bot asks for when invited, as Discord's bit flags:
 * View Channel (1 << 10) to see the channel, Send Messages (1 << 11) to post cases,
 * Embed Links (1 << 14) so links in prompts unfurl, Read Message History (1 << 16) so reminders
 * can reply to the case message. 1024 + 2048 + 16384 + 65536 = 84992.
 */
export const DISCORD_BOT_PERMISSIONS = (1n << 10n) | (1n << 11n) | (1n << 14n) | (1n << 16n);

/** OAuth2 scopes: `bot` adds the bot user, `applications.commands` lets it offer `/hitl`. */
export const DISCORD_INVITE_SCOPES = ['bot', 'applications.commands'] as const;

/** The URL a server admin opens to add the bot with the right scopes and permissions. */
export function discordInviteUrl(applicationId: string): string {
  const query = new URLSearchParams({
    client_id: applicationId,
    scope: DISCORD_INVITE_SCOPES.join(' '),
    permissions: DISCORD_BOT_PERMISSIONS.toString(),
  });
  return `https://discord.com/oauth2/authorize?${query.toString()}`;
}

/** `/hitl id`: a CHAT_INPUT command (type 1) with one SUB_COMMAND option (type 1); and `/pending`. */
export const HITL_COMMANDS = [
  {
    name: 'hitl',
    type: 1,
    description: 'hitl-relay: review cases from AI agents',
    // 0 = servers, 1 = DMs with the bot; installed to servers (integration type 0).
    contexts: [0, 1],
    integration_types: [0],
    options: [
      {
        type: 1,
        name: 'id',
        description: "Show this channel's target string (discord:<channel id>)",
      },
    ],
  },
  PENDING_COMMAND,
] as const;

/** Registers the commands (globally, or in one guild where they appear at once). Replaces the set. */
export async function registerDiscordCommands(
  api: DiscordApi,
  applicationId: string,
  guildId?: string,
): Promise<unknown[]> {
  return api.putCommands(applicationId, [...HITL_COMMANDS], guildId);
}
