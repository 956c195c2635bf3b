/** Protocol words, as the HITL Protocol spec names them. */

/** The six statuses of a review case (spec section 8). */
export const CASE_STATUSES = [
  'pending',
  'opened',
  'in_progress',
  'completed',
  'expired',
  'cancelled',
] as const;
/** A review case's status. */
export type CaseStatus = (typeof CASE_STATUSES)[number];

/** Statuses a case never leaves. */
export const TERMINAL_STATUSES: ReadonlySet<CaseStatus> = new Set([
  'completed',
  'expired',
  'cancelled',
]);

/** True for completed, expired and cancelled. */
export function isTerminal(status: CaseStatus): boolean {
  return TERMINAL_STATUSES.has(status);
}

/** The five standard review types; `x-` types are custom. */
export const REVIEW_TYPES = [
  'approval',
  'selection',
  'input',
  'confirmation',
  'escalation',
] as const;
/** A standard review type. */
export type StandardReviewType = (typeof REVIEW_TYPES)[number];

/** Spec versions this relay understands. */
export const KNOWN_SPEC_VERSIONS = ['0.5', '0.6', '0.7', '0.8', '0.9'] as const;

/** Progress of a multi-step input (spec 10.3.4). */
export interface Progress {
  current_step?: number;
  total_steps?: number;
  completed_fields?: number;
  total_fields?: number;
}

/** The human's response (poll `result`). */
export interface CaseResult {
  action: string;
  data?: Record<string, unknown>;
}

/** Who answered, as the service reports it. */
export interface RespondedBy {
  name?: string;
  email?: string;
}

/** Identity of the person who tapped, sent with an inline submit. */
export interface SubmittedBy {
  platform: string;
  platform_user_id: string;
  display_name?: string;
}
