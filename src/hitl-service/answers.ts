/** Answering a case: the inline submit table of spec 7.5 and the review page's own submissions. */

import { bindingRefusal, isRelayToken } from './binding.ts';
import type { ServiceDeps } from './context.ts';
import { errorBody } from './context.ts';
import { createCase } from './create.ts';
import { actionsFor } from './review-types.ts';
import type { StoredReview } from './service-store.ts';
import { tokenMatches } from './tokens.ts';
import type {
  BrowserAnswerInput,
  ReviewCase,
  ReviewCreated,
  SubmissionContext,
  VerificationResult,
} from './types.ts';
import {
  issueList,
  type ReviewFormField,
  SubmitRequest,
  type VerificationEvidence,
} from './validation.ts';

/** An HTTP answer before it is sent: status, JSON body, extra headers. */
export interface HttpAnswer {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
  /** The follow-up case, when an approval was answered with `edit`. */
  next?: ReviewCreated;
}

export type { BrowserAnswerInput } from './types.ts';

/** The review link without its token (the raw token is never stored; 403 bodies carry it as a hint). */
export function reviewLink(base: string, caseId: string): string {
  return `${base}/review/${encodeURIComponent(caseId)}`;
}

/** 409 or 410 for a case that can no longer be answered; undefined while it is open. */
export function closedAnswer(kase: ReviewCase): HttpAnswer | undefined {
  if (kase.status === 'expired') {
    return { status: 410, body: errorBody('case_expired', 'The review case has expired.') };
  }
  if (kase.status === 'completed' || kase.status === 'cancelled') {
    const what = kase.status === 'completed' ? 'already answered' : 'cancelled';
    return {
      status: 409,
      body: errorBody('duplicate_submission', `The review case was ${what}.`),
    };
  }
  return undefined;
}

/** The inline submit (Bearer submit_token) path, status by status as spec 7.5's table has it. */
export async function submitInline(
  deps: ServiceDeps,
  stored: StoredReview,
  bearer: string,
  body: unknown,
  base: string,
): Promise<HttpAnswer> {
  const { kase } = stored;
  // Only the submit hash or the relay's own: a review token presented as Bearer must fail (spec
  // 7.5 implementation note). A bound case takes the relay's alone (its vote counting decides).
  const relay = isRelayToken(kase, bearer);
  if (!relay && !tokenMatches(bearer, stored.submitHash)) {
    return { status: 401, body: errorBody('invalid_token', 'The submit token is not valid.') };
  }
  const bound = relay ? undefined : bindingRefusal(kase);
  if (bound) return bound;
  const parsed = SubmitRequest.safeParse(body);
  if (!parsed.success) {
    const details = issueList(parsed.error);
    return {
      status: 400,
      body: errorBody('invalid_request', 'The body does not match the submit request.', {
        details,
      }),
    };
  }
  const closed = closedAnswer(kase);
  if (closed) return closed;
  const req = parsed.data;
  const hint = { case_id: kase.case_id, review_url: reviewLink(base, kase.case_id) };
  const allowed = kase.inline_actions ?? actionsFor(kase.type);
  if (!actionsFor(kase.type).includes(req.action) || !allowed.includes(req.action)) {
    const message = `"${req.action}" cannot be submitted inline; use the review page.`;
    return { status: 403, body: errorBody('action_not_inline', message, hint) };
  }
  const verification = verify(kase, req.action, req.verification_evidence);
  if (verification.error) {
    const message =
      verification.error === 'verification_required'
        ? 'Inline submit requires proof_of_human. Use the review page.'
        : 'The verification evidence is not valid for this case and action.';
    return { status: 403, body: errorBody(verification.error, message, hint) };
  }
  const context: SubmissionContext = {
    mode: 'inline_submit',
    submitted_via: req.submitted_via,
    submitted_by: req.submitted_by,
  };
  if (verification.result) context.verification_result = verification.result;
  const name = req.submitted_by.display_name ?? req.submitted_by.platform_user_id;
  const checked = deps.profile.checkAnswer(kase, req.action, req.data ?? {}, 'inline_submit');
  if (!checked.ok) return invalidAnswer(checked.details);
  return finish(deps, kase, { action: req.action, data: checked.data }, { name }, context, base);
}

