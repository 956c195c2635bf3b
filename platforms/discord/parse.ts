/** Discord interaction JSON -> our types. Pure; the shapes are the documented wire format (API v10). */

import type { MessageRef, Tap, TapUser } from '../../src/adapter.ts';
import { askSelectTap } from './ask.ts';

/** Interaction types we meet (Discord's numbers). */
export const InteractionType = {
  ping: 1,
  applicationCommand: 2,
  messageComponent: 3,
  autocomplete: 4,
  modalSubmit: 5,
} as const;

/** A Discord user object (the fields we read). */
export interface RawDiscordUser {
  id: string;
  username?: string;
  global_name?: string | null;
}

/** An application command option as it arrives (subcommands carry nested options). */
export interface RawCommandOption {
  name: string;
  type: number;
  value?: unknown;
  options?: RawCommandOption[];
}

/** The interaction object as Discord sends it over HTTP or the gateway (the fields we read). */
export interface RawInteraction {
  id: string;
  application_id?: string;
  type: number;
  token: string;
  version?: number;
  guild_id?: string;
  channel_id?: string;
  channel?: { id: string };
  /** Present in guilds. */
  member?: { user?: RawDiscordUser };
  /** Present in DMs. */
  user?: RawDiscordUser;
  /** The message the component was on (components only). */
  message?: { id: string; channel_id?: string };
  data?: {
    custom_id?: string;
    component_type?: number;
    /** A select's chosen values. */
    values?: string[];
    /** A MODAL_SUBMIT's action rows of text inputs ({custom_id, value}). */
    components?: unknown;
    name?: string;
    type?: number;
    options?: RawCommandOption[];
  };
}

/** Our button payload: `hitl:<key>:<action>`. */
const PAYLOAD = /^hitl:([^:]+):([^:]+)$/;

/** Whether `value` looks like an interaction (the minimum we need to answer it). */
export function isRawInteraction(value: unknown): value is RawInteraction {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return typeof v.id === 'string' && typeof v.type === 'number' && typeof v.token === 'string';
}

/** The channel an interaction happened in. */
export function interactionChannelId(raw: RawInteraction): string | null {
  return raw.channel_id ?? raw.channel?.id ?? raw.message?.channel_id ?? null;
}

/** Who acted: `member.user` in a guild, `user` in a DM; the display name is global_name, then username. */
export function interactionUser(raw: RawInteraction): TapUser | null {
  const user = raw.member?.user ?? raw.user;
  if (!user || typeof user.id !== 'string') return null;
  const name = user.global_name || user.username;
  return name ? { id: user.id, name } : { id: user.id };
}

/** The message ref of a channel message: address = channel id, id = `<channel_id>:<message_id>`. */
export function discordMessageRef(channelId: string, messageId: string): MessageRef {
  return { platform: 'discord', address: channelId, id: `${channelId}:${messageId}` };
}

/** Splits a ref id back into channel and message ids; null when it is not ours. */
export function splitMessageRefId(id: string): { channelId: string; messageId: string } | null {
  const match = /^(\d{1,20}):(\d{1,20})$/.exec(id);
  return match ? { channelId: match[1]!, messageId: match[2]! } : null;
}

/** A MESSAGE_COMPONENT interaction on one of our buttons -> Tap; null for anything else. */
export function parseTap(raw: RawInteraction): Tap | null {
  if (raw.type !== InteractionType.messageComponent) return null;
  const user = interactionUser(raw);
  const channelId = interactionChannelId(raw);
  const ref = channelId && raw.message?.id ? discordMessageRef(channelId, raw.message.id) : null;
  // A choice in an ask's select is the answer itself.
  const ask = askSelectTap(raw.data?.custom_id, raw.data?.values);
  if (ask && user) return { platform: 'discord', ...ask, user, ref };
  const match = PAYLOAD.exec(raw.data?.custom_id ?? '');
  if (!match || !user) return null;
  // Discord has no native confirm dialog for buttons, so `confirmed` stays unset.
  return { platform: 'discord', key: match[1]!, action: match[2]!, user, ref };
}

/** `/hitl <subcommand>` -> the subcommand name ("id"); null for other commands. */
export function parseHitlCommand(raw: RawInteraction): string | null {
  if (raw.type !== InteractionType.applicationCommand || raw.data?.name !== 'hitl') return null;
  // Subcommands arrive as the first option with type 1 (SUB_COMMAND).
  const sub = raw.data.options?.find((option) => option.type === 1);
  return sub?.name ?? null;
}
