/** Which notify_url deliveries a case change asks for, built before the change is written. */
import { randomBytes } from 'node:crypto';
import { type CaseViewSource, caseView } from '../cases/case-view.ts';
import { warningsSent } from '../policy/expiry-warning.ts';
import { isTerminal } from '../protocol/types.ts';
import type { NotifyDelivery } from '../store/store.ts';
import type { StoredCase } from '../store/types.ts';

/** Whether moving from `prev` to `next` is an event the case's notify_url asked for. */
export function notifyEvent(next: StoredCase, prev: StoredCase): string | null {
  if (!next.doc.notify_url) return null;
  // Delivery of the card was given up: the agent hears of it at once.
  if (next.doc.delivery_failed && !prev.doc.delivery_failed) return 'delivery_failed';
  // The relay has gone blind on an open case (a refused, gone or invalid poll...): the agent hears
  // of it at once, whatever notify_on says, since the case may otherwise never end for it.
  const w = next.doc.watch?.state;
  if (!isTerminal(next.status) && w && w !== 'ok' && w !== prev.doc.watch?.state)
    return 'watch_failed';
  // The ladder's final rung ended the relay's wait (nobody decided; the policy answer): the agent
  // hears of it at once, whatever notify_on says.
  const fin = next.doc.escalation?.final?.outcome;
  if (fin === 'policy' && prev.doc.escalation?.final?.outcome !== 'policy')
    return 'escalation_final:policy';
  // A warning before expiry went out (nobody has decided yet): the agent hears of it at once,
  // whatever notify_on says; it is what the warning is for.
  // One event per threshold (`expiring:<seconds before expiry>`): the outbox keeps one per name.
  if (warningsSent(next) > warningsSent(prev)) {
    const sent = next.doc.expiry_warnings?.sent ?? [];
    return `expiring:${Math.min(...sent.slice(warningsSent(prev)).map((s) => s.before_s))}`;
  }
  // An escalation step taken is an event for agents that asked for all of them.
  const step = next.doc.escalation?.done ?? 0;
  if (next.doc.notify_on === 'all' && step > (prev.doc.escalation?.done ?? 0))
    return `escalated:${step}`;
  if (next.status === prev.status) return null;
  if (next.doc.notify_on === 'all' || isTerminal(next.status)) return next.status;
  return null;
}

/**
 * The deliveries for a change (none or one), with the body frozen as the case view at the event.
 * They are written in the same store write as the change itself (Store.updateCase's outbox), so a
 * crash cannot keep the status and lose its delivery.
 */
export async function deliveriesFor(
  source: CaseViewSource & { now: () => number },
  next: StoredCase,
  prev: StoredCase,
): Promise<NotifyDelivery[]> {
  const event = notifyEvent(next, prev);
  if (!event || !next.doc.notify_url) return [];
  const now = source.now();
  return [
    {
      id: `nd_${randomBytes(12).toString('base64url')}`,
      case_id: next.id,
      event,
      url: next.doc.notify_url,
      body: JSON.stringify(await caseView(source, next)),
      state: 'pending',
      attempts: 0,
      next_attempt_at: now,
      last_error: null,
      created_at: now,
      delivered_at: null,
    },
  ];
}
