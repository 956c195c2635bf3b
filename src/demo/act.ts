/** Simulated reviewer steps (test controls): what a person would do on the review page. */
import { submitFromBrowser } from './answers.ts';
import type { DemoDeps } from './context.ts';
import type { TransitionOutcome } from './engine.ts';
import type { DemoActResult, DemoStep } from './types.ts';

/** A step that could not be taken; `status` and `code` are what the test-control route answers. */
export class DemoActError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'DemoActError';
  }
}

/** Takes one reviewer step on a case; throws DemoActError when the case cannot take it. */
export async function actOnCase(
  deps: DemoDeps,
  caseId: string,
  step: DemoStep,
  base: string,
): Promise<DemoActResult> {
  const { engine } = deps;
  if (step.step === 'respond') {
    const stored = await engine.refresh(caseId);
    if (!stored) throw new DemoActError(404, 'not_found', `No review case ${caseId}`);
    if (!step.action) throw new DemoActError(400, 'invalid_request', 'respond needs an action');
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
      throw new DemoActError(answer.status, code, String(answer.body.message ?? code));
    }
    const result: DemoActResult = { case_id: caseId, status: 'completed' };
    if (answer.next) result.next = answer.next;
    return result;
  }
  const outcome = await ((): Promise<TransitionOutcome> => {
    switch (step.step) {
      case 'open':
        return engine.open(caseId);
      case 'progress':
        return engine.progress(caseId, step.progress);
      case 'cancel':
        return engine.cancel(caseId, step.reason ?? 'The reviewer cancelled the review');
      case 'expire':
        return engine.expireNow(caseId);
      case 'remind':
        return engine.remindNow(caseId);
    }
  })();
  if (outcome.ok) return { case_id: caseId, status: outcome.kase.status };
  if (outcome.reason === 'not_found') {
    throw new DemoActError(404, 'not_found', `No review case ${caseId}`);
  }
  const status = outcome.kase?.status ?? 'unknown';
  throw new DemoActError(409, 'invalid_transition', `Cannot ${step.step} a case that is ${status}`);
}
