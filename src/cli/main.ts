/**
 * The command line: serve, send, status, cases. Exit codes: 0 ok (with --require-approval: approved),
 * 1 failed or not approved, 2 usage, 3 not final after --wait, 4 expired (with --require-approval).
 */
import type { CliContext } from './context.ts';
import { MCP_USAGE } from './mcp-usage.ts';
import { CliError, printError } from './output.ts';
import { SEND_USAGE, sendCommand } from './send.ts';
import { casesCommand, STATUS_USAGE, statusCommand } from './status.ts';
import { VERIFY_USAGE, verifyCommand } from './verify.ts';

/** The top-level usage text. */
export const USAGE = `usage: hitl-relay <command> [options]

  serve                          start the relay (configuration from the environment; see docs/configuration.md)
  send --to <target> [file|-]    send a HITL 202 body or hitl object to the relay
  status <id>                    show a case (--wait to wait for its end)
  cases [--open]                 list recent cases
  verify <receipt.json>          check a signed decision receipt (--relay: against the stored history)
  mcp [--relay <url>]            the relay's MCP server on stdio, for MCP clients that spawn a process

  send --require-approval gates a script: exit 0 approved, 1 not approved, 3 still open, 4 expired.
  --json prints JSON for scripts. The relay is $RELAY_URL (default http://127.0.0.1:8787),
  with RELAY_API_KEY when it has one. "hitl-relay <command> --help" for a command's options.`;

const COMMANDS: Record<
  string,
  { usage: string; run(args: string[], ctx: CliContext): Promise<number> }
> = {
  send: { usage: SEND_USAGE, run: sendCommand },
  status: { usage: STATUS_USAGE, run: statusCommand },
  cases: { usage: STATUS_USAGE, run: casesCommand },
  verify: { usage: VERIFY_USAGE, run: verifyCommand },
  mcp: { usage: MCP_USAGE, run: async () => 0 },
};

/** Runs one command line; returns the exit code, or -1 when the process should keep running (serve). */
export async function main(argv: string[], ctx: CliContext): Promise<number> {
  const [command, ...args] = argv;
  if (command === 'mcp' && !args.includes('--help')) {
    await (await import('./mcp.ts')).mcpCommand(args, ctx);
    return 0;
  }
  if (command === 'serve') {
    await (await import('./serve.ts')).serveCommand();
    return -1;
  }
  if (!command || command === '--help' || command === '-h' || command === 'help') {
    ctx.io.out(`${USAGE}\n`);
    return 0;
  }
  const c = COMMANDS[command];
  if (!c) {
    ctx.io.err(`hitl-relay: unknown command "${command}"\n\n${USAGE}\n`);
    return 2;
  }
  if (args.includes('--help') || args.includes('-h')) {
    ctx.io.out(`${c.usage}\n`);
    return 0;
  }
  const json = args.includes('--json');
  try {
    return await c.run(args, ctx);
  } catch (err) {
    // parseArgs reports unknown or malformed options as TypeErrors with an ERR_PARSE_ARGS_ code.
    const usage = (err as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS');
    const code = printError(
      ctx.io,
      command,
      usage ? new CliError((err as Error).message, 2) : err,
      json,
    );
    if (usage && !json) ctx.io.err(`\n${c.usage}\n`);
    return code;
  }
}
