/**
 * Approval policies (four-eyes and more): how many distinct people must take an approving action
 * before the relay submits it, who may, and whether a rejection decides at once. Pure: the
 * configuration and the votes in, a verdict out.
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';

/** A policy as configured (RELAY_CONFIG `policies`). */
export const policySchema = z.strictObject({
  required: z
    .number()
    .int()
    .min(1)
    .max(20)
    .describe('distinct people needed for an approving action'),
  approvers: z
    .array(z.string().min(1).max(200))
    .max(500)
    .optional()
    .describe(
      'identities or `platform:user` ids who may vote; absent: anyone who may act on the target',
    ),
  actions: z
    .array(z.string().min(1).max(64))
    .min(1)
    .max(10)
    .default(['approve', 'confirm'])
    .describe('the actions that need `required` votes'),
  veto: z
    .boolean()
    .default(true)
    .describe(
      'any other inline action (reject, cancel, ...) by an eligible person decides at once',
    ),
  requester_may_approve: z
    .boolean()
    .default(false)
    .describe(
      "whether the case's requester (intake `requested_by`) may vote for an approving action",
    ),
});

/** A configured policy. */
export type PolicyConfig = z.infer<typeof policySchema>;

/** The policy a case carries: a snapshot taken at intake, so a config change never moves a live tally. */
export interface CasePolicy extends PolicyConfig {
  name: string;
  /** sha256 of the canonical policy (first 16 hex): receipts name it. */
  version: string;
}

/** One counted vote. */
export interface Vote {
  identity: string;
  platform: string;
  user: string;
  name?: string;
  action: string;
  at: number;
}

/** Identity names mapped to the platform accounts they own (`platform:user`). */
export type IdentityMap = Record<string, string[]>;

/** The snapshot of a configured policy. */
export function casePolicy(name: string, p: PolicyConfig): CasePolicy {
  const sorted = JSON.stringify(p, Object.keys(p).sort());
  return { name, ...p, version: createHash('sha256').update(sorted).digest('hex').slice(0, 16) };
}

/** The identity of a platform account: its mapped person, else the account itself. */
export function identityOf(identities: IdentityMap, platform: string, user: string): string {
  const account = `${platform}:${user}`;
  for (const [name, accounts] of Object.entries(identities))
    if (accounts.includes(account)) return name;
  return account;
}

/** What a tap does under a policy. */
export type Verdict =
  /** This tap decides: submit it. */
  | { kind: 'decides'; tally: number }
  /** Counted; more votes are needed. */
  | { kind: 'counted'; tally: number }
  | { kind: 'refused'; reason: 'already_voted' | 'not_an_approver' | 'requester_may_not_approve' };

/**
 * Judges one tap against the votes so far. `votes` are the case's counted votes (without this
 * one); when the verdict is `counted` or `decides` for an approving action, the caller records
 * the vote before anything is submitted.
 */
export function judge(
  policy: CasePolicy,
  votes: readonly Vote[],
  vote: { identity: string; account: string; action: string },
  requestedBy: string | undefined,
): Verdict {
  const approving = policy.actions.includes(vote.action);
  if (
    policy.approvers &&
    !policy.approvers.includes(vote.identity) &&
    !policy.approvers.includes(vote.account)
  )
    return { kind: 'refused', reason: 'not_an_approver' };
  if (approving && !policy.requester_may_approve && requestedBy && requestedBy === vote.identity)
    return { kind: 'refused', reason: 'requester_may_not_approve' };
  const mine = votes.find((v) => v.identity === vote.identity);
  if (mine) {
    // The vote that met the policy is tapped again (its submit failed, or its process died before
    // submitting): that is the retry of the decision, not a second vote.
    const met = policy.actions.includes(mine.action)
      ? votes.filter((v) => v.action === mine.action).length >= policy.required
      : policy.veto;
    if (met && mine.action === vote.action)
      return { kind: 'decides', tally: votes.filter((v) => v.action === vote.action).length };
    return { kind: 'refused', reason: 'already_voted' };
  }
  if (!approving && policy.veto) return { kind: 'decides', tally: 1 };
  const tally = votes.filter((v) => v.action === vote.action).length + 1;
  return tally >= policy.required ? { kind: 'decides', tally } : { kind: 'counted', tally };
}
