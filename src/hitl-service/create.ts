/** Creating a case: tokens, the stored record and the 202 body of spec section 6. */
import { randomBytes } from 'node:crypto';
import type { CaseLifecycle } from './lifecycle.ts';
import { defaultActionFor, defaultInlineActions } from './review-types.ts';
import { agentTokenOf, hashToken, newCaseId, newToken } from './tokens.ts';
import type {
  CaseBinding,
  DefaultAction,
  ReviewCase,
  ReviewCreated,
  VerificationMode,
} from './types.ts';

/** Everything a new case is made from (already validated; the profile's own defaults filled in). */
export interface CaseSpec {
  type: string;
  inline: boolean;
  prompt: string;
  /** The 202 `message`. */
  message: string;
  expiresInSeconds: number;
  reminder_at?: string | string[];
  previous_case_id?: string;
  callback_url: string | null;
  context: Record<string, unknown>;
  inline_actions?: string[];
  verification?: VerificationMode;
  /** `default_action` (default: the type's safe choice). */
  default_action?: DefaultAction;
  /**
   * The relay's own token (the relay's asks): it decides and reads the case; the 202's submit token
   * is then derived from it (agentTokenOf) and only reads, under a `binding`.
   */
  relayToken?: string;
  /** The approval policy the relay counts votes under: only `relayToken` may decide the case. */
  binding?: CaseBinding;
}

/** The default lifetime of a case (spec 6: `timeout` defaults to 24h). */
export const DEFAULT_EXPIRES_IN_SECONDS = 86_400;

/** Creates and stores a case; returns its 202 body, the only place its raw tokens ever appear. */
export async function createCase(
  lifecycle: CaseLifecycle,
  spec: CaseSpec,
  base: string,
  nowMs: number,
  specVersion: '0.8' | '0.9' = '0.8',
): Promise<ReviewCreated> {
  const caseId = newCaseId();
  const reviewToken = newToken();
  const submitToken = !spec.inline
    ? null
    : spec.relayToken
      ? agentTokenOf(spec.relayToken)
      : newToken();
  const created = new Date(nowMs);
  const expires = new Date(nowMs + spec.expiresInSeconds * 1000);
  const kase: ReviewCase = {
    case_id: caseId,
    type: spec.type,
    status: 'pending',
    prompt: spec.prompt,
    message: spec.message,
    timeout: formatTimeout(spec.expiresInSeconds),
    default_action: spec.default_action ?? defaultActionFor(spec.type),
    created_at: created.toISOString(),
    expires_at: expires.toISOString(),
    context: { ...spec.context },
    callback_url: spec.callback_url,
    inline: spec.inline,
    reminders_done: 0,
  };
  const inlineActions = spec.inline_actions ?? defaultInlineActions(spec.type);
  if (spec.inline && inlineActions) kase.inline_actions = inlineActions;
  if (spec.reminder_at !== undefined) kase.reminder_at = spec.reminder_at;
  if (spec.previous_case_id) kase.previous_case_id = spec.previous_case_id;
  if (spec.relayToken) kase.relay_sha256 = hashToken(spec.relayToken).toString('hex');
  if (spec.binding && spec.relayToken) kase.binding = { ...spec.binding };
  if (spec.verification) kase.verification_policy = verificationPolicy(spec.verification, expires);
  await lifecycle.insert(kase, hashToken(reviewToken), submitToken ? hashToken(submitToken) : null);
  if (spec.previous_case_id) await lifecycle.linkNext(spec.previous_case_id, caseId);
  return createdBody(kase, base, reviewToken, submitToken, specVersion);
}

function createdBody(
  kase: ReviewCase,
  base: string,
  reviewToken: string,
  submitToken: string | null,
  specVersion: '0.8' | '0.9',
): ReviewCreated {
  const id = encodeURIComponent(kase.case_id);
  const hitl: Record<string, unknown> = {
    spec_version: specVersion,
    case_id: kase.case_id,
    review_url: `${base}/review/${id}?token=${reviewToken}`,
    poll_url: `${base}/api/reviews/${id}/status`,
    events_url: `${base}/api/reviews/${id}/events`,
    callback_url: kase.callback_url,
    type: kase.type,
    prompt: kase.prompt,
    timeout: kase.timeout,
    default_action: kase.default_action,
    created_at: kase.created_at,
    expires_at: kase.expires_at,
    context: kase.context,
  };
  if (submitToken) {
    hitl.submit_url = `${base}/api/reviews/${id}/respond`;
    hitl.submit_token = submitToken;
    if (kase.inline_actions) hitl.inline_actions = kase.inline_actions;
  }
  if (kase.verification_policy) hitl.verification_policy = kase.verification_policy;
  if (kase.reminder_at !== undefined) hitl.reminder_at = kase.reminder_at;
  if (kase.previous_case_id) hitl.previous_case_id = kase.previous_case_id;
  return { status: 'human_input_required', message: kase.message, hitl };
}

/** Shorthand durations as spec 6 shows them (`24h`, `7d`, `20m`), ISO 8601 for odd seconds. */
export function formatTimeout(seconds: number): string {
  if (seconds % 86_400 === 0 && seconds > 86_400) return `${seconds / 86_400}d`;
  if (seconds % 3_600 === 0) return `${seconds / 3_600}h`;
  if (seconds % 60 === 0) return `${seconds / 60}m`;
  return `PT${seconds}S`;
}

/** A proof_of_human policy for inline submit (spec 7.6), bound to case, action and a challenge. */
function verificationPolicy(mode: VerificationMode, expires: Date): Record<string, unknown> {
  return {
    mode,
    required_for: ['inline_submit'],
    requirements: {
      any_of: [
        { all_of: [{ proof_type: 'proof_of_human', provider: 'world_id', min_assurance: 'high' }] },
      ],
    },
    binding: {
      case_id: true,
      action: true,
      challenge: randomBytes(16).toString('base64url'),
      freshness_seconds: 300,
      expires_at: expires.toISOString(),
      single_use: true,
    },
    fallback: { on_missing: 'browser_review', on_invalid: 'browser_review' },
  };
}
