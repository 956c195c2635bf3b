/**
 * The final step of an escalation ladder configured as an answer (`final: {action, after_seconds}`):
 * when it is due and nobody has decided, the relay submits that answer to the service itself, as
 * the relay (submitted_by says so), through the same claim as a tap, so a tap and the final answer
 * never both go out. It is given only while the case is pending, only for an action the case offers
 * inline, never for an irreversible action (that needs a person's confirming tap) and never for an
 * approving action of an approval policy (that needs its votes). Otherwise the step is recorded as
 * not possible: in the history, the case view and a notify event, so the agent knows the case now
 * waits for the service's expiry.
 */

import type { TapOutcome } from '../adapter.ts';
import { checkAnswer } from '../asks/answer.ts';
import { askContentOf } from '../asks/content.ts';
import { protocolOf } from '../asks/protocol.ts';
import { randomId } from '../cases/ids.ts';
import { type CaseEscalation, FINAL_ANSWER_PLATFORM, finalOpen } from '../policy/escalation.ts';
import { inlineActions, isIrreversible, type SubmitRequest } from '../protocol/actions.ts';
import { isTerminal } from '../protocol/types.ts';
import { submit } from '../service-client/submit.ts';
import type { StoredCase } from '../store/types.ts';
import { claim } from './claim.ts';
import type { TapDeps } from './deps.ts';
import { settleSubmit } from './settle.ts';

type Final = NonNullable<CaseEscalation['final']>;

/** What the final answer touches: the tap's claim, submit and settle steps. */
export type FinalAnswerDeps = TapDeps;

/** Who submitted a final answer: the relay, named so in the service's audit trail. */
export const FINAL_SUBMITTED_BY = {
  platform: FINAL_ANSWER_PLATFORM,
  platform_user_id: 'escalation-final',
  display_name: 'hitl-relay (final answer of the escalation ladder)',
} as const;

/** Why `action` cannot be given as the final answer of `c` now, or null when it can. */
export function finalRefusal(
  deps: Pick<TapDeps, 'sealer'>,
  c: StoredCase,
  action: string,
): string | null {
  if (c.status !== 'pending') return `the case is ${c.status}`;
  if (c.doc.next_id) return 'the case was revised';
  const token = deps.sealer.open(c.secrets).submit_token;
  if (!token || !c.doc.hitl.submit_url) return 'the case offers no inline submit';
  if (c.doc.inline_unavailable) return 'the service refused inline submits for this case';
  const ask = askContentOf(c.doc.hitl.context);
  const offered = (
    ask
      ? (c.doc.hitl.inline_actions ?? protocolOf(ask).actions)
      : inlineActions(c.doc.hitl, true).actions
  ).filter((a) => !c.doc.inline_refused?.includes(a));
  if (!offered.includes(action))
    return `"${action}" is not an inline action of this case (${offered.join(', ') || 'none'})`;
  if (ask && !checkAnswer(ask, action, {}).ok) return `"${action}" needs an answer a person gives`;
  if (!ask && isIrreversible(c.doc.hitl, action))
    return `"${action}" cannot be undone and needs a person's confirmation`;
  if (c.doc.policy?.actions.includes(action))
    return `"${action}" needs ${c.doc.policy.required} approvals under policy ${c.doc.policy.name}`;
  return null;
}

/** Records the final step's outcome once (compare-and-set), in the case and its history. */
async function settle(
  deps: Pick<TapDeps, 'cases' | 'log'>,
  id: string,
  f: Final,
  outcome: 'submitted' | 'not_possible' | 'failed',
  reason?: string,
): Promise<void> {
  const updated = await deps.cases.mutate(id, (x) => {
    const e = x.doc.escalation?.final;
    if (!e || !finalOpen(e)) return false;
    e.outcome = outcome;
    if (reason) e.reason = reason;
    return true;
  });
  if (!updated) return;
  await deps.cases.history(id, 'escalation_final', {
    action: f.action,
    outcome,
    ...(reason ? { reason } : {}),
  });
  if (outcome !== 'submitted')
    deps.log.warn(
      { case: id, action: f.action, outcome, reason },
      'the final answer of the escalation ladder was not given; the case waits for the service',
    );
}

