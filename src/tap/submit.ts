/** Step 5 of a tap: the submit to the service, and the writes its outcome carries to the settle step. */
import type { Tap } from '../adapter.ts';
import type { CarriedWrites } from '../cases/repository.ts';
import { buildSubmitRequest, type SubmitRequest } from '../protocol/actions.ts';
import { submit } from '../service-client/submit.ts';
import type { SubmitOutcome } from '../service-client/submit-outcome.ts';
import type { StoredCase } from '../store/types.ts';
import type { ResolvedTap, TapDeps } from './deps.ts';

/** A sent submit: what went out, what came back, and the writes that go with the next change. */
export interface Sent {
  body: SubmitRequest;
  outcome: SubmitOutcome;
  carry: CarriedWrites;
}

/** The submit's history row (no secret: the outcome, the status and the service's error code). */
export function submitRow(who: Record<string, unknown>, outcome: SubmitOutcome, at: number) {
  return {
    at,
    kind: 'submit',
    detail: {
      ...who,
      outcome: outcome.kind,
      ...('status' in outcome ? { status: outcome.status } : {}),
      ...('error' in outcome ? { error: outcome.error } : {}),
      ...(outcome.kind === 'rate_limited' && outcome.retryAfterMs !== undefined
        ? { retry_after_s: Math.ceil(outcome.retryAfterMs / 1000) }
        : {}),
    },
  };
}

/** Sends the answer with the case's submit token; never throws (every failure is an outcome). */
export async function sendSubmit(
  d: Pick<TapDeps, 'submitDispatcher' | 'now' | 'config' | 'log'>,
  t: ResolvedTap,
  tap: Tap,
  token: string,
  data: Record<string, unknown>,
  holder: string,
): Promise<Sent> {
  const c: StoredCase = t.c;
  const body = { ...buildSubmitRequest(tap.action, tap.platform, tap.user), data };
  const outcome = await submit(c.doc.hitl.submit_url!, token, body, {
    dispatcher: d.submitDispatcher,
    caseOrigin: c.origin,
    now: d.now,
    timeoutMs: d.config.submitTimeoutMs,
  });
  if (outcome.kind !== 'accepted') logNotAccepted(d, c, tap, outcome);
  // The submit's row and the claim release go with the case change the outcome makes (one
  // write); when it makes none, they are written on their own at the end.
  return {
    body,
    outcome,
    carry: { history: [submitRow(t.who, outcome, d.now())], releaseClaim: holder },
  };
}

function logNotAccepted(
  d: Pick<TapDeps, 'log'>,
  c: StoredCase,
  tap: Tap,
  outcome: SubmitOutcome,
): void {
  d.log.warn(
    {
      case: c.id,
      action: tap.action,
      outcome: outcome.kind,
      ...('status' in outcome ? { status: outcome.status } : {}),
      ...('error' in outcome ? { error: outcome.error } : {}),
      ...(outcome.kind === 'failed' || outcome.kind === 'unknown'
        ? { reason: outcome.reason }
        : {}),
    },
    outcome.kind === 'unknown'
      ? 'submit outcome unknown: no answer after it was sent; confirming by a poll'
      : 'submit not accepted',
  );
}
