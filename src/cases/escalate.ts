/**
 * Taking the escalation steps that are due (policy/escalation.ts has the ladder's rules): each step
 * is recorded in the case (compare-and-set) before its cards are posted, so a restart or a second
 * replica never posts a step twice.
 */
import { ESCALATING, nextEscalation } from '../policy/escalation.ts';
import type { StoredCase } from '../store/types.ts';
import type { CaseRepository } from './repository.ts';

/** What the escalation step touches: the targets, the case with its history, and card delivery. */
export interface EscalationHost {
  now(): number;
  /** Targets (cases/targets.ts). */
  targets: { resolveTargets(target: string): string[] };
  cases: Pick<CaseRepository, 'mutate' | 'history'>;
  cards: { deliver(c: StoredCase, targets: string[]): Promise<unknown> };
}

/** Takes every step that is due: records it, then posts the case to that step's targets. */
export async function escalateDue(host: EscalationHost, c: StoredCase): Promise<boolean> {
  if (!c.doc.escalation || nextEscalation(c) === undefined) return false;
  const now = host.now();
  let taken: Array<{ at: number; targets: string[] }> = [];
  let from = 0;
  const updated = await host.cases.mutate(c.id, (x) => {
    const e = x.doc.escalation;
    if (!e || !ESCALATING.has(x.status)) return false;
    from = e.done;
    taken = e.steps.slice(e.done).filter((s) => s.at <= now);
    if (!taken.length) return false;
    e.done += taken.length;
    return true;
  });
  if (!updated) return false;
  for (const [i, step] of taken.entries()) {
    await host.cases.history(c.id, 'escalated', { step: from + i + 1, targets: step.targets });
    const targets = step.targets.flatMap((t) => {
      try {
        return host.targets.resolveTargets(t);
      } catch {
        return []; // a platform turned off since intake: the step is recorded, nothing to post
      }
    });
    await host.cards.deliver(updated, targets);
  }
  return true;
}
