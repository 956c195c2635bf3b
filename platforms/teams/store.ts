/**
 * What the Teams adapter keeps in the shared key-value store, so that any replica can post to any
 * conversation, update any card and answer a retried invoke: conversation references, the latest
 * Card of each posted message, and invoke answers.
 */
import type { KeyValue } from '../../src/adapter.ts';
import { firstDelivery } from '../../src/adapter-kit.ts';
import type { Card } from '../../src/render/card.ts';
import { readReference, type TeamsReference } from './activity.ts';

/** A card's latest state is kept this long after its last change (for invoke answers only). */
const CARD_TTL_MS = 30 * 24 * 3600_000;
/** Teams retries an invoke within seconds; an hour covers every retry with room to spare. */
const INVOKE_TTL_MS = 3600_000;
/** The marker of an invoke whose tap is still being handled. */
export const INVOKE_PENDING = 'pending';

/** Typed access to the adapter's keys in `kv`. */
export class TeamsStore {
  constructor(private readonly kv: KeyValue) {}

  async saveReference(key: string, reference: TeamsReference): Promise<void> {
    await this.kv.set(`teams:conv:${key}`, JSON.stringify(reference));
  }

  /** Stores the reference only when `key` has none yet; false when one was kept. */
  addReference(key: string, reference: TeamsReference): Promise<boolean> {
    return this.kv.setIfAbsent(`teams:conv:${key}`, JSON.stringify(reference));
  }

  /** The stored reference (today's shape, or a botbuilder one stored by an older version). */
  async loadReference(key: string): Promise<TeamsReference | null> {
    const raw = await this.kv.get(`teams:conv:${key}`);
    if (!raw) return null;
    try {
      return readReference(JSON.parse(raw));
    } catch {
      return null;
    }
  }

  async saveCard(key: string, activityId: string, card: Card): Promise<void> {
    await this.kv.set(`teams:card:${key}:${activityId}`, JSON.stringify(card), CARD_TTL_MS);
  }

  async loadCard(key: string, activityId: string): Promise<Card | null> {
    const raw = await this.kv.get(`teams:card:${key}:${activityId}`);
    return raw ? (JSON.parse(raw) as Card) : null;
  }

  /** True for the first delivery of `activityId`; false for a retry (on any replica). */
  claimActivity(activityId: string): Promise<boolean> {
    return firstDelivery(this.kv, `teams:invoke:${activityId}`, INVOKE_TTL_MS, INVOKE_PENDING);
  }

  async saveAnswer(activityId: string, answer: object): Promise<void> {
    await this.kv.set(`teams:invoke:${activityId}`, JSON.stringify(answer), INVOKE_TTL_MS);
  }

  /** The stored answer of an earlier delivery, or null while it is still pending. */
  async loadAnswer(activityId: string): Promise<Record<string, unknown> | null> {
    const raw = await this.kv.get(`teams:invoke:${activityId}`);
    return raw && raw !== INVOKE_PENDING ? (JSON.parse(raw) as Record<string, unknown>) : null;
  }
}
