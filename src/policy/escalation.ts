/**
 * Escalation ladders: a route's cases go to more targets as time passes without a decision (DM the
 * owner, then the team channel after 15 min, then on-call after 1 h). Each step is recorded in the
 * case (compare-and-set) before its cards are posted, so a restart or a second replica never posts
 * a step twice; earlier cards stay live and every card of the case is kept in sync as before. The
 * ladder is copied into the case at intake; its times count from intake.
 *
 * The last step is explicit: without `final` the case waits for the service's expiry (its
 * default_action, as the service applies it); with `final` the relay ends its own wait when it is
 * due, with a timeout policy ("nobody decided; the ladder's policy answer is X") and never a
 * submit: v0.9 forbids deciding for a person (tap/final-answer.ts). Pure: the schema, the case's
 * copy of the ladder (old copies upgraded as they are read) and when its next step is due; taking a
 * step is cases/escalate.ts.
 */
import { z } from 'zod';
import { type CaseStatus, isTerminal } from '../protocol/types.ts';

const TARGET = /^[a-z][a-z0-9_-]*:.+$/;
const THIRTY_DAYS = 30 * 86_400;

/** A ladder as configured (RELAY_CONFIG `routes.<name>.escalation`). */
export const escalationSchema = z
  .strictObject({
    steps: z
      .array(
        z.strictObject({
          after_seconds: z
            .number()
            .int()
            .min(1)
            .max(THIRTY_DAYS)
            .describe('when the step is taken: seconds after intake'),
          targets: z
            .array(z.string().regex(TARGET, 'must look like "platform:address"'))
            .min(1)
            .max(20)
            .describe('where the case is posted too'),
        }),
      )
      .max(10)
      .default([])
      .describe('each step posts the case to more targets; earlier cards stay live'),
    final: z
      .strictObject({
        action: z
          .string()
          .regex(/^[a-z][a-z0-9_]{0,31}$/, 'must be an action name (e.g. "reject")')
          .describe(
            'the policy answer the agent is told when nobody decided (e.g. `reject`); never submitted to the service',
          ),
        after_seconds: z
          .number()
          .int()
          .min(1)
          .max(THIRTY_DAYS)
          .describe('when: seconds after intake, at or after the last step'),
      })
      .optional()
      .describe(
        "the last step: ends the relay's wait with a timeout policy, never a person's decision; absent: the service's expiry decides",
      ),
  })
  .superRefine((v, ctx) => {
    if (!v.steps.length && !v.final)
      ctx.addIssue({
        code: 'custom',
        path: ['steps'],
        message: 'give steps, a final rung or both',
      });
    const last = Math.max(0, ...v.steps.map((s) => s.after_seconds));
    if (v.final && v.final.after_seconds < last)
      ctx.addIssue({
        code: 'custom',
        path: ['final', 'after_seconds'],
        message: `the final rung comes last: at least ${last} (the last step)`,
      });
  });

/** The `submitted_by.platform` of the ladder's final answer: the relay itself, not a person. */
export const FINAL_ANSWER_PLATFORM = 'x-hitl-relay';

/** A configured ladder. */
export type EscalationConfig = z.infer<typeof escalationSchema>;

/** The escalation ladder of a case (copied from its route at intake) and how far it has gone. */
export interface CaseEscalation {
  steps: Array<{ at: number; targets: string[] }>;
  /** Steps already taken. */
  done: number;
  /** The configured final rung (absent: the case waits for the service's expiry). */
  final?: {
    /** The ladder's policy answer, told to the agent as such; never submitted. */
    action: string;
    at: number;
    /**
     * Absent until due, then `policy`: nobody decided and the relay's wait ended with the policy
     * answer. The other values are what an older relay stored (it submitted the answer itself):
     * kept as history, and `submitting` is upgraded as it is read (finalRung).
     */
    outcome?: FinalOutcome;
    /** What the outcome means, in words for the agent. */
    reason?: string;
  };
}

/** What became of a final rung: `policy` today; the rest only in cases an older relay stored. */
export type FinalOutcome = 'policy' | 'submitting' | 'submitted' | 'not_possible' | 'failed';

/** What the ladder rules read of a case. */
export interface EscalatingCase {
  status: CaseStatus;
  doc: { escalation?: CaseEscalation | undefined };
}

/** Escalation goes on only while nobody has decided or started deciding. */
export const ESCALATING: ReadonlySet<CaseStatus> = new Set(['pending', 'opened']);

/** The case's ladder from a route's configuration, timed from `now`. */
export function caseEscalation(cfg: EscalationConfig, now: number): CaseEscalation {
  const steps = [...cfg.steps].sort((a, b) => a.after_seconds - b.after_seconds);
  return {
    steps: steps.map((s) => ({ at: now + s.after_seconds * 1000, targets: s.targets })),
    done: 0,
    ...(cfg.final
      ? { final: { action: cfg.final.action, at: now + cfg.final.after_seconds * 1000 } }
      : {}),
  };
}

/**
 * When the next step is due, or undefined (none left, or the case is past escalating). A final
 * rung is due on any open case: nobody has decided until the service says so.
 */
export function nextEscalation(c: EscalatingCase): number | undefined {
  const e = c.doc.escalation;
  if (!e || isTerminal(c.status)) return undefined;
  const step = ESCALATING.has(c.status) ? e.steps[e.done]?.at : undefined;
  if (step !== undefined) return step;
  return e.final && finalOpen(e.final) ? e.final.at : undefined;
}

/**
 * A case's final rung as this relay reads it. An older relay submitted the answer itself and may
 * have died half-way (`submitting`): that rung is open again, and is now ended as a policy, never
 * submitted. Every reader goes through here, so no stored ladder is read the old way.
 */
export function finalRung(e: CaseEscalation | undefined): CaseEscalation['final'] {
  const f = e?.final;
  if (f?.outcome !== 'submitting') return f;
  const { outcome: _old, ...open } = f;
  return open;
}

/** Whether a final rung is still to be taken. */
export function finalOpen(f: NonNullable<CaseEscalation['final']>): boolean {
  return f.outcome === undefined || f.outcome === 'submitting';
}

/** The words of a policy end: nobody decided, and what the ladder's policy answer is. */
export function policyReason(action: string, at: number): string {
  return `nobody decided by ${new Date(at).toISOString()}; the escalation ladder's policy answer is "${action}" (a timeout policy, not a person's decision; nothing was submitted to the service)`;
}

/** Whether the relay's wait for `c` ended by the ladder's final rung (nobody decided). */
export function endedByPolicy(c: EscalatingCase): boolean {
  return !isTerminal(c.status) && c.doc.escalation?.final?.outcome === 'policy';
}
