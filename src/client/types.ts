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
  state: 'posting' | 'posted' | 'failed';
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
  /** The person whose tap in a chat submitted the result. */
  submitted_by: SubmittedBy | null;
  /** Who answered, as the service reports it (e.g. on its review page). */
  responded_by: RespondedBy | null;
  progress: Progress | null;
  /** The action the service applies on expiry, when the case expired. */
  default_action: string | null;
  reason: string | null;
  status_at: string | null;
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
