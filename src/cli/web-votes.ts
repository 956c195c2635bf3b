/**
 * Which configured approval policies a web chat vote can count in. A web chat tap names its person
 * itself (docs/who-may-approve.md), so in a policy that needs two or more people, one person who
 * sends two web ids satisfies it alone: `hitl-relay serve` warns about every such policy.
 */
import type { RelayConfig } from '../config/config.ts';

const isWeb = (account: string) => account.startsWith('web:');

/** Names of the policies needing 2+ people in which a web chat vote counts (with the web chat on). */
export function policiesCountingWebVotes(
  config: Pick<RelayConfig, 'policies' | 'targetPolicies' | 'routes' | 'identities'>,
): string[] {
  // Without an approvers list anyone who may act on the target votes: the policy counts web votes
  // when it is the policy of a web target (directly, or on a route that posts to one).
  const onWebTarget = new Set<string>();
  for (const [target, name] of Object.entries(config.targetPolicies))
    if (isWeb(target)) onWebTarget.add(name);
  for (const route of Object.values(config.routes)) {
    const targets = [
      ...route.targets,
      ...(route.escalation?.steps ?? []).flatMap((s) => s.targets),
    ];
    if (route.policy && targets.some(isWeb)) onWebTarget.add(route.policy);
  }
  return Object.entries(config.policies)
    .filter(([name, p]) => {
      if (p.required < 2) return false;
      if (!p.approvers) return onWebTarget.has(name);
      return p.approvers.some((a) => isWeb(a) || (config.identities[a] ?? []).some(isWeb));
    })
    .map(([name]) => name);
}
