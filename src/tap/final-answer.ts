/**
 * The final rung of an escalation ladder (`final: {action, after_seconds}`). v0.9 §8 and the
 * spec's non-goals forbid a relay to submit on a person's behalf, so the rung submits nothing: when
 * it is due and nobody has decided, the relay ends its own wait with a timeout policy. The case
 * records `escalation.final.outcome: "policy"` with words that say nobody decided and what the
 * ladder's policy answer is; the case view, /wait, the client, the CLI, notify_url
 * (`escalation_final:policy`, whatever notify_on says), the cards and the history say the same,
 * never as a person's decision. The service's case stays as it is until it expires or the agent
 * acts. For the relay's own asks (the relay is the service) the ask is closed as expired with the
 * policy answer as its default_action (`closeOwnAsk`), so the ask's poll says it too.
 */

import type { CaseRepository } from '../cases/repository.ts';
import type { Logger } from '../log.ts';
import { finalOpen, finalRung, policyReason } from '../policy/escalation.ts';
import { isTerminal } from '../protocol/types.ts';
import type { Store } from '../store/store.ts';
import type { StoredCase } from '../store/types.ts';

/** What the final rung touches: the case and its history, and (for asks) the relay's own service. */
export interface FinalAnswerDeps {
  store: Pick<Store, 'getCase'>;
  cases: Pick<CaseRepository, 'mutate' | 'history'>;
  log: Logger;
  now: () => number;
  /**
   * Closes `c` as expired with `defaultAction` when it is one of the relay's own asks; false when
   * it is not (a service's case: nothing is sent to it).
   */
  closeOwnAsk?: (c: StoredCase, defaultAction: string) => Promise<boolean>;
}

/** The case when its final rung is due now (read again: the look may have changed it). */
async function dueCase(d: FinalAnswerDeps, seen: StoredCase): Promise<StoredCase | undefined> {
  const due = finalRung(seen.doc.escalation);
  if (!due || !finalOpen(due) || isTerminal(seen.status) || due.at > d.now()) return undefined;
  const c = await d.store.getCase(seen.id);
  const f = finalRung(c?.doc.escalation);
  if (!c || !f || !finalOpen(f) || isTerminal(c.status) || f.at > d.now()) return undefined;
  return c;
}

/** Takes the final rung of `c` when it is due; true when it did. Never submits anything. */
export async function finalAnswerDue(d: FinalAnswerDeps, seen: StoredCase): Promise<boolean> {
  const c = await dueCase(d, seen);
  if (!c) return false;
  let action = '';
  let reason = '';
  // Recorded once (compare-and-set): a second look or replica finds the rung taken.
  const updated = await d.cases.mutate(c.id, (x) => {
    const f = finalRung(x.doc.escalation);
    if (!x.doc.escalation || !f || !finalOpen(f) || isTerminal(x.status)) return false;
    action = f.action;
    reason = policyReason(f.action, f.at);
    x.doc.escalation.final = { action: f.action, at: f.at, outcome: 'policy', reason };
    return true;
  });
  if (!updated) return false;
  const ownAsk = d.closeOwnAsk ? await d.closeOwnAsk(updated, action).catch(() => false) : false;
  await d.cases.history(c.id, 'escalation_final', {
    action,
    outcome: 'policy',
    decided_by: null,
    submitted: false,
    ...(ownAsk ? { ask_closed_as: 'expired' } : {}),
  });
  d.log.info(
    { case: c.id, action, own_ask: ownAsk },
    "the escalation ladder's final rung: nobody decided, the policy answer is reported; nothing submitted",
  );
  return true;
}
