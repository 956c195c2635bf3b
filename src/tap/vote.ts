/**
 * The policy step of a tap: the vote is stored (compare-and-set on the case, so replicas and
 * concurrent taps agree) before it counts, and only the tap that meets the policy goes on to be
 * submitted. Cases without a policy pass straight through.
 */
import type { Tap, TapOutcome } from '../adapter.ts';
import type { CaseRepository } from '../cases/repository.ts';
import type { Targets } from '../cases/targets.ts';
import { judge, type Verdict, type Vote } from '../policy/policy.ts';
import { isTerminal } from '../protocol/types.ts';
import type { StoredCase } from '../store/types.ts';

/** What the vote step touches: who is who, and the case with its history. */
export interface VoteHost {
  now(): number;
  targets: Pick<Targets, 'identityOfAccount'>;
  cases: Pick<CaseRepository, 'mutate' | 'history'>;
}

/** Whether this tap goes on to the submit, or the reply that ends it here. */
export type VoteResult =
  | { decides: true; tally: number | null }
  | { decides: false; outcome: TapOutcome; view: Record<string, unknown>; case?: StoredCase };

/** Judges and records one tap's vote under the case's policy. */
export async function castVote(
  host: VoteHost,
  c: StoredCase,
  tap: Tap,
  who: Record<string, unknown>,
): Promise<VoteResult> {
  if (!c.doc.policy) return { decides: true, tally: null };
  const account = `${tap.platform}:${tap.user.id}`;
  const identity = host.targets.identityOfAccount(account);
  const vote: Vote = {
    identity,
    platform: tap.platform,
    user: tap.user.id,
    ...(tap.user.name ? { name: tap.user.name.slice(0, 128) } : {}),
    action: tap.action,
    at: host.now(),
  };
  let verdict: Verdict | undefined;
  let recorded = false;
  const updated = await host.cases.mutate(c.id, (x) => {
    recorded = false;
    verdict = undefined;
    if (isTerminal(x.status) || !x.doc.policy) return false;
    const votes = x.doc.votes ?? [];
    verdict = judge(
      x.doc.policy,
      votes,
      { identity, account, action: tap.action },
      x.doc.requested_by,
    );
    if (verdict.kind === 'refused' || votes.some((v) => v.identity === identity)) return false;
    x.doc.votes = [...votes, vote];
    recorded = true;
    return true;
  });
  const v = verdict as Verdict | undefined;
  if (!v) return { decides: true, tally: null }; // closed meanwhile: the tap path says so
  const required = c.doc.policy.required;
  if (v.kind === 'refused') {
    await host.cases.history(c.id, 'vote_refused', { ...who, identity, reason: v.reason });
    return { decides: false, outcome: v.reason, view: { required } };
  }
  if (recorded)
    await host.cases.history(c.id, 'vote', { ...who, identity, tally: v.tally, required });
  if (v.kind === 'counted')
    return {
      decides: false,
      outcome: 'vote_recorded',
      view: { tally: v.tally, required },
      ...(updated ? { case: updated } : {}),
    };
  await host.cases.history(c.id, 'policy_met', {
    policy: c.doc.policy.name,
    tally: v.tally,
    required,
  });
  return { decides: true, tally: v.tally };
}
