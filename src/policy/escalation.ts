/**
 * Escalation ladders: a route's cases go to more targets as time passes without a decision (DM the
 * owner, then the team channel after 15 min, then on-call after 1 h). Each step is recorded in the
 * case (compare-and-set) before its cards are posted, so a restart or a second replica never posts
 * a step twice; earlier cards stay live and every card of the case is kept in sync as before. The
 * ladder is copied into the case at intake; its times count from intake.
 */
import { z } from 'zod';
import type { CaseEscalation, StoredCase } from '../cases/types.ts';
import type { CaseStatus } from '../protocol/types.ts';

const TARGET = /^[a-z][a-z0-9_-]*:.+$/;

/** A ladder as configured (RELAY_CONFIG `routes.<name>.escalation`). */
export const escalationSchema = z.strictObject({
  steps: z
    .array(
      z.strictObject({
        /** Seconds after intake. */
        after_seconds: z
          .number()
          .int()
          .min(1)
          .max(30 * 86_400),
        targets: z
          .array(z.string().regex(TARGET, 'must look like "platform:address"'))
          .min(1)
          .max(20),
      }),
    )
    .min(1)
    .max(10),
});

/** A configured ladder. */
export type EscalationConfig = z.infer<typeof escalationSchema>;

/** Escalation goes on only while nobody has decided or started deciding. */
const ESCALATING: ReadonlySet<CaseStatus> = new Set(['pending', 'opened']);

/** The case's ladder from a route's configuration, timed from `now`. */
export function caseEscalation(cfg: EscalationConfig, now: number): CaseEscalation {
  const steps = [...cfg.steps].sort((a, b) => a.after_seconds - b.after_seconds);
  return {
    steps: steps.map((s) => ({ at: now + s.after_seconds * 1000, targets: s.targets })),
    done: 0,
  };
}

/** When the next step is due, or undefined (none left, or the case is past escalating). */
export function nextEscalation(c: StoredCase): number | undefined {
  const e = c.doc.escalation;
  if (!e || !ESCALATING.has(c.status)) return undefined;
  return e.steps[e.done]?.at;
}

/** What the escalation step needs of the engine. */
export interface EscalationHost {
  now(): number;
  resolveTargets(target: string): string[];
  mutate(id: string, change: (c: StoredCase) => boolean): Promise<StoredCase | undefined>;
  history(caseId: string, kind: string, detail: Record<string, unknown>): Promise<void>;
  cards: { deliver(c: StoredCase, targets: string[]): Promise<unknown> };
}

/** Takes every step that is due: records it, then posts the case to that step's targets. */
export async function escalateDue(host: EscalationHost, c: StoredCase): Promise<boolean> {
  if (!c.doc.escalation || nextEscalation(c) === undefined) return false;
  const now = host.now();
  let taken: Array<{ at: number; targets: string[] }> = [];
  let from = 0;
  const updated = await host.mutate(c.id, (x) => {
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
    await host.history(c.id, 'escalated', { step: from + i + 1, targets: step.targets });
    const targets = step.targets.flatMap((t) => {
      try {
        return host.resolveTargets(t);
      } catch {
        return []; // a platform turned off since intake: the step is recorded, nothing to post
      }
    });
    await host.cards.deliver(updated, targets);
  }
  return true;
}
