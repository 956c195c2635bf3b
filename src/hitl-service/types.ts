/** Shared types of the HITL service: the stored case, its events, faults and recorded submissions. */
import type { Progress, SubmittedBy } from '../protocol/types.ts';

/**
 * An approval policy a case is bound to (the relay's asks under a route's four-eyes): only the
 * relay's token, sent once its vote counting says the policy is met, may decide the case.
 */
export interface CaseBinding {
  /** The policy's name, for the refusals and the review page. */
  policy: string;
  /** Distinct approvals the policy needs. */
  required: number;
}

/** The six statuses of spec section 8. */
export type ReviewStatus =
  | 'pending'
  | 'opened'
  | 'in_progress'
  | 'completed'
  | 'expired'
  | 'cancelled';

/** The values spec section 6 allows for `default_action`. */
export type DefaultAction = 'skip' | 'approve' | 'reject' | 'abort';

/** The verification modes of spec section 7.6. */
export type VerificationMode = 'required' | 'step_up' | 'optional';

/** The normalized verification outcome (verification-result.schema.json). */
export interface VerificationResult {
  satisfied: boolean;
  verified_evidence?: Array<Record<string, unknown>>;
  missing_requirements?: string[];
}

/** How a completed case was submitted (submission-context.schema.json). */
export interface SubmissionContext {
  mode: 'browser_submit' | 'inline_submit';
  submitted_via?: string;
  submitted_by?: SubmittedBy;
  verification_result?: VerificationResult;
}

/** The human's answer. */
export interface ReviewResult {
  action: string;
  data: Record<string, unknown>;
}

/** A review case as the service stores it (no tokens: those live only as hashes beside it). */
export interface ReviewCase {
  case_id: string;
  type: string;
  status: ReviewStatus;
  prompt: string;
  message: string;
  timeout: string;
  default_action: DefaultAction;
  created_at: string;
  expires_at: string;
  context: Record<string, unknown>;
  callback_url: string | null;
  /** Whether the 202 carried submit_url and submit_token. */
  inline: boolean;
  /** As published in the 202; absent means every action of the type (when inline). */
  inline_actions?: string[];
  /** As the agent gave it (echoed verbatim in the 202). */
  reminder_at?: string | string[];
  /** How many of the sorted reminder times have been handled (fired or skipped). */
  reminders_done: number;
  previous_case_id?: string;
  next_case_id?: string;
  verification_policy?: Record<string, unknown>;
  /** SHA-256 (hex) of the relay's own token: it submits for the relay's vote counting and reads. */
  relay_sha256?: string;
  /** The approval policy the relay counts votes under: no other path may decide the case. */
  binding?: CaseBinding;
  opened_at?: string;
  progress?: Progress;
  reminder_sent_at?: string;
  completed_at?: string;
  result?: ReviewResult;
  responded_by?: { name?: string; email?: string };
  submission_context?: SubmissionContext;
  expired_at?: string;
  cancelled_at?: string;
  reason?: string;
}

/** The SSE / callback event names of spec sections 8.5 and 9. */
export type ReviewEventName =
  | 'review.opened'
  | 'review.in_progress'
  | 'review.reminder'
  | 'review.completed'
  | 'review.expired'
  | 'review.cancelled';

/** One event of a case; `seq` is the per-case SSE id. */
export interface StoredEvent {
  case_id: string;
  seq: number;
  event: ReviewEventName;
  data: Record<string, unknown>;
}

/** One request to the respond endpoint, as recorded for tests (never the token itself). */
export interface Submission {
  case_id: string;
  method: string;
  /** Which credential the request carried. */
  auth: 'bearer' | 'review_token' | 'none';
  /** True only when a Bearer token was sent and matched the case's submit token. */
  bearer_valid: boolean;
  /** The parsed JSON or form body; null when absent or unparseable. Sensitive form values are masked. */
  body: unknown;
  /** The HTTP status the service answered. */
  status: number;
  /** The `error` code of the answer, when it was an error. */
  error?: string;
  /** The injected fault that answered this request, if any. */
  fault?: FaultKind;
  at: string;
}

/** The routes a fault can be injected into. */
export type FaultRoute = 'status' | 'respond' | 'events' | 'create';

/** What an injected fault does to a response. */
export type FaultKind =
  | '500'
  | '503'
  | 'slow'
  | 'malformed_json'
  | 'wrong_content_type'
  | 'truncated'
  | 'reset'
  | '429'
  | '429_no_retry_after';

/** A fault for the next `count` requests to `route`. */
export interface Fault {
  route: FaultRoute;
  kind: FaultKind;
  count: number;
  /** For `slow`: how long to wait before answering normally (default 2000 ms). */
  delay_ms?: number;
}

/** A reviewer step taken in-process (test controls, a refused ask's cancel), as on the review page. */
export interface ReviewerStep {
  step: 'open' | 'progress' | 'respond' | 'cancel' | 'expire' | 'remind';
  action?: string;
  data?: Record<string, unknown>;
  progress?: Progress;
  reason?: string;
  responded_by?: { name?: string; email?: string };
  /** For `expire`: the default_action the expiry applies (a timeout policy), instead of the case's. */
  default_action?: DefaultAction;
}

/** The 202 body the service answers on case creation. */
export interface ReviewCreated {
  status: 'human_input_required';
  message: string;
  hitl: Record<string, unknown>;
}

/** What a simulated step leaves behind. */
export interface ReviewerStepResult {
  case_id: string;
  status: ReviewStatus;
  /** The follow-up case's 202 body, when an approval was answered with `edit`. */
  next?: ReviewCreated;
}

/** Statuses a case never leaves. */
export const TERMINAL_STATUSES: ReadonlySet<ReviewStatus> = new Set([
  'completed',
  'expired',
  'cancelled',
]);

/** What a person sent from the review page (or the test controls acting as them). */
export interface BrowserAnswerInput {
  action: string;
  data: Record<string, unknown>;
  responded_by?: { name?: string; email?: string };
}

/** A form body as fields (repeated keys become arrays). */
export type FormParams = Record<string, string | string[]>;
