/**
 * Which upstream tool calls pass, wait for a person, or are refused (`mcp_upstreams.<name>.tools`,
 * config/mcp-tool-rules.ts). Without a rule, the server's own annotations decide (a read-only tool
 * passes; a destructive one waits for a person), and a tool that says neither takes the upstream's
 * `default` (approve unless configured). Annotations are the server's hints, not a promise: a rule
 * always wins. Pure.
 */
import { type ToolPolicy, type ToolRules, toolRulesSchema } from '../config/mcp-tool-rules.ts';
import { ValidationError } from '../errors.ts';
import { toIssues } from '../protocol/issues.ts';

/** One upstream as the gate reads it: its name, the chat target of its asks, its tool rules. */
export interface GateUpstream {
  name: string;
  /** Where its held calls are asked (a target or route:<name>); none: approve calls are refused. */
  target?: string | undefined;
  tools: ToolRules;
}

/** What the gate reads of one upstream's configuration (the proxy reads the rest). */
export interface GateUpstreamConfig {
  target?: string | undefined;
  tools?: unknown;
}

/**
 * The gate's view of `mcp_upstreams` (by name, as RELAY_CONFIG has it); a bad rule is refused
 * naming its place, as `mcp_upstreams.files.tools.rules.delete.policy`.
 */
export function parseGateUpstreams(
  upstreams: Record<string, GateUpstreamConfig> | undefined,
  where = 'mcp_upstreams',
): GateUpstream[] {
  return Object.entries(upstreams ?? {}).map(([name, u]) => {
    const r = toolRulesSchema.safeParse(u.tools ?? {});
    if (!r.success)
      throw new ValidationError(
        'invalid_config',
        `${where}.${name}.tools: invalid tool rules`,
        toIssues(r.error, `${where}.${name}.tools`),
      );
    return { name, target: u.target, tools: r.data };
  });
}

/** The MCP tool annotations the default reads (ToolAnnotations). */
export interface ToolHints {
  readOnlyHint?: boolean | undefined;
  destructiveHint?: boolean | undefined;
}

/** A call's rule: its policy, the arguments a person may edit, how long it waits. */
export interface ResolvedRule {
  policy: ToolPolicy;
  /** Why: a configured rule, the server's read-only or destructive hint, or the default. */
  because: 'rule' | 'read-only' | 'destructive' | 'default';
  edit: boolean | string[];
  expiresIn: number;
}

/** The rule for `tool` on `u`: its configured rule, else what its annotations say, else the default. */
export function ruleFor(u: GateUpstream, tool: string, hints: ToolHints | undefined): ResolvedRule {
  const rule = Object.hasOwn(u.tools.rules, tool) ? u.tools.rules[tool] : undefined;
  const expiresIn = u.tools.expires_in;
  if (rule)
    return {
      policy: rule.policy,
      because: 'rule',
      edit: rule.edit ?? false,
      expiresIn: rule.expires_in ?? expiresIn,
    };
  if (hints?.readOnlyHint === true)
    return { policy: 'allow', because: 'read-only', edit: false, expiresIn };
  if (hints?.destructiveHint === true)
    return { policy: 'approve', because: 'destructive', edit: false, expiresIn };
  return { policy: u.tools.default, because: 'default', edit: false, expiresIn };
}
