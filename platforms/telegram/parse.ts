/** Telegram payloads -> neutral types. Pure: no I/O. */
import type { CallbackQuery, Chat, MaybeInaccessibleMessage, User } from 'grammy/types';
import type { AdapterStrings, MessageRef, Tap, TapUser } from '../../src/adapter.ts';
import { stringsOf } from '../../src/adapter-kit.ts';

const PLATFORM = 'telegram';

/** Splits a button payload `hitl:<key>:<action>`; null for anything else (foreign or stale buttons). */
export function parseCallbackData(
  data: string | undefined,
): { key: string; action: string } | null {
  if (!data?.startsWith('hitl:')) return null;
  const rest = data.slice('hitl:'.length);
  const cut = rest.lastIndexOf(':');
  if (cut <= 0 || cut === rest.length - 1) return null;
  return { key: rest.slice(0, cut), action: rest.slice(cut + 1) };
}

/** "First Last", else the username, else nothing. */
export function displayName(from: User): string | undefined {
  const full = [from.first_name, from.last_name]
    .map((part) => part?.trim())
    .filter(Boolean)
    .join(' ');
  if (full) return full;
  return from.username || undefined;
}

/** The person who tapped. */
export function tapUser(from: User): TapUser {
  const name = displayName(from);
  return name ? { id: String(from.id), name } : { id: String(from.id) };
}

/** The ref of a message; null when it is missing or inaccessible (Telegram then sends date 0). */
export function refFromMessage(message: MaybeInaccessibleMessage | undefined): MessageRef | null {
  if (!message || message.date === 0) return null;
  return {
    platform: PLATFORM,
    address: String(message.chat.id),
    id: `${message.chat.id}:${message.message_id}`,
  };
}

/** Reads `${chat_id}:${message_id}` back; null when the ref is not one of ours. */
export function parseMessageRef(ref: MessageRef): { chatId: string; messageId: number } | null {
  if (ref.platform !== PLATFORM) return null;
  const match = /^(-?\d+):(\d+)$/.exec(ref.id);
  if (!match) return null;
  return { chatId: match[1] as string, messageId: Number(match[2]) };
}

/** A callback query as a Tap; null when its data is not a hitl-relay button. */
export function parseCallbackQuery(query: CallbackQuery): Tap | null {
  const parsed = parseCallbackData(query.data);
  if (!parsed) return null;
  return {
    platform: PLATFORM,
    key: parsed.key,
    action: parsed.action,
    user: tapUser(query.from),
    ref: refFromMessage(query.message),
  };
}

/** The target string a person gives the agent for this chat. */
export function targetFor(chat: Pick<Chat, 'id'>): string {
  return `${PLATFORM}:${chat.id}`;
}

/** The reply to /hitl_id and /start: the chat's target, in plain text, in the relay's LOCALE. */
export function targetReply(chat: Pick<Chat, 'id'>, strings?: AdapterStrings): string {
  return stringsOf(strings ? { strings } : null).target(targetFor(chat));
}
