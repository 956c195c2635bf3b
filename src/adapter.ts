/** The core's contract with one chat platform, which lives wholly in platforms/<name>/ and reaches the core only through these types. */
import type { CardReposter } from './adapter-repost.ts';
import type { AdapterAskStrings, AdapterPendingStrings } from './adapter-words.ts';
import type { Logger } from './log.ts';

export type {
  AdapterAskButtons,
  AdapterAskStrings,
  AdapterBulkReasons,
  AdapterBulkStrings,
  AdapterPendingStrings,
  AdapterStepStrings,
} from './adapter-words.ts';

import type { Card } from './render/card.ts';

/** Where a posted card lives on its platform; enough to edit it later from any replica. */
export interface MessageRef {
  /** "telegram" | "slack" | "discord" | "teams" | "web" */
  platform: string;
  /** The platform-local address the card was posted to (chat id, channel id, conversation key, room). */
  address: string;
  /** The platform's handle of the message (message_id, ts, activity id, ...), opaque to the relay. */
  id: string;
}

/** The person who tapped, as the platform reports them. */
export interface TapUser {
  id: string;
  name?: string;
}

/** A button tap, normalised by the adapter's parse.ts. */
export interface Tap {
  platform: string;
  /** The short case key from the button payload `hitl:<key>:<action>`. */
  key: string;
  action: string;
  user: TapUser;
  /** The message the button was on, when the platform tells us. */
  ref: MessageRef | null;
  /** True when the platform already showed a native confirm dialog for this button. */
  confirmed?: boolean;
  /** The typed answer a native widget collected (asks: selections, text, form values). */
  data?: Record<string, unknown>;
}

/** What became of a tap; adapters turn it into a toast, an ephemeral message or a card refresh. */
export type TapOutcome =
  | 'submitted' // the service accepted the action
  | 'confirm_required' // irreversible action: the same person must tap again to confirm
  | 'forbidden' // this person is not on the target's allowlist
  | 'not_allowed' // the action is not inline-allowed for this case
  | 'closed' // the case is already final (or was just answered elsewhere)
  | 'busy' // another tap on this case is being submitted right now
  | 'service_busy' // too many answers are waiting for this service: nothing was sent
  | 'use_review_url' // the service answered 403: open Details instead
  | 'inline_unavailable' // the service answered 401: only Details remains
  | 'refused' // the service refused the request (400/422): its message is shown; use Details
  | 'rate_limited' // the service asked to wait (429): try again after Retry-After
  | 'rate_limited_now' // the service answered 429 without saying how long: try again in a moment
  | 'unconfirmed' // a 2xx whose body could not be read: the card says what the poll found
  | 'service_failed' // the service answered 5xx: it failed; nothing was decided
  | 'redirected' // the service answered 3xx: never followed (a token stays on its origin)
  | 'failed' // the request provably never reached the service; nothing was decided
  | 'submit_unknown' // sent, no answer: the service may have recorded it; a poll is checking
  | 'submit_not_recorded' // sent, no answer, and a poll shows the case still open: try again
  | 'invalid_answer' // the answer does not fit the ask (missing, wrong type, ...); nothing was recorded
  | 'unknown_case' // the key matches no case
  | 'vote_recorded' // an approval policy counted this vote; more are needed
  | 'already_voted' // this person already voted on this case
  | 'not_an_approver' // the case's approval policy does not list this person
  | 'requester_may_not_approve'; // the person who asked may not approve their own request

/** The relay's answer to a tap. */
export interface TapReply {
  outcome: TapOutcome;
  /** Short text for a toast / ephemeral message (<= 200 characters, no secrets). */
  text: string;
  /** The case's card as it stands after the tap, for platforms that answer a tap with the new message. */
  card: Card | null;
  /**
   * For invalid_answer: each problem with the field it concerns (`path`, for showing beside the
   * input) and that field's label (`label`, for telling a person in words).
   */
  issues?: Array<{ path: string; message: string; label?: string }>;
}

