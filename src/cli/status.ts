/** `hitl-relay status <id>` and `hitl-relay cases [--open]`: read cases from the relay. */
import { parseArgs } from 'node:util';
import { outcomeOf } from '../client/outcome.ts';
import type { CliContext } from './context.ts';
import { clientFromEnv } from './env.ts';
import { CliError, formatCase, formatCases, verdictLine, waitExitCode } from './output.ts';

/** Usage of status and cases. */
export const STATUS_USAGE = `usage: hitl-relay status <id> [--wait | --require-approval] [--timeout <seconds>] [--json]
       hitl-relay cases [--open] [--limit <n>] [--json]`;

/** Parses --timeout (seconds, > 0). */
export function waitSeconds(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0)
    throw new CliError('--timeout must be a number of seconds above 0', 2, [
      { path: '--timeout', message: 'must be a number of seconds above 0' },
    ]);
  return n;
}

/** Runs status; after --wait, exit 3 when not final; with --require-approval, 0 only when approved. */
export async function statusCommand(args: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      wait: { type: 'boolean' },
      'require-approval': { type: 'boolean' },
      timeout: { type: 'string' },
      json: { type: 'boolean' },
      'relay-url': { type: 'string' },
    },
  });
  const id = positionals[0];
  if (!id || positionals.length > 1)
    throw new CliError('give one case id (hc_...)', 2, [{ path: '<id>', message: 'is required' }]);
  const timeout = waitSeconds(values.timeout);
  const client = clientFromEnv(ctx.env, values['relay-url']);
  const requireApproval = values['require-approval'] === true;
  const wait = values.wait === true || requireApproval;
  const view = wait
    ? await client.wait(id, timeout === undefined ? {} : { timeoutMs: timeout * 1000 })
    : await client.get(id);
  if (values.json)
    ctx.io.out(`${JSON.stringify({ ...view, approval: outcomeOf(view).approval }, null, 2)}\n`);
  else ctx.io.out(wait ? `${formatCase(view)}${verdictLine(view)}\n` : formatCase(view));
  return wait ? waitExitCode(view, requireApproval) : 0;
}

/** Runs cases. */
export async function casesCommand(args: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      open: { type: 'boolean' },
      limit: { type: 'string' },
      json: { type: 'boolean' },
      'relay-url': { type: 'string' },
    },
  });
  if (positionals.length) throw new CliError(`unexpected argument "${positionals[0]}"`, 2);
  const limit = values.limit === undefined ? undefined : Number(values.limit);
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1 || limit > 500))
    throw new CliError('--limit must be a whole number from 1 to 500', 2, [
      { path: '--limit', message: 'must be a whole number from 1 to 500' },
    ]);
  const client = clientFromEnv(ctx.env, values['relay-url']);
  const cases = await client.list({
    ...(values.open ? { open: true } : {}),
    ...(limit !== undefined ? { limit } : {}),
  });
  ctx.io.out(values.json ? `${JSON.stringify({ cases }, null, 2)}\n` : formatCases(cases));
  return 0;
}
