/**
 * Re-posting a case's card from `/pending` (issue 35): the contract a platform's "Re-post" button
 * speaks and what the button stands for (its state is kept by adapter-kit.ts repostPayload).
 * Platforms import this module (it is on .dependency-cruiser.cjs CORE_SURFACE); the checks and
 * the post are src/cases/card-repost.ts.
 */

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
