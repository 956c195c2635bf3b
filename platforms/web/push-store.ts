/**
 * What Web Push keeps in the relay's key-value store: the VAPID key pair (generated on first start,
 * one for every replica and restart, sealed under RELAY_SECRET_KEY when it is set, like the relay's
 * other generated keys) and each person's subscriptions (endpoint, the browser's keys, the rooms).
 */
import { createHash } from 'node:crypto';
import webpush from 'web-push';
import type { AdapterSealer, KeyValue } from '../../src/adapter.ts';

const VAPID_KEY = 'web:push:vapid';
const SUBS = 'web:push:sub:';
/** At most this many subscriptions per person (phones, browsers). */
export const PUSH_SUBSCRIPTIONS_PER_PERSON = 10;

/** The VAPID key pair, both halves base64url as web-push takes them. */
export interface VapidKeys {
  publicKey: string;
  privateKey: string;
}

/** One browser's push subscription, as PushSubscription.toJSON() gives it, plus its rooms. */
export interface PushSubscriptionRecord {
  id: string;
  user: string;
  endpoint: string;
  keys: { p256dh: string; auth: string };
  /** The rooms whose cases it is told about (empty: every room). */
  rooms: string[];
  created: string;
}

/** The key the relay's sealer derives for the VAPID keys (AdapterContext.sealer). */
export const VAPID_PURPOSE = 'web-push-vapid v1';

/** A context without the relay's sealer (an adapter started alone, in a tool): kept as it is. */
const PLAIN: AdapterSealer = {
  seal: (s) => `plain:${s}`,
  open: (s) => (s.startsWith('plain:') ? s.slice(6) : s),
};

/** The deployment's VAPID keys: the stored pair, or a new one stored first (the first start). */
export async function loadVapidKeys(
  kv: KeyValue,
  sealer: AdapterSealer | undefined,
): Promise<VapidKeys> {
  const s = sealer ?? PLAIN;
  await kv.setIfAbsent(VAPID_KEY, s.seal(JSON.stringify(webpush.generateVAPIDKeys())));
  const sealed = await kv.get(VAPID_KEY);
  if (!sealed) throw new Error('the Web Push VAPID keys could not be stored');
  try {
    return JSON.parse(s.open(sealed)) as VapidKeys;
  } catch {
    throw new Error(
      'the stored Web Push VAPID keys cannot be opened: RELAY_SECRET_KEY differs from the one they were sealed with',
    );
  }
}

const userKey = (user: string) => createHash('sha256').update(user).digest('base64url');

/** Each person's subscriptions, one store key per subscription under the person's prefix. */
export class PushSubscriptions {
  constructor(private readonly kv: () => KeyValue) {}

  async list(user: string): Promise<PushSubscriptionRecord[]> {
    const rows = await this.kv().list(
      `${SUBS}${userKey(user)}:`,
      PUSH_SUBSCRIPTIONS_PER_PERSON + 1,
    );
    return rows.map((r) => JSON.parse(r.value) as PushSubscriptionRecord);
  }

  /** Every subscription (for a room's new case); at most `limit`. */
  async all(limit = 10_000): Promise<PushSubscriptionRecord[]> {
    const rows = await this.kv().list(SUBS, limit);
    return rows.map((r) => JSON.parse(r.value) as PushSubscriptionRecord);
  }

  /** Adds (or, for the same endpoint, replaces) one; false when the person has too many. */
  async add(
    sub: Omit<PushSubscriptionRecord, 'id' | 'created'>,
  ): Promise<PushSubscriptionRecord | null> {
    const id = createHash('sha256').update(sub.endpoint).digest('base64url').slice(0, 22);
    const mine = await this.list(sub.user);
    if (!mine.some((s) => s.id === id) && mine.length >= PUSH_SUBSCRIPTIONS_PER_PERSON) return null;
    const record = { ...sub, id, created: new Date().toISOString() };
    await this.kv().set(`${SUBS}${userKey(sub.user)}:${id}`, JSON.stringify(record));
    return record;
  }

  async remove(user: string, id: string): Promise<boolean> {
    const key = `${SUBS}${userKey(user)}:${id}`;
    if (!(await this.kv().get(key))) return false;
    await this.kv().delete(key);
    return true;
  }
}
