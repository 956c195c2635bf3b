/** What the relay keeps about a case. */
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
  notify_url?: string;
  notify_on?: 'final' | 'all';
  labels?: Record<string, string>;
  /** Relay ids of the previous / next round of a multi-round chain. */
  previous_id?: string;
  next_id?: string;
  /** Reminder times already sent (ISO strings). */
  reminders_sent: string[];
  /** The relay gave up delivering the card (every target refused it, or none took it in time). */
  delivery_failed?: { at: string; reason: string };
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

/** Delivery state of one card on one target. */
export type MessageState = 'posting' | 'posted' | 'failed';

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