/** The review page path (review token already checked by the caller, or a test-control step). */
export async function submitFromBrowser(
  deps: ServiceDeps,
  kase: ReviewCase,
  answer: BrowserAnswerInput,
  base: string,
): Promise<HttpAnswer> {
  const closed = closedAnswer(kase) ?? bindingRefusal(kase);
  if (closed) return closed;
  if (!actionsFor(kase.type).includes(answer.action)) {
    const message = `"${answer.action}" is not an action of a ${kase.type} review.`;
    return { status: 400, body: errorBody('invalid_action', message) };
  }
  const checked = deps.profile.checkAnswer(kase, answer.action, answer.data, 'browser_submit');
  if (!checked.ok) return invalidAnswer(checked.details);
  const respondedBy = answer.responded_by ?? { name: 'Demo reviewer' };
  const context: SubmissionContext = { mode: 'browser_submit', submitted_via: 'review_page' };
  return finish(
    deps,
    kase,
    { action: answer.action, data: checked.data },
    respondedBy,
    context,
    base,
  );
}

/** 400 for answers that are missing or invalid, naming each problem. */
function invalidAnswer(details: Array<{ path: string; message: string }>): HttpAnswer {
  return {
    status: 400,
    body: errorBody('invalid_request', 'Some answers are missing or invalid.', { details }),
  };
}

async function finish(
  deps: ServiceDeps,
  kase: ReviewCase,
  result: { action: string; data: Record<string, unknown> },
  respondedBy: { name?: string; email?: string },
  context: SubmissionContext,
  base: string,
): Promise<HttpAnswer> {
  // Spec 10.1: an answer may start the next round (an approval's edit), linked both ways.
  const followUp = deps.profile.followUp?.(kase, result);
  const next = followUp
    ? await createCase(deps.lifecycle, followUp, base, deps.now(), deps.profile.specVersion)
    : undefined;
  // Another replica may have answered, expired or cancelled the case since it was read: the
  // compare-and-set lets one of us win, and the loser answers 409 / 410 as spec 7.5 says.
  const outcome = await deps.lifecycle.complete(kase.case_id, {
    result,
    responded_by: respondedBy,
    submission_context: context,
    ...(next ? { next_case_id: next.hitl.case_id as string } : {}),
  });
  if (!outcome.ok) {
    return outcome.kase
      ? (closedAnswer(outcome.kase) ?? {
          status: 409,
          body: errorBody('duplicate_submission', 'Closed.'),
        })
      : { status: 404, body: errorBody('not_found', 'No such review case.') };
  }
  const body: Record<string, unknown> = {
    status: 'completed',
    case_id: kase.case_id,
    completed_at: outcome.kase.completed_at,
  };
  return next ? { status: 200, body, next } : { status: 200, body };
}

/** The fields of an input form, steps flattened. */
export function formFields(kase: ReviewCase): ReviewFormField[] {
  const form = kase.context.form as {
    fields?: ReviewFormField[];
    steps?: Array<{ fields: ReviewFormField[] }>;
  };
  if (!form || typeof form !== 'object') return [];
  return form.fields ?? (form.steps ?? []).flatMap((s) => s.fields);
}

/** Checks inline evidence against the case's policy (spec 7.6); the "provider" here is a binding check only. */
function verify(
  kase: ReviewCase,
  action: string,
  evidence: VerificationEvidence[] | undefined,
): { error?: 'verification_required' | 'verification_failed'; result?: VerificationResult } {
  const policy = kase.verification_policy as
    | { mode: string; required_for: string[]; binding: { challenge?: string } }
    | undefined;
  if (!policy?.required_for.includes('inline_submit')) {
    return evidence?.length ? { result: { satisfied: false, missing_requirements: [] } } : {};
  }
  const enforced = policy.mode === 'required' || policy.mode === 'step_up';
  if (!evidence || evidence.length === 0) {
    return enforced ? { error: 'verification_required' } : {};
  }
  const good = evidence.find(
    (e) =>
      e.proof_type === 'proof_of_human' &&
      e.provider === 'world_id' &&
      e.binding.case_id === kase.case_id &&
      e.binding.action === action &&
      (policy.binding.challenge === undefined || e.binding.challenge === policy.binding.challenge),
  );
  if (!good) {
    if (enforced) return { error: 'verification_failed' };
    return { result: { satisfied: false, missing_requirements: ['proof_of_human:world_id'] } };
  }
  const verified = {
    proof_type: 'proof_of_human',
    provider: 'world_id',
    assurance_level: 'high',
    bound_to_case: true,
    bound_to_action: true,
    fresh: true,
    single_use_enforced: true,
  };
  return { result: { satisfied: true, verified_evidence: [verified], missing_requirements: [] } };
}
