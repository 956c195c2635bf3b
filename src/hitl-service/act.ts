/** Simulated reviewer steps (test controls): what a person would do on the review page. */
import { submitFromBrowser } from './answers.ts';
import type { ServiceDeps } from './context.ts';
import type { TransitionOutcome } from './lifecycle.ts';
import type { ReviewerStep, ReviewerStepResult } from './types.ts';

/** A step that could not be taken; `status` and `code` are what the test-control route answers. */
export class ReviewerStepError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'ReviewerStepError';
  }
}

/** Takes one reviewer step on a case; throws ReviewerStepError when the case cannot take it. */
export async function actOnCase(
  deps: ServiceDeps,
  caseId: string,
  step: ReviewerStep,
  base: string,
): Promise<ReviewerStepResult> {
  const { lifecycle } = deps;
  if (step.step === 'respond') {
    const stored = await lifecycle.refresh(caseId);
    if (!stored) throw new ReviewerStepError(404, 'not_found', `No review case ${caseId}`);
    if (!step.action)
      throw new ReviewerStepError(400, 'invalid_request', 'respond needs an action');
    const answer = await submitFromBrowser(
      deps,
      stored.kase,
      {
        action: step.action,
        data: step.data ?? {},
        ...(step.responded_by && { responded_by: step.responded_by }),
      },
      base,
    );
    if (answer.status !== 200) {
      const code = String(answer.body.error ?? 'failed');
      throw new ReviewerStepError(answer.status, code, String(answer.body.message ?? code));
    }
    const result: ReviewerStepResult = { case_id: caseId, status: 'completed' };
    if (answer.next) result.next = answer.next;
    return result;
  }
  const outcome = await ((): Promise<TransitionOutcome> => {
    switch (step.step) {
      case 'open':
        return lifecycle.open(caseId);
      case 'progress':
        return lifecycle.progress(caseId, step.progress);
      case 'cancel':
        return lifecycle.cancel(caseId, step.reason ?? 'The reviewer cancelled the review');
      case 'expire':
        return lifecycle.expireNow(caseId, step.default_action);
      case 'remind':
        return lifecycle.remindNow(caseId);
    }
  })();
  if (outcome.ok) return { case_id: caseId, status: outcome.kase.status };
  if (outcome.reason === 'not_found') {
    throw new ReviewerStepError(404, 'not_found', `No review case ${caseId}`);
  }
  const status = outcome.kase?.status ?? 'unknown';
  throw new ReviewerStepError(
    409,
    'invalid_transition',
    `Cannot ${step.step} a case that is ${status}`,
  );
}