/** The case and its final step when the answer is due now (read again: the look may have changed it). */
async function dueFinal(
  d: FinalAnswerDeps,
  seen: StoredCase,
): Promise<{ c: StoredCase; f: Final } | undefined> {
  const due = seen.doc.escalation?.final;
  if (!due || !finalOpen(due) || isTerminal(seen.status) || due.at > d.now()) return undefined;
  const c = await d.store.getCase(seen.id);
  const f = c?.doc.escalation?.final;
  if (!c || !f || !finalOpen(f) || isTerminal(c.status) || f.at > d.now()) return undefined;
  return { c, f };
}

/** Gives the final answer of `c`'s ladder when it is due; true when it acted. */
export async function finalAnswerDue(d: FinalAnswerDeps, seen: StoredCase): Promise<boolean> {
  const due = await dueFinal(d, seen);
  if (!due) return false;
  const { c, f } = due;
  const why = finalRefusal(d, c, f.action);
  if (why) {
    await settle(d, c.id, f, 'not_possible', why);
    return true;
  }
  // The service asked to wait (429 Retry-After): the answer goes out on a later look.
  if ((c.doc.retry_after_until ?? 0) > d.now()) return false;
  const holder = `${d.instanceId}:${randomId(6)}`;
  // Held by a tap being submitted, or by another replica giving this answer: left to them. The
  // claim and its history row are one write.
  const row = {
    at: d.now(),
    kind: 'tap',
    detail: { ...WHO(f), reason: 'escalation final answer' },
  };
  if (!(await claim(d, c, holder, row))) return false;
  try {
    return await giveFinal(d, c, f);
  } finally {
    await d.store.releaseClaim(c.id, holder);
  }
}

/** The audit line of the final answer. */
const WHO = (f: Final) => ({
  platform: 'hitl-relay',
  user: FINAL_SUBMITTED_BY.platform_user_id,
  action: f.action,
});

/**
 * Marked before the submit: a process that dies now leaves `submitting`, and the next look goes
 * through the claim again (which asks the service before taking a lapsed claim over).
 */
async function markSubmitting(d: FinalAnswerDeps, c: StoredCase): Promise<StoredCase | undefined> {
  const marked = await d.cases.mutate(c.id, (x) => {
    const e = x.doc.escalation?.final;
    if (!e || !finalOpen(e) || x.status !== 'pending') return false;
    e.outcome = 'submitting';
    return true;
  });
  const current = marked ?? (await d.store.getCase(c.id));
  // Decided meanwhile (a poll, the service's page), or given already by another look.
  if (current?.status !== 'pending' || current.doc.escalation?.final?.outcome !== 'submitting')
    return undefined;
  return current;
}

/** Submits the final answer under the claim and records what came of it. */
async function giveFinal(d: FinalAnswerDeps, c: StoredCase, f: Final): Promise<boolean> {
  const current = await markSubmitting(d, c);
  if (!current) return false;
  const secrets = d.sealer.open(current.secrets);
  const body: SubmitRequest = {
    action: f.action,
    data: {},
    submitted_via: 'x-hitl-relay_escalation_final',
    submitted_by: { ...FINAL_SUBMITTED_BY },
  };
  const outcome = await submit(current.doc.hitl.submit_url!, secrets.submit_token!, body, {
    dispatcher: d.submitDispatcher,
    now: d.now,
  });
  await d.cases.history(c.id, 'submit', {
    ...WHO(f),
    outcome: outcome.kind,
    ...('status' in outcome ? { status: outcome.status } : {}),
    ...('error' in outcome ? { error: outcome.error } : {}),
  });
  const tap = {
    platform: 'hitl-relay',
    key: c.key,
    action: f.action,
    user: { id: FINAL_SUBMITTED_BY.platform_user_id, name: FINAL_SUBMITTED_BY.display_name },
    ref: null,
  };
  // The settle step writes its first change and the claim release together (issue 22); the
  // caller releases the claim when no change carried it.
  const quiet = async (o: TapOutcome) => ({ outcome: o, text: '', card: null });
  const reply = await settleSubmit(d, current, tap, body, outcome, quiet, {});
  if (reply.outcome === 'submitted') await settle(d, c.id, f, 'submitted');
  else
    await settle(
      d,
      c.id,
      f,
      reply.outcome === 'closed' ? 'not_possible' : 'failed',
      reply.outcome === 'closed'
        ? 'the case was decided or closed meanwhile'
        : `the service did not take it (${outcome.kind}${'status' in outcome ? ` ${outcome.status}` : ''})`,
    );
  return true;
}
