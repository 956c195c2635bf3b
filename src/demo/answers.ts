/** Answering a case: the inline submit table of spec 7.5 and the review page's own submissions. */
import type { DemoDeps } from './context.ts';
import { errorBody } from './context.ts';
import { createCase, followUpSpec } from './create.ts';
import { actionsFor } from './review-types.ts';
import type { StoredCase } from './store.ts';
import { tokenMatches } from './tokens.ts';
import type {
  BrowserAnswerInput,
  DemoCase,
  DemoCreated,
  SubmissionContext,
  VerificationResult,
} from './types.ts';
import {
  type FormField,
  issueList,
  SubmitRequest,
  type VerificationEvidence,
} from './validation.ts';

/** An HTTP answer before it is sent: status, JSON body, extra headers. */
export interface Answer {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
  /** The follow-up case, when an approval was answered with `edit`. */
  next?: DemoCreated;
}

export type { BrowserAnswerInput } from './types.ts';

/** The review link without its token (the raw token is never stored; 403 bodies carry it as a hint). */
export function reviewLink(base: string, caseId: string): string {
  return `${base}/review/${encodeURIComponent(caseId)}`;
}

/** 409 or 410 for a case that can no longer be answered; undefined while it is open. */
export function closedAnswer(kase: DemoCase): Answer | undefined {
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
  deps: DemoDeps,
  stored: StoredCase,
  bearer: string,
  body: unknown,
  base: string,
): Promise<Answer> {
  const { kase } = stored;
  // Only the submit hash: a review token presented as Bearer must fail (spec 7.5 implementation note).
  if (!tokenMatches(bearer, stored.submitHash)) {
    return { status: 401, body: errorBody('invalid_token', 'The submit token is not valid.') };
  }
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
  let data = req.data ?? {};
  if (deps.profile) {
    const checked = deps.profile.checkAnswer(kase, req.action, data);
    if (!checked.ok) return invalidAnswer(checked.details);
    data = checked.data;
  }
  return finish(deps, kase, { action: req.action, data }, { name }, context, base);
}

/** The review page path (review token already checked by the caller, or a test-control step). */
export async function submitFromBrowser(
  deps: DemoDeps,
  kase: DemoCase,
  answer: BrowserAnswerInput,
  base: string,
): Promise<Answer> {
  const closed = closedAnswer(kase);
  if (closed) return closed;
  if (!actionsFor(kase.type).includes(answer.action)) {
    const message = `"${answer.action}" is not an action of a ${kase.type} review.`;
    return { status: 400, body: errorBody('invalid_action', message) };
  }
  let data = answer.data;
  if (deps.profile) {
    const checked = deps.profile.checkAnswer(kase, answer.action, data);
    if (!checked.ok) return invalidAnswer(checked.details);
    data = checked.data;
  }
  const details = deps.profile ? [] : checkData(kase, answer.action, answer.data);
  if (details.length > 0) return invalidAnswer(details);
  const respondedBy = answer.responded_by ?? { name: 'Demo reviewer' };
  const context: SubmissionContext = { mode: 'browser_submit', submitted_via: 'review_page' };
  return finish(deps, kase, { action: answer.action, data }, respondedBy, context, base);
}

/** 400 for answers that are missing or invalid, naming each problem. */
function invalidAnswer(details: Array<{ path: string; message: string }>): Answer {
  return {
    status: 400,
    body: errorBody('invalid_request', 'Some answers are missing or invalid.', { details }),
  };
}

async function finish(
  deps: DemoDeps,
  kase: DemoCase,
  result: { action: string; data: Record<string, unknown> },
  respondedBy: { name?: string; email?: string },
  context: SubmissionContext,
  base: string,
): Promise<Answer> {
  // Spec 10.1: an edit starts the next round, linked both ways.
  const next =
    kase.type === 'approval' && result.action === 'edit'
      ? await createCase(deps.engine, followUpSpec(kase, result.data), base, deps.now())
      : undefined;
  // Another replica may have answered, expired or cancelled the case since it was read: the
  // compare-and-set lets one of us win, and the loser answers 409 / 410 as spec 7.5 says.
  const outcome = await deps.engine.complete(kase.case_id, {
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
export function formFields(kase: DemoCase): FormField[] {
  const form = kase.context.form as {
    fields?: FormField[];
    steps?: Array<{ fields: FormField[] }>;
  };
  if (!form || typeof form !== 'object') return [];
  return form.fields ?? (form.steps ?? []).flatMap((s) => s.fields);
}

/** Problems with the data of a browser answer (required fields, numbers, options, selection). */
function checkData(
  kase: DemoCase,
  action: string,
  data: Record<string, unknown>,
): Array<{ path: string; message: string }> {
  const issues: Array<{ path: string; message: string }> = [];
  if (kase.type === 'selection' && action === 'select') {
    const selected = data.selected;
    if (!Array.isArray(selected) || selected.length === 0) {
      issues.push({ path: 'data.selected', message: 'select at least one option' });
    }
  }
  if (kase.type !== 'input') return issues;
  for (const field of formFields(kase)) {
    const value = data[field.key];
    const empty = value === undefined || value === null || value === '';
    if (empty) {
      if (field.required) issues.push({ path: `data.${field.key}`, message: 'required' });
      continue;
    }
    const v = field.validation;
    if ((field.type === 'number' || field.type === 'range') && typeof value !== 'number') {
      issues.push({ path: `data.${field.key}`, message: 'must be a number' });
    } else if (typeof value === 'number' && v) {
      if (v.min !== undefined && value < v.min)
        issues.push({ path: `data.${field.key}`, message: `at least ${v.min}` });
      if (v.max !== undefined && value > v.max)
        issues.push({ path: `data.${field.key}`, message: `at most ${v.max}` });
    }
    if (field.type === 'select' && field.options && !field.options.some((o) => o.value === value)) {
      issues.push({ path: `data.${field.key}`, message: 'not one of the options' });
    }
  }
  return issues;
}

/** Checks inline evidence against the case's policy (spec 7.6); the demo's "provider" is a binding check. */
function verify(
  kase: DemoCase,
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
