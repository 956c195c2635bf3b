/** The relay's API shapes as the client sees them (GET /v1/cases/:id and friends). */
import type {
  CaseResult,
  CaseStatus,
  Progress,
  RespondedBy,
  SubmittedBy,
} from '../protocol/types.ts';

export type { CaseResult, CaseStatus, Progress, RespondedBy, SubmittedBy };

/** One card of a case on one chat. */
export interface CaseMessageView {
  target: string;
  /** gone: the message was deleted or the bot lost the chat; POST /v1/cases/:id/repost posts it again. */
  state: 'posting' | 'posted' | 'failed' | 'gone';
  /** Whether the chat shows the case as it now stands. */
  current: boolean;
  error: string | null;
  posted_at: string | null;
}

/** A case as the relay reports it (never a secret: no submit_token, no review URL token). */
export interface CaseView {
  /** The relay's id ("hc_..."). */
  id: string;
  /** The service's case_id. */
  case_id: string;
  /** The service's origin. */
  service: string;
  target: string;
  type: string;
  prompt: string;
  status: CaseStatus;
  final: boolean;
  result: CaseResult | null;
  /**
   * Who tapped in a chat, as the platform reported it: a claim, not verified identity (spec v0.9
   * §7.5; protocol/claims.ts). `responded_by` is the service's record.
   */
  submitted_by: SubmittedBy | null;
  /** Who answered, as the service reports it (e.g. on its review page). */
  responded_by: RespondedBy | null;
  /** v0.8: how the answer was submitted (mode browser_submit / inline_submit), from the service. */
  submission_context: Record<string, unknown> | null;
  /** v0.8: whether proof of human was satisfied, from the service. */
  verification_result: Record<string, unknown> | null;
  /** False when the relay concluded the status itself (a local expiry it could not confirm). */
  confirmed: boolean;
  unconfirmed_reason: string | null;
  /** How watching the case goes: `ok`, or why the relay cannot see the case's status. */
  watch: {
    state: 'ok' | 'unreachable' | 'refused' | 'gone' | 'invalid' | 'rate_limited' | 'failing';
    last_error: string | null;
    since: string;
  };
  progress: Progress | null;
  /** The approval policy in force and the votes counted so far (docs/four-eyes.md). */
  policy: {
    name: string;
    required: number;
    votes: Array<{ identity: string; action: string; at: string }>;
  } | null;
  /** The escalation ladder: steps taken, steps in all, when the next is due, and its final answer. */
  escalation: {
    step: number;
    of: number;
    next_at: string | null;
    /**
     * The final rung (null: the case waits for the service's expiry): outcome null until due, then
     * `policy`: nobody decided, the relay's wait ended and `action` is the ladder's policy answer,
     * never submitted and never a person's decision. `submitted`, `not_possible` and `failed` are
     * only in cases an older relay (which submitted the answer itself) recorded.
     */
    final: {
      action: string;
      at: string;
      outcome: 'policy' | 'submitted' | 'not_possible' | 'failed' | null;
      /** Always null: nobody decides by a final rung. */
      decided_by: null;
      reason: string | null;
    } | null;
  } | null;
  /**
   * Warnings before expiry (null: none configured): the thresholds in seconds before expires_at,
   * each warning sent, when the last went out and when the next is due.
   */
  expiry_warning: {
    before_seconds: number[];
    sent: Array<{ before_seconds: number; at: string }>;
    last_at: string | null;
    next_at: string | null;
  } | null;
  /** The action the service applies on expiry, when the case expired. */
  default_action: string | null;
  reason: string | null;
  status_at: string | null;
  /**
   * The service's review link: `kept` (at: when it is due to be dropped, once the case ended), or
   * `retired` (at: when the relay dropped it; the Details link answers 410 Gone since).
   */
  review_link: { state: 'kept' | 'retired'; at: string | null };
  expires_at: string;
  previous_id: string | null;
  next_id: string | null;
  next_case_id: string | null;
  labels: Record<string, string>;
  warnings: string[];
  created_at: string;
  updated_at: string;
  messages: CaseMessageView[];
  /**
   * Whether a card reached anyone: delivered (at least one target shows it), pending (not yet:
   * the platform is slow or failing for now), failed (the relay gave up: nobody will see it).
   */
  delivery?: { state: 'delivered' | 'pending' | 'failed'; reason: string | null };
  /** The audit trail (GET /v1/cases/:id and /wait only). */
  history?: Array<{ at: string; kind: string; [detail: string]: unknown }>;
}

/** One field that failed validation, with its JSON path ("response.hitl.poll_url"). */
export interface FieldIssue {
  path: string;
  message: string;
}
