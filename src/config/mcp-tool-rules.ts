/**
 * `mcp_upstreams.<name>.tools` in RELAY_CONFIG: which tool calls of an upstream MCP server pass,
 * wait for a person, or are refused (the MCP gateway's tool gate reads it: mcp-gateway/tool-gate*.ts).
 * A schema only, so the upstream config (and the configuration reference) can carry it.
 */
import { z } from 'zod';

/** What happens to a call. */
export const TOOL_POLICIES = ['allow', 'approve', 'deny'] as const;
export type ToolPolicy = (typeof TOOL_POLICIES)[number];

const policy = z.enum(TOOL_POLICIES, { message: 'must be allow, approve or deny' });
const seconds = z
  .number()
  .int()
  .min(10)
  .max(30 * 86_400);

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
    expires_in: seconds
      .optional()
      .describe('approve: seconds the call waits for a person before it is refused'),
  }),
);

/** `mcp_upstreams.<name>.tools`. */
export const toolRulesSchema = z.strictObject({
  default: policy
    .default('approve')
    .describe('tools whose annotations say neither read-only nor destructive'),
  rules: z
    .record(z.string().min(1).max(128), toolRule)
    .default({})
    .describe('per tool name: allow, approve, deny, or {policy, edit, expires_in}'),
  expires_in: seconds
    .default(3600)
    .describe('seconds an approve call waits for a person (per rule: its own expires_in)'),
});
export type ToolRules = z.output<typeof toolRulesSchema>;