/** Small persistent key-value space for an adapter (conversation references, de-duplication). */
export interface KeyValue {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string, ttlMs?: number): Promise<void>;
  /**
   * Sets the key only when absent (or expired); true when this call set it. Works across replicas.
   * `also`: entries (distinct keys, not `key`) set with the same ttl in the same write when, and
   * only when, this call sets the key: a claim and what it guards in one commit.
   */
  setIfAbsent(
    key: string,
    value: string,
    ttlMs?: number,
    also?: ReadonlyArray<{ key: string; value: string }>,
  ): Promise<boolean>;
  /** Sets the key only while it holds `expected` (renewing a lease that is still ours); true when set. */
  compareAndSet(key: string, expected: string, value: string, ttlMs?: number): Promise<boolean>;
  delete(key: string): Promise<void>;
  /** Deletes the key only while it holds `expected` (releasing a lease that is still ours). */
  compareAndDelete(key: string, expected: string): Promise<boolean>;
  /** Live entries whose key starts with `prefix`, in key order, at most `limit`. */
  list(prefix: string, limit: number): Promise<Array<{ key: string; value: string }>>;
}

/** An inbound HTTP request, already read into memory by the server (size-limited). */
export interface InboundRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  /** Header names in lower case. */
  headers: Record<string, string>;
  rawBody: Buffer;
  /** Values of `:name` segments of the route's path. */
  params: Record<string, string>;
  /** The peer's address; absent when the server cannot tell. */
  remoteAddress?: string;
  /**
   * The client's address, for per-client bounds: the peer's, or behind a proxy named in
   * TRUST_PROXY the client it forwarded for (net/trusted-proxy.ts). Absent when unknown.
   */
  clientAddress?: string;
  /** Aborted when the client goes away (a long-poll stops waiting for it). */
  signal?: AbortSignal;
}

/** The answer to an inbound request. An object body is sent as JSON. */
export interface InboundResponse {
  status: number;
  headers?: Record<string, string>;
  body?: string | Buffer | object;
}

/** A webhook or page an adapter serves through the relay's HTTP server. */
export interface HttpRoute {
  method: 'GET' | 'POST';
  /** Path, e.g. "/telegram/webhook"; `:name` segments match one segment each ("/web/api/rooms/:room/messages"). */
  path: string;
  handle(req: InboundRequest): Promise<InboundResponse>;
}

/**
 * The adapters' own words (toasts, failure replies), from templates/<LOCALE>.json "adapter", so a
 * locale reaches them like it reaches the cards. Built by src/adapter-kit.ts adapterStrings().
 */
export interface AdapterStrings {
  /** A slow tap is still being submitted; the edited card will show the outcome. */
  submitting: string;
  /** A tap on a button that is not (or no longer) hitl-relay's. */
  unknownButton: string;
  /** Handling the tap failed inside the relay: nothing was decided. */
  tapFailed: string;
  /** The case can no longer be answered on this platform. */
  notAnswerable: string;
  /** Only the review page can take this answer. */
  useDetails: string;
  /** A step of a multi-step widget came back invalid. */
  choiceInvalid: string;
  /** An answer given in a private (ephemeral) widget was recorded. */
  answerRecorded: string;
  /** A card action that is not hitl-relay's. */
  notOurs: string;
  /** A refused answer: the relay's text and each problem by its field (bounded by the caller). */
  refusal(
    text: string,
    issues: ReadonlyArray<{ path: string; message: string; label?: string }>,
  ): string;
  /** The reply to the platform's "hitl id" command: the chat's target (formatted by the caller). */
  target(target: string): string;
  /** The greeting when the bot is added to a chat, naming its target and the "hitl id" command. */
  welcome(target: string, command: string): string;
  /** The person's own id on the platform (for allowlists). */
  yourUserId(id: string): string;
  /** A command the bot does not know; `command` is the one that gives the target. */
  unknownCommand(command: string): string;
  /** A tap on a card whose case has ended, where the card cannot change: its final status line. */
  alreadyDecided(status: string): string;
  /** The texts of the ask flows (the ten interaction kinds). */
  asks: AdapterAskStrings;
  /** The texts of `/pending`. */
  pending: AdapterPendingStrings;
}

