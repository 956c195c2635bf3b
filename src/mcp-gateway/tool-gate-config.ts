/**
 * Which upstream tool calls pass, wait for a person, or are refused: `mcp_upstreams[].tools` in
 * RELAY_CONFIG. Without a rule, the server's own annotations decide (a read-only tool passes; a
 * destructive one waits for a person), and a tool that says neither takes the upstream's
 * `default` (approve unless configured). Annotations are the server's hints, not a promise: a rule
 * always wins. Pure.
 */
import { z } from 'zod';
import { ValidationError } from '../errors.ts';
import { toIssues } from '../protocol/issues.ts';

/** What happens to a call. */
export const TOOL_POLICIES = ['allow', 'approve', 'deny'] as const;
export type ToolPolicy = (typeof TOOL_POLICIES)[number];

const policy = z.enum(TOOL_POLICIES, { message: 'must be allow, approve or deny' });

/** One tool's rule: a policy (short for `{policy}`), or an approve rule with edits and lifetime. */
const toolRule = z.preprocess(
  (v) => (typeof v === 'string' ? { policy: v } : v),
  z.strictObject({
    policy: policy.describe('allow, approve or deny'),
    edit: z
      .union([z.boolean(), z.array(z.string().min(1).max(128)).min(1).max(50)])
      .optional()
      .describe(
        'approve: which arguments the person may change (true: every string, number or boolean argument)',
      ),
    expires_in: z
      .number()
      .int()
      .min(10)
      .max(30 * 86_400)
      .optional()
      .describe('approve: seconds the call waits for a person before it is refused'),
  }),
);

/** `mcp_upstreams[].tools`. */
export const toolGateSchema = z.strictObject({
  default: policy
    .default('approve')
    .describe('tools whose annotations say neither read-only nor destructive'),
  rules: z
    .record(z.string().min(1).max(128), toolRule)
    .default({})
    .describe('per tool name: allow, approve, deny, or {policy, edit, expires_in}'),
  expires_in: z
    .number()
    .int()
    .min(10)
    .max(30 * 86_400)
    .default(3600)
    .describe('seconds an approve call waits for a person (per rule: its own expires_in)'),
});
export type ToolGateConfig = z.output<typeof toolGateSchema>;

/** One upstream as the gate reads it: its name, the chat target of its asks, its tool rules. */
export interface GateUpstream {
  name: string;
  /** Where its held calls are asked (a target or route:<name>); none: approve calls are refused. */
  target?: string | undefined;
  tools: ToolGateConfig;
}

const upstreamSchema = z
  .object({
    name: z.string().min(1).max(64),
    target: z.string().min(3).max(300).optional(),
    tools: toolGateSchema.optional(),
  })
  .loose();

/**
 * The gate's view of `mcp_upstreams` (other keys of an upstream are the proxy's); errors name the
 * place, as `mcp_upstreams[1].tools.rules.delete.policy`.
 */
export function parseGateUpstreams(raw: unknown, where = 'mcp_upstreams'): GateUpstream[] {
  const r = z.array(upstreamSchema).safeParse(raw ?? []);
  if (!r.success)
    throw new ValidationError(
      'invalid_config',
      `${where}: invalid tool rules`,
      toIssues(r.error, where),
    );
  const seen = new Set<string>();
  return r.data.map((u, i) => {
    if (seen.has(u.name))
      throw new ValidationError('invalid_config', `${where}: duplicate upstream`, [
        { path: `${where}[${i}].name`, message: `"${u.name}" is named twice` },
      ]);
    seen.add(u.name);
    return { name: u.name, target: u.target, tools: u.tools ?? toolGateSchema.parse({}) };
  });
}

/** The MCP tool annotations the default reads (ToolAnnotations). */
export interface ToolHints {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
}

/** A call's rule: its policy, the arguments a person may edit, how long it waits. */
export interface ResolvedRule {
  policy: ToolPolicy;
  /** Why (shown in logs and refusals): "rule", "read-only", "destructive", "default". */
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
  const readOnly = hints?.readOnlyHint === true;
  if (readOnly) return { policy: 'allow', because: 'read-only', edit: false, expiresIn };
  if (hints?.destructiveHint === true)
    return { policy: 'approve', because: 'destructive', edit: false, expiresIn };
  return { policy: u.tools.default, because: 'default', edit: false, expiresIn };
}
