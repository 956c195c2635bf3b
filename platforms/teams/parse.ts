/** Teams activities -> Tap (pure): Action.Execute invokes and Action.Submit messages. */
import { createHash } from 'node:crypto';
import type { MessageRef, Tap } from '../../src/adapter.ts';
import { baseConversationId, type TeamsActivity } from './activity.ts';
import { askTapData } from './ask.ts';
import { TEAMS_PAYLOAD_FIELD } from './render.ts';

/** The invoke name Teams uses for Action.Execute (Universal Actions). */
export const TEAMS_CARD_ACTION_INVOKE = 'adaptiveCard/action';
/** Length of a conversation key: 16 base64url characters = 96 bits of SHA-256. */
export const TEAMS_CONVERSATION_KEY_CHARS = 16;

const PAYLOAD = /^hitl:([^:\s]{1,64}):([^:\s]{1,64})$/;

export { baseConversationId };

/** The short key that names a conversation in targets (`teams:<key>`) and MessageRefs. */
export function conversationKey(conversationId: string): string {
  return createHash('sha256')
    .update(baseConversationId(conversationId))
    .digest('base64url')
    .slice(0, TEAMS_CONVERSATION_KEY_CHARS);
}

/** Builds the MessageRef of a card: address = conversation key, id = `<key>:<activity id>`. */
export function teamsMessageRef(key: string, activityId: string): MessageRef {
  return { platform: 'teams', address: key, id: `${key}:${activityId}` };
}

/** The activity id inside a Teams MessageRef (null when the ref is not one of ours). */
export function activityIdOf(ref: MessageRef): string | null {
  const prefix = `${ref.address}:`;
  if (ref.platform !== 'teams' || !ref.id.startsWith(prefix)) return null;
  const id = ref.id.slice(prefix.length);
  return id ? id : null;
}

/** Splits `hitl:<key>:<action>`; null for anything else. */
export function parsePayload(payload: unknown): { key: string; action: string } | null {
  if (typeof payload !== 'string') return null;
  const match = PAYLOAD.exec(payload);
  return match?.[1] && match[2] ? { key: match[1], action: match[2] } : null;
}

type ActivityLike = Partial<TeamsActivity>;

function record(value: unknown): Record<string, unknown> | null {
  return value && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : null;
}

/** `inputs`: the Action.Execute data / Action.Submit value, where an ask's input values arrive. */
function tapFrom(activity: ActivityLike, payload: unknown, inputs?: unknown): Tap | null {
  const parsed = parsePayload(payload);
  const from = activity.from;
  if (!parsed || !from?.id) return null;
  const conversationId = activity.conversation?.id;
  const key = conversationId ? conversationKey(conversationId) : null;
  const replyToId = activity.replyToId;
  const data = askTapData(inputs);
  return {
    ...(data ? { data } : {}),
    platform: 'teams',
    key: parsed.key,
    action: parsed.action,
    user: { id: from.id, ...(from.name ? { name: from.name } : {}) },
    ref: key && replyToId ? teamsMessageRef(key, replyToId) : null,
  };
}

/** An `adaptiveCard/action` invoke from an Action.Execute button -> Tap, or null. */
export function parseExecuteInvoke(activity: ActivityLike): Tap | null {
  if (activity.type !== 'invoke' || activity.name !== TEAMS_CARD_ACTION_INVOKE) return null;
  const action = record(record(activity.value)?.action);
  if (!action) return null;
  const data = record(action.data);
  return tapFrom(activity, data?.[TEAMS_PAYLOAD_FIELD] ?? action.verb, data);
}

/** A message carrying Action.Submit data (older clients: the Action.Execute fallback) -> Tap, or null. */
export function parseSubmitMessage(activity: ActivityLike): Tap | null {
  if (activity.type !== 'message') return null;
  const value = record(activity.value);
  if (!value || !(TEAMS_PAYLOAD_FIELD in value)) return null;
  return tapFrom(activity, value[TEAMS_PAYLOAD_FIELD], value);
}
