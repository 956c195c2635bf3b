/**
 * A policy asked for at intake (`policy: "name"` or `policy: {required: 3}`), within what the
 * configuration allows: a route's `case_policy` says whether cases may bring their own ("none"),
 * only ones at least as strict as the configured policy ("stricter", the default, and the rule for
 * plain targets), or any ("any"). An object is laid over the configured policy (fields not given
 * stay as configured). Stricter means: as many approvals or more, approvers among the configured
 * ones, the same approving actions or more, a veto kept, the requester kept from approving.
 */
import { z } from 'zod';
import type { ValidationIssue } from '../errors.ts';
import { type CasePolicy, casePolicy, type PolicyConfig, policySchema } from './policy.ts';

/** The intake field. */
export const casePolicyInputSchema = z.union([
  z.string().min(1).max(100),
  z
    .strictObject({
      required: z.number().int().min(1).max(20),
      approvers: z.array(z.string().min(1).max(200)).max(500),
      actions: z.array(z.string().min(1).max(64)).min(1).max(10),
      veto: z.boolean(),
      requester_may_approve: z.boolean(),
    })
    .partial(),
]);

/** What a case's intake may say about its policy. */
export type CasePolicyInput = z.infer<typeof casePolicyInputSchema>;

/** How a route takes per-case policies (RELAY_CONFIG `routes.<name>.case_policy`). */
export const casePolicyModeSchema = z.enum(['stricter', 'any', 'none']);
export type CasePolicyMode = z.infer<typeof casePolicyModeSchema>;

/** What resolving needs. */
export interface CasePolicyContext {
  /** The policy configured for the target, if any. */
  base: CasePolicy | undefined;
  mode: CasePolicyMode;
  /** Configured policies by name. */
  policies: Record<string, PolicyConfig>;
  /** The person of an approver entry (an identity stays itself). */
  identityOf(entry: string): string;
  /** For messages: "route deploys" or "target slack:C1". */
  where: string;
}

/** The policy of a case: the configured one, or the one asked for; issues when it is not allowed. */
export function resolveCasePolicy(
  ctx: CasePolicyContext,
  asked: CasePolicyInput | undefined,
): { policy: CasePolicy | undefined } | { issues: ValidationIssue[] } {
  if (asked === undefined) return { policy: ctx.base };
  if (ctx.mode === 'none')
    return {
      issues: [
        { path: 'policy', message: `${ctx.where} takes no per-case policy (case_policy "none")` },
      ],
    };
  let candidate: CasePolicy;
  if (typeof asked === 'string') {
    const named = ctx.policies[asked];
    if (!named) {
      const known = Object.keys(ctx.policies).join(', ') || 'none';
      return {
        issues: [{ path: 'policy', message: `unknown policy "${asked}" (configured: ${known})` }],
      };
    }
    candidate = casePolicy(asked, named);
  } else {
    const { name: _n, version: _v, ...base } = ctx.base ?? { name: '', version: '' };
    const merged = policySchema.safeParse({ ...base, ...asked });
    if (!merged.success)
      return {
        issues: merged.error.issues.map((i) => ({
          path: ['policy', ...i.path].join('.'),
          message: i.message,
        })),
      };
    candidate = casePolicy(ctx.base ? `${ctx.base.name}+case` : 'case', merged.data);
  }
  // A policy nobody can meet would leave the case to expire: refused whatever the mode.
  const people = new Set(candidate.approvers?.map((a) => ctx.identityOf(a)));
  if (candidate.approvers && people.size < candidate.required)
    return {
      issues: [
        {
          path: 'policy.required',
          message: `${candidate.required} approvals cannot be met by ${people.size} approver(s)`,
        },
      ],
    };
  if (ctx.mode === 'any' || !ctx.base) return { policy: candidate };
  const issues = weaker(ctx, ctx.base, candidate);
  return issues.length ? { issues } : { policy: candidate };
}

/** Where `c` is weaker than `base`, one issue per field. */
function weaker(ctx: CasePolicyContext, base: CasePolicy, c: CasePolicy): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const of = `${ctx.where}'s policy ${base.name}`;
  if (c.required < base.required)
    issues.push({
      path: 'policy.required',
      message: `${c.required} is weaker than ${of} (${base.required} approvals)`,
    });
  if (base.approvers) {
    const allowed = new Set(base.approvers.flatMap((a) => [a, ctx.identityOf(a)]));
    const extra = (c.approvers ?? ['anyone']).filter(
      (a) => !allowed.has(a) && !allowed.has(ctx.identityOf(a)),
    );
    if (extra.length)
      issues.push({
        path: 'policy.approvers',
        message: `must be among the approvers of ${of}; not: ${extra.slice(0, 5).join(', ')}`,
      });
  }
  const dropped = base.actions.filter((a) => !c.actions.includes(a));
  if (dropped.length)
    issues.push({
      path: 'policy.actions',
      message: `must keep the approving actions of ${of}: ${dropped.join(', ')}`,
    });
  if (base.veto && !c.veto)
    issues.push({ path: 'policy.veto', message: `must stay true as in ${of}` });
  if (!base.requester_may_approve && c.requester_may_approve)
    issues.push({ path: 'policy.requester_may_approve', message: `must stay false as in ${of}` });
  return issues;
}
