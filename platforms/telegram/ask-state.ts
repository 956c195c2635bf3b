/**
 * What the Telegram ask flow keeps in the relay's key-value store (shared by replicas, each with an
 * expiry): each open card's ask content, a person's picks so far and their flow through the fields.
 */
import type { AdapterContext, MessageRef } from '../../src/adapter.ts';
import type { Card } from '../../src/render/card.ts';
import { type FieldValue, telegramDrawsAsk } from './ask.ts';

/** Kept a little longer than the longest ask (30 days). */
const CONTENT_TTL_MS = 31 * 86_400_000;
/** A person's selections or ranking so far. */
export const PICK_TTL_MS = 86_400_000;
/** A flow left half-way is forgotten after an hour (the card's button starts it again). */
export const FLOW_TTL_MS = 3_600_000;

/** The key of a card's ask content. */
export const contentKey = (key: string) => `telegram:ask:${key}`;
/** The key of a person's picks on one ask. */
export const pickKey = (key: string, user: string) => `telegram:ask:${key}:pick:${user}`;
/** The key of a person's flow in one chat. */
export const flowKey = (chat: number, user: string) => `telegram:ask:flow:${chat}:${user}`;

/** A person's flow in one chat: which ask, the card, the step, the values so far, the prompt. */
export interface Flow {
  key: string;
  ref: MessageRef | null;
  step: number;
  values: Record<string, FieldValue>;
  prompt: number;
}

/** Stores the card's ask while it is open (and forgets it once the card is final). */
export async function rememberAsk(ctx: AdapterContext | null, card: Card): Promise<void> {
  if (!ctx) return;
  if (card.ask && !card.final && telegramDrawsAsk(card.ask.content))
    await ctx.kv.set(contentKey(card.key), JSON.stringify(card.ask.content), CONTENT_TTL_MS);
  else if (card.final) await ctx.kv.delete(contentKey(card.key));
}

/** A JSON value the flow stored, or undefined (absent, expired or unreadable). */
export async function loadJson<T>(ctx: AdapterContext, key: string): Promise<T | undefined> {
  const raw = await ctx.kv.get(key);
  if (!raw) return undefined;
  try {
    return JSON.parse(raw) as T;
  } catch {
    return undefined;
  }
}
