/**
 * `hitl-relay mcp --relay <url> [--target <target>]`: the relay's MCP server on stdio;
 * `--gateway <name>`: the MCP gateway's upstream `<name>` (/mcp/gateway/<name>) on stdio instead.
 */
import { parseArgs } from 'node:util';
import { runStdioBridge } from '../mcp/stdio.ts';
import type { CliContext } from './context.ts';
import { CliError } from './output.ts';

/** Runs the bridge until stdin closes. */
export async function mcpCommand(args: string[], ctx: CliContext): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { relay: { type: 'string' }, target: { type: 'string' }, gateway: { type: 'string' } },
  });
  const env = ctx.env;
  const relayUrl = values.relay ?? env.RELAY_URL ?? `http://127.0.0.1:${env.PORT || 8787}`;
  if (!/^https?:\/\//.test(relayUrl))
    throw new CliError(`--relay must be an http(s) URL, got "${relayUrl}"`, 2, [
      { path: '--relay', message: 'must be an http(s) URL' },
    ]);
  const gateway = values.gateway;
  if (gateway !== undefined && !/^[A-Za-z0-9_-]{1,64}$/.test(gateway))
    throw new CliError(`--gateway must be an upstream name of mcp_upstreams, got "${gateway}"`, 2, [
      { path: '--gateway', message: 'must be letters, digits, "_" and "-"' },
    ]);
  await runStdioBridge({
    ...(gateway !== undefined && { path: `/mcp/gateway/${gateway}` }),
    relayUrl,
    apiKey: env.RELAY_API_KEY || undefined,
    target: values.target,
    onError: (m) => ctx.io.err(`hitl-relay mcp: ${m}\n`),
  });
}
