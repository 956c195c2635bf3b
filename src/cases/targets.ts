/** Where a case may go and who may act on it: targets, routes, allowlists, policies (config only). */
import type { RelayConfig } from '../config/config.ts';
import { ValidationError } from '../errors.ts';
import { type CasePolicyInput, resolveCasePolicy } from '../policy/case-policy.ts';
import { type CasePolicy, casePolicy, identityOf } from '../policy/policy.ts';
import type { StoredCase } from '../store/types.ts';

/** The parts of the configuration targets are resolved from. */
export type TargetsConfig = Pick<
  RelayConfig,
  'routes' | 'allow' | 'targetPolicies' | 'policies' | 'identities'
>;

/** Targets, routes, allowlists and approval policies of the configuration. */
export class Targets {
  /**
   * `platforms`: the enabled platforms (their adapters), in the order they are named in errors.
   */
  constructor(
    private readonly config: TargetsConfig,
    private readonly platforms: ReadonlySet<string>,
  ) {}

  /** Expands a target (or route:<name>) into concrete targets, or explains why it cannot. */
  resolveTargets(target: string): string[] {
    if (target.startsWith('route:')) {
      const route = this.config.routes[target.slice(6)];
      if (!route)
        throw new ValidationError('unknown_target', 'unknown route', [
          {
            path: 'target',
            message: `route "${target.slice(6)}" is not configured: ${Object.keys(this.config.routes).length ? `use one of ${Object.keys(this.config.routes).join(', ')}, or ` : ''}add it under "routes" in the RELAY_CONFIG file`,
          },
        ]);
      return route.targets.flatMap((t) => this.resolveTargets(t));
    }
    const i = target.indexOf(':');
    const platform = target.slice(0, i);
    if (i < 1 || i === target.length - 1)
      throw new ValidationError('unknown_target', 'invalid target', [
        { path: 'target', message: 'must look like "platform:address" or "route:name"' },
      ]);
    if (!this.platforms.has(platform))
      throw new ValidationError('unknown_target', 'platform not enabled', [
        {
          path: 'target',
          message: `platform "${platform}" is not enabled: use one of ${[...this.platforms].join(', ') || '(none)'}, or set that platform's credentials on the relay`,
        },
      ]);
    return [target];
  }

  /** Whether `userId` may act on a case sent to `target` through the case's target. */
  mayAct(c: StoredCase, target: string, userId: string): boolean {
    const lists: string[][] = [];
    if (c.target.startsWith('route:')) {
      const allow = this.config.routes[c.target.slice(6)]?.allow;
      if (allow) lists.push(allow);
    }
    const perTarget = this.config.allow[target];
    if (perTarget) lists.push(perTarget);
    return lists.every((l) => l.includes(userId));
  }

  /** The approval policy for cases sent to `target` (a route's or the target's own), as a snapshot. */
  policyFor(target: string): CasePolicy | undefined {
    const name = target.startsWith('route:')
      ? this.config.routes[target.slice(6)]?.policy
      : this.config.targetPolicies[target];
    const p = name ? this.config.policies[name] : undefined;
    return name && p ? casePolicy(name, p) : undefined;
  }

  /** The policy of a case sent to `target`: the configured one, or the one asked for if allowed. */
  casePolicyFor(target: string, asked: CasePolicyInput | undefined): CasePolicy | undefined {
    const route = target.startsWith('route:') ? this.config.routes[target.slice(6)] : undefined;
    const r = resolveCasePolicy(
      {
        base: this.policyFor(target),
        mode: route?.case_policy ?? 'stricter',
        policies: this.config.policies,
        identityOf: (a) => this.identityOfAccount(a),
        where: route ? `route ${target.slice(6)}` : `target ${target}`,
      },
      asked,
    );
    if ('issues' in r) throw new ValidationError('invalid_policy', 'policy not allowed', r.issues);
    return r.policy;
  }

  /** The identity of `platform:user` (or an identity name given as is). */
  identityOfAccount(who: string): string {
    const i = who.indexOf(':');
    return i > 0 ? identityOf(this.config.identities, who.slice(0, i), who.slice(i + 1)) : who;
  }
}