/**
 * Named change signals across replicas (PostgreSQL LISTEN/NOTIFY where the store has it): an
 * adapter that serves waiting clients (the web chat) wakes them on a change made anywhere.
 */
export interface AdapterSignals {
  /**
   * Tells every replica (this one included) that these topics changed, in one message to the
   * other replicas (a room and the inbox that lists it: one NOTIFY, not two). Best effort, never
   * throws. A topic has no spaces.
   */
  publish(...topics: string[]): void;
  /**
   * Calls `onChange` when `topic` changes on any replica, and also when changes may have been
   * missed (the listening connection was lost and is back). Returns the unsubscribe function.
   */
  subscribe(topic: string, onChange: () => void): () => void;
}

/** A platform's delivery receipt for a message the relay sent (WhatsApp's status webhooks). */
export interface DeliveryStatus {
  /** The platform's word: "sent", "delivered", "read", "failed", ... */
  state: string;
  /** When the platform says it happened (ms since the epoch). */
  at: number;
  /** Which message of the case: the card itself, or a reply to it (the outcome, a notice). */
  message: 'card' | 'reply';
  /** Why a delivery failed, in the platform's words (no secrets). */
  error?: string;
}

/** `/pending` in a chat: which chat, who asks, and which page. */
export interface PendingQuery {
  platform: string;
  /** The chat (the part of the target after "<platform>:"). */
  address: string;
  user: TapUser;
  /** Only cases whose approval policy names this person as an approver. */
  mine?: boolean;
  /** The `next` of the page before (opaque). */
  cursor?: string | undefined;
  /** Cases per page (default 5, at most 10). */
  limit?: number;
}

/** One open case of a `/pending` list, in words a person reads (no secret). */
export interface PendingItem {
  /** The case's short key (as in its buttons' `hitl:<key>:...`). */
  key: string;
  prompt: string;
  /** The asking agent (requested_by) or the service's host. */
  from: string;
  /** How long the case has waited, in words ("25 min"). */
  age: string;
  /** When it expires, in words ("in 1 h 5 min") and as ISO time. */
  expires_in: string;
  expires_at: string;
  /** The approval policy's tally ("1 of 2 approvals"), or null without a policy. */
  tally: string | null;
  /** The card in this chat, when it is posted (platforms link to it). */
  card: MessageRef | null;
  /** The Details link, when the relay has a public URL. */
  link: string | null;
  /** What a bulk decision may do with it (issue 35). */
  bulk: PendingBulk;
}

/** What a bulk decision may do with a case: its reversible inline actions, or why none. */
export interface PendingBulk {
  /** The actions a bulk decision may take on it (no typed answer, can be undone), with labels. */
  actions: Array<{ action: string; label: string }>;
  /** Why it may not be in a bulk decision (four-eyes, a typed answer, ...), or null when it may. */
  reason: string | null;
}

/** A page of `/pending`: the cases this person may decide, and the cursor of the next page. */
export interface PendingPage {
  items: PendingItem[];
  /** null: this is the last page. */
  next: string | null;
}

/** The inbox: one person's open cases across a platform's chats (all, or one `address`); `service`
 * (a HITL service's host) and `type` filter before paging; `keys`: just those cases (at most 50). */
export interface InboxQuery extends Omit<PendingQuery, 'address'> {
  address?: string | undefined;
  service?: string | undefined;
  type?: string | undefined;
  /** Only cases under the approval policy of this name; null: only cases without one. */
  policy?: string | null | undefined;
  keys?: string[] | undefined;
}

/** One case of the inbox: a `/pending` item, with what the inbox filters by. */
export interface InboxItem extends PendingItem {
  /** The HITL service's host. */
  service: string;
  /** The case's type (approval, selection, ...). */
  type: string;
  /** The name of its approval policy, or null without one. */
  policy: string | null;
  /** The chats it has a card in that this person may decide it in (its `card` is in the first). */
  chats: string[];
  /** Why its policy keeps it out of bulk decisions (four-eyes), or null when it may be in one. */
  bulk_refusal: string | null;
}

/** Who of `users` (ids on `platform`) may decide case `key` (Card.key) in chat `address` (issue 35
 * pushes); `ended`: its outcome, who could have decided it, its openness aside. */
