/**
 * Re-posting a case's card from `/pending` (issue 35): the contract a platform's "Re-post" button
 * speaks, and the button's state in the shared key-value store. Platforms import this module (it
 * is on .dependency-cruiser.cjs CORE_SURFACE); the checks and the post are src/cases/card-repost.ts.
 */
import { randomBytes } from 'node:crypto';

/** Of adapter.ts KeyValue, what the button state needs (adapter.ts imports this module's types). */
interface ButtonStore {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string, ttlMs?: number): Promise<void>;
}

/** A press of "Re-post": which case, in which chat it targets, by whom. */
export interface RepostQuery {
  platform: string;
  /** The chat of the case's target (the part after "<platform>:"), not where the list was shown. */
  address: string;
  /** The case's short key (PendingItem.key). */
  key: string;
  /** The person who pressed (adapter.ts TapUser). */
  user: { id: string; name?: string };
}

/**
 * What became of a press: `reposted` (the card is posted again, `card` is the new one), `forbidden`
 * (this person may not decide the case: nothing told of it), `closed` (decided, expired, revised:
 * nothing posted), `rate_limited` (re-posted a moment ago), `busy` (its first post is under way),
 * `unknown_case`, `failed` (the platform refused the post; the old card stays the case's card).
 */
export type RepostOutcome =
  | 'reposted'
  | 'forbidden'
  | 'closed'
  | 'rate_limited'
  | 'busy'
  | 'unknown_case'
  | 'failed';

/** The relay's answer to a press, `text` in the relay's LOCALE (no secret). */
export interface RepostReply {
  outcome: RepostOutcome;
  text: string;
  /** The new card (adapter.ts MessageRef), when it was posted. */
  card: { platform: string; address: string; id: string } | null;
}

/** What an adapter is handed to re-post cards: the button's label and the press. */
export interface CardReposter {
  /** The label of the per-item button ("Re-post"). */
  label: string;
  /** The label of a menu that holds them (WhatsApp's list message: "Options"). */
  menu: string;
  press(q: RepostQuery): Promise<RepostReply>;
}

/** What a "Re-post" button stands for: the case, its chat, and whose list it is on. */
export interface RepostButtonState {
  address: string;
  key: string;
  user: string;
}

const REPOST_TTL_MS = 3600_000;

/**
 * Keeps the state of a "Re-post" button in the shared key-value store (any replica answers it) and
 * returns its payload `hitlr:<token>`: within Telegram's 64 bytes whatever the chat id.
 */
export async function repostPayload(kv: ButtonStore, state: RepostButtonState): Promise<string> {
  const token = randomBytes(12).toString('base64url');
  await kv.set(`repost-button:${token}`, JSON.stringify(state), REPOST_TTL_MS);
  return `hitlr:${token}`;
}

/**
 * The press a "Re-post" payload stands for, or null when it is not one or has lapsed. Whoever
 * presses it is checked again by the relay (press), so someone else's press gets nothing either.
 */
export async function repostOf(
  kv: ButtonStore,
  data: string | undefined,
): Promise<RepostButtonState | null> {
  const m = /^hitlr:([A-Za-z0-9_-]{16})$/.exec(data ?? '');
  const raw = m ? await kv.get(`repost-button:${m[1]}`) : undefined;
  return raw ? (JSON.parse(raw) as RepostButtonState) : null;
}
