/**
 * `mcp_upstreams` in RELAY_CONFIG: the MCP servers the gateway (src/mcp-gateway/) stands in front
 * of, by name. Each is reached over Streamable HTTP (a URL under the same URL policy as services,
 * checked by the gateway, mcp-gateway/upstream-policy.ts; headers that are secrets: registered so no
 * log line carries them, sent only to that origin)
 * or over stdio (a command the relay spawns and restarts when it exits).
 */
import { z } from 'zod';
import { registerSecret } from '../log.ts';
import { toolRulesSchema } from './mcp-tool-rules.ts';

const TARGET = /^(route|[a-z][a-z0-9_-]*):.+$/;

/** What every upstream may say, whichever way it is reached. */
const common = {
  target: z
    .string()
    .regex(TARGET, 'must look like "platform:address" or "route:<name>"')
    .optional()
    .describe(
      "the chat its questions are asked in (a route's allowlist and policy decide who may answer)",
    ),
  timeout_seconds: z
    .number()
    .int()
    .min(10)
    .max(30 * 86_400)
    .default(3600)
    .describe('how long a person has for one of its questions; then the gateway answers `cancel`'),
  protocol: z
    .enum(['auto', 'legacy', '2026-07-28'])
    .default('auto')
    .describe('which MCP revision to speak: `auto` probes, `legacy` is the 2025 handshake'),
  lean: z
    .boolean()
    .default(true)
    .describe(
      'allowed 2026-07-28 tool calls take the lean pass-through (false: the SDK path only)',
    ),
};

/** One upstream as RELAY_CONFIG gives it: `url` (Streamable HTTP) or `command` (stdio). */
export const mcpUpstreamSchema = z
  .strictObject({
    url: z
      .string()
      .optional()
      .describe('its Streamable HTTP endpoint (https; http for loopback locally)'),
    headers: z
      .record(z.string().min(1), z.string())
      .optional()
      .describe('with `url`: sent on every request to that origin only (secrets: never logged)'),
    command: z
      .string()
      .min(1)
      .optional()
      .describe('the program the relay spawns and restarts (MCP over its stdin/stdout)'),
    args: z.array(z.string()).optional().describe('with `command`: its arguments'),
    env: z
      .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a variable name'), z.string())
      .optional()
      .describe('with `command`: its environment, over a minimal inherited one (secrets)'),
    cwd: z.string().optional().describe('with `command`: its working directory'),
    tools: toolRulesSchema
      .optional()
      .describe('which tool calls pass, wait for a person, or are refused (docs/mcp-gateway.md)'),
    ...common,
  })
  .superRefine((u, ctx) => {
    if ((u.url === undefined) === (u.command === undefined))
      ctx.addIssue({
        code: 'custom',
        path: [],
        message: 'give exactly one of `url` (Streamable HTTP) or `command` (stdio)',
      });
    const wrong = u.url !== undefined ? STDIO_KEYS : u.command !== undefined ? HTTP_KEYS : [];
    for (const key of wrong)
      if (u[key] !== undefined)
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `belongs to ${key === 'headers' ? '`url`' : '`command`'} upstreams: remove it`,
        });
  });

const STDIO_KEYS = ['args', 'env', 'cwd'] as const;
const HTTP_KEYS = ['headers'] as const;

/** `mcp_upstreams`: upstream MCP servers by name (the name is the path segment of /mcp/gateway/<name>). */
export const mcpUpstreamsSchema = z
  .record(
    z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be letters, digits, "_" and "-"'),
    mcpUpstreamSchema,
  )
  .default({})
  .describe('MCP servers the gateway stands in front of, by name (docs/mcp-gateway.md)');

type Common = {
  target?: string | undefined;
  /** The tool gate's rules as written (mcp-gateway/tool-gate-config.ts checks and resolves them). */
  tools?: unknown;
  timeoutMs: number;
  protocol: 'auto' | 'legacy' | '2026-07-28';
  /** Allowed calls may take the lean pass-through (mcp-gateway/lean-call.ts). */
  lean?: boolean | undefined;
};

/** An upstream reached over Streamable HTTP. */
export type HttpUpstreamConfig = Common & { url: string; headers: Record<string, string> };

/** An upstream the relay spawns. */
export type StdioUpstreamConfig = Common & {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string | undefined;
};

/** One upstream, checked. */
export type McpUpstreamConfig = HttpUpstreamConfig | StdioUpstreamConfig;

/** True for an upstream reached over HTTP. */
export function isHttpUpstream(u: McpUpstreamConfig): u is HttpUpstreamConfig {
  return 'url' in u;
}

/** The file's upstreams in the shape the gateway takes, their secrets registered. */
export function upstreamsOf(
  raw: z.infer<typeof mcpUpstreamsSchema>,
): Record<string, McpUpstreamConfig> {
  const out: Record<string, McpUpstreamConfig> = Object.fromEntries(
    Object.entries(raw).map(([name, u]) => {
      const c: Common = {
        target: u.target,
        tools: u.tools,
        timeoutMs: u.timeout_seconds * 1000,
        protocol: u.protocol,
        lean: u.lean,
      };
      if (u.url !== undefined) return [name, { ...c, url: u.url, headers: u.headers ?? {} }];
      return [
        name,
        { ...c, command: u.command as string, args: u.args ?? [], env: u.env ?? {}, cwd: u.cwd },
      ];
    }),
  );
  // Known before anything can log them, so no log line carries them.
  for (const u of Object.values(out))
    for (const v of Object.values(isHttpUpstream(u) ? u.headers : u.env)) registerSecret(v);
  return out;
}