export interface DecidersQuery {
  key: string;
  platform: string;
  address: string;
  users: string[];
  ended?: boolean;
}

/** A page of the inbox. */
export interface InboxPage {
  items: InboxItem[];
  next: string | null;
}

/** Seals and opens one text (an adapter's own key) the way the relay seals its secrets. */
export interface AdapterSealer {
  seal(text: string): string;
  /** Throws when it was sealed under another RELAY_SECRET_KEY. */
  open(sealed: string): string;
}

/** What the relay hands an adapter when it starts. */
export interface AdapterContext {
  onTap(tap: Tap): Promise<TapReply>;
  /**
   * Whether this person may answer this case now, asked before collecting an answer's input: null
   * when they may (known case, open, allowlist/policy allow them), else the reply the tap would
   * get (forbidden, closed, not_an_approver, ...). Nothing is stored and nothing sent.
   */
  mayAnswer?(tap: Tap): Promise<TapReply | null>;
  /**
   * `/pending`: the open cases of this chat that this person may decide, newest first, a page at
   * a time. Cases they may not decide (allowlist, approval policy) are left out entirely.
   */
  pending?(query: PendingQuery): Promise<PendingPage>;
  /** The inbox: this person's open cases across the platform's chats, by the same rules. */
  inbox?(query: InboxQuery): Promise<InboxPage>;
  /** Of `query.users`, who may decide the case there (rules of `/pending`); absent: nobody. */
  deciders?(query: DecidersQuery): Promise<string[]>;
  /** `/pending`'s "Re-post" button: the card posted again in its chat (adapter-repost.ts). */
  repost?: CardReposter;
  kv: KeyValue;
  /**
   * Seals what an adapter keeps of its own secrets (keys it generates) as the relay seals its own:
   * under RELAY_SECRET_KEY, a key derived per `purpose`; plain without the key. Absent: keep nothing
   * secret in `kv`.
   */
  sealer?(purpose: string): AdapterSealer;
  log: Logger;
  /** The adapter's texts in the relay's LOCALE (absent: English, adapterStrings()). */
  strings?: AdapterStrings;
  /** Change signals shared by every replica (absent: this process only). */
  signals?: AdapterSignals;
  /** Reports that the platform stopped working after start (shown on /readyz; null reason = up again). */
  reportDown?(reason: string | null): void;
  /**
   * Records a delivery receipt on the case whose card is at `card` (a `message_status` history
   * row); false when no case has that card. For platforms that report delivery after the send.
   */
  recordDelivery?(card: MessageRef, status: DeliveryStatus): Promise<boolean>;
}

/** Options for posting a card. */
export interface PostOptions {
  /** Post as a reply / in the thread of this message (multi-round chains, reminders). */
  replyTo?: MessageRef;
}

/** One chat platform. */
export interface PlatformAdapter {
  readonly platform: string;
  /** Inbound HTTP endpoints (webhooks, interactions, pages) the relay's server mounts. */
  readonly routes: HttpRoute[];
  /** The variable a person fixes when the platform refuses the credentials (named in the log and /readyz). */
  readonly credentialEnv?: string;
  /**
   * Connects and checks the credentials. Throws a PlatformError: a retryable one (network, 5xx, 429)
   * is retried with backoff by the relay; any other (401/403) is reported as needing a fix.
   */
  start(ctx: AdapterContext): Promise<void>;
  stop(): Promise<void>;
  /**
   * Why a card can never be posted to `address` (a malformed id, a Teams conversation the bot was
   * never added to), or null when it may work. Checked at intake, before anything is stored.
   */
  checkAddress?(address: string): Promise<string | null>;
  /** Posts a card to `address` (the part of the target after "<platform>:"). */
  post(address: string, card: Card, options?: PostOptions): Promise<MessageRef>;
  /** Replaces the card at `ref` (buttons included); "not modified" is success. */
  update(ref: MessageRef, card: Card): Promise<void>;
  /** Sends a short plain-text notice in the thread of `ref` (reminders), mentioning nobody. */
  notify(ref: MessageRef, text: string, link: { label: string; url: string } | null): Promise<void>;
}
