/** What the relay keeps about a case. */
import type { CaseEscalation } from '../policy/escalation.ts';
import type { CaseExpiryWarnings } from '../policy/expiry-warning.ts';
import type { CasePolicy, Vote } from '../policy/policy.ts';
import type { HitlObject } from '../protocol/hitl.ts';
import type {
  CaseResult,
  CaseStatus,
  Progress,
  RespondedBy,
  SubmittedBy,
} from '../protocol/types.ts';

/** The parts of a case that are secrets; stored sealed (AES-256-GCM when RELAY_SECRET_KEY is set). */
export interface CaseSecrets {
  submit_token: string | null;
  review_url: string;
  /**
   * Credentials for the service's watch endpoints (poll_url, events_url of the case's origin),
   * given at intake as `service_auth.headers`: e.g. the Authorization of the agent's original call.
   */
  service_headers?: Record<string, string>;
}

/** The hitl object as stored: without submit_token and review_url, which live in CaseSecrets. */
export type StoredHitl = Omit<HitlObject, 'submit_token' | 'review_url'>;

/** Everything about a case that is not a column. */
export interface CaseDoc {
  hitl: StoredHitl;
  message?: string;
  warnings: string[];
  result?: CaseResult;
  responded_by?: RespondedBy;
  /** The person whose tap submitted the result, when it was submitted through the relay. */
  submitted_by?: SubmittedBy;
  progress?: Progress;
  next_case_id?: string;
  default_action?: string;
  reason?: string;
  /** When the current status was reached (from the service, else relay time). */
  status_at?: string;
  /** The service answered 401 to a submit: buttons gone, Details stays. */
  inline_unavailable?: boolean;
  /** A note the card shows (e.g. "Submit failed; try again or use Details"). */
  notice?: string;
  /** A note every card shows, final ones too (an MCP server said its URL elicitation completed). */
  note?: string;
  /** Actions the service refused from a chat button (403 action_not_inline): their buttons are gone. */
  inline_refused?: string[];
  /**
   * A submit was sent and no answer came (timeout, reset): the service may have recorded it. Until
   * a poll tells, the buttons are hidden and a tap polls before it submits anything.
   */
  submit_unknown?: { action: string; at: number; timeout_s?: number; submitted_by: SubmittedBy };
  /** The service answered 429: no submit before this time (ms since the epoch). */
  retry_after_until?: number;
  /** How watching the case goes; absent while every look worked. */
  watch?: WatchState;
  /**
   * Set when the relay decided the status itself (a local expiry while the service could not be
   * read): the outcome is then not confirmed by the service, and says why.
   */
  unconfirmed?: string;
  /** v0.8 submission_context of the answer, as the service reports it. */
  submission_context?: Record<string, unknown>;
  /** v0.8 submission_context.verification_result, as the service reports it. */
  verification_result?: Record<string, unknown>;
  notify_url?: string;
  notify_on?: 'final' | 'all';
  labels?: Record<string, string>;
  /** Relay ids of the previous / next round of a multi-round chain. */
  previous_id?: string;
  /** The ids of the earlier rounds, earliest first (rounds.ts); absent on cases stored before it. */
  chain?: string[];
  next_id?: string;
  /** Reminder times already sent (ISO strings). */
  reminders_sent: string[];
  /** Whether the service gave a submit_token (kept as a flag: the token itself is wiped at the end). */
  inline_submit?: boolean;
  /** The approval policy in force (a snapshot from intake), its votes so far, and who asked. */
  policy?: CasePolicy;
  votes?: Vote[];
  requested_by?: string;
  /** The route's escalation ladder, copied at intake, and how far it went. */
  escalation?: CaseEscalation;
  /** Warnings before expiry: the case's thresholds and those already sent (policy/expiry-warning.ts). */
  expiry_warnings?: CaseExpiryWarnings;
  /**
   * When the stored review_url is dropped (ms since the epoch; set when the case ends, removed by
   * the drop): store/retention.ts reviewUrlDropAt says when, the retention pass drops it.
   */
  review_url_drop_at?: number;
  /** When the review_url was dropped from the store (ISO): the Details link answers 410 since. */
  review_url_retired_at?: string;
  /** The origin of the review_url (not a secret), kept for matching rounds after the drop. */
  review_origin?: string;
  /** The relay gave up delivering the card (every target refused it, or none took it in time). */
  delivery_failed?: { at: string; reason: string };
}

/** The state of a case's watch: `ok`, or the class of the failure that keeps it blind since `since`. */
export interface WatchState {
  state: 'ok' | 'unreachable' | 'refused' | 'gone' | 'invalid' | 'rate_limited' | 'failing';
  last_error: string | null;
  /** ISO time the state began. */
  since: string;
}

/** A claim on a case while a tap is being submitted: the exactly-once guard. */
export interface Claim {
  holder: string;
  until: number;
}

/** One case as the store holds it. */
export interface StoredCase {
  /** The relay's own id. */
  id: string;
  /** Short key for button payloads (`hitl:<key>:<action>`). */
  key: string;
  /** Origin (scheme://host:port) of the service's poll_url. */
  origin: string;
  case_id: string;
  target: string;
  status: CaseStatus;
  /** Bumped on every visible change; messages remember the version they show. */
  version: number;
  doc: CaseDoc;
  /** Sealed CaseSecrets. */
  secrets: string;
  /** When the watcher should next look at the case (null once terminal). */
  next_check_at: number | null;
  etag: string | null;
  poll_failures: number;
  claim: Claim | null;
  created_at: number;
  updated_at: number;
}

/**
 * Delivery state of one card on one target. 'gone': the platform says the message (or the bot's
 * access to its chat) no longer exists; the relay stops editing it until a repost.
 */
export type MessageState = 'posting' | 'posted' | 'failed' | 'gone';

/** One card of a case on one target. */
export interface StoredMessage {
  case_id: string;
  target: string;
  platform: string;
  address: string;
  /** The adapter's MessageRef.id, once posted. */
  ref_id: string | null;
  state: MessageState;
  /** The case version the platform shows. */
  rendered_version: number;
  /** Last delivery error, for /v1/cases. */
  error: string | null;
  posted_at: number | null;
}

/** One line of a case's history (audit trail). */
export interface HistoryEntry {
  at: number;
  kind: string;
  detail: Record<string, unknown>;
}
