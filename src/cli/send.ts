/** `hitl-relay send --to <target> [file|-]`: hands a 202 body (or a bare hitl object) to the relay. */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { outcomeOf } from '../client/outcome.ts';
import type { SendCaseInput } from '../client/relay-client.ts';
import { parse202Body, parseHitl } from '../protocol/hitl.ts';
import type { CliContext } from './context.ts';
import { clientFromEnv } from './env.ts';
import { CliError, formatCase, verdictLine, waitExitCode } from './output.ts';
import { waitSeconds } from './status.ts';

/** Usage of send. */
export const SEND_USAGE = `usage: hitl-relay send --to <target> [file|-] [options]

  Reads a HITL 202 body ({"status":"human_input_required","hitl":{...}}) or a bare hitl object
  from the file (or standard input) and sends it to the relay for <target>.

  --to <target>          web:<room>, telegram:<chat_id>, slack:<channel>, route:<name>, ...
  --notify-url <url>     the relay POSTs the signed case view there when the case ends
  --notify-on final|all  final (default) or every status change
  --label key=value      a label on the case (repeatable)
  --service-header "Name: value"
                         a header the service wants on its poll_url / events_url, e.g. the
                         Authorization of the original call (repeatable; stored sealed, sent only
                         to the case's own origin)
  --wait                 wait for the case to end and print the outcome and who decided
  --require-approval     wait, and exit 0 only when approved: 1 not approved (rejected,
                         cancelled, ...), 3 still open after --timeout, 4 expired
  --timeout <seconds>    with --wait: give up waiting after this long (exit 3 if not final)
  --json                 print JSON (the case view) instead of text
  --relay-url <url>      the relay (default: $RELAY_URL, else http://127.0.0.1:$PORT or :8787)`;

/** What a document read from a file is: a whole 202 body or a bare hitl object. */
export function toCaseInput(doc: unknown, target: string): SendCaseInput {
  const obj = doc !== null && typeof doc === 'object' && !Array.isArray(doc);
  const isBody = obj && ('hitl' in doc || 'status' in doc);
  // The same validation the relay runs, so a bad file is refused here with the same field paths.
  if (isBody) parse202Body(doc, 'response');
  else parseHitl(doc, 'hitl');
  return isBody ? { target, response: doc } : { target, hitl: doc };
}

async function readInput(
  file: string | undefined,
  ctx: CliContext,
): Promise<{ name: string; text: string }> {
  if (!file || file === '-') return { name: 'standard input', text: await ctx.stdin() };
  try {
    return { name: file, text: await readFile(file, 'utf8') };
  } catch (err) {
    throw new CliError(
      `cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
}

/** The options of send (node:util parseArgs: unknown options are refused). */
function parseSendArgs(args: string[]) {
  return parseArgs({
    args,
    allowPositionals: true,
    options: {
      to: { type: 'string' },
      'notify-url': { type: 'string' },
      'notify-on': { type: 'string' },
      label: { type: 'string', multiple: true },
      'service-header': { type: 'string', multiple: true },
      wait: { type: 'boolean' },
      'require-approval': { type: 'boolean' },
      timeout: { type: 'string' },
      json: { type: 'boolean' },
      'relay-url': { type: 'string' },
    },
  });
}

/** --notify-on: final, all or absent. */
function notifyOnOf(value: string | undefined): 'final' | 'all' | undefined {
  if (value !== undefined && value !== 'final' && value !== 'all')
    throw new CliError('--notify-on must be final or all', 2, [
      { path: '--notify-on', message: 'must be final or all' },
    ]);
  return value;
}

/** Each --label key=value. */
function labelsOf(values: string[]): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const l of values) {
    const i = l.indexOf('=');
    if (i < 1)
      throw new CliError(`--label ${l}: must look like key=value`, 2, [
        { path: '--label', message: 'must look like key=value' },
      ]);
    labels[l.slice(0, i)] = l.slice(i + 1);
  }
  return labels;
}

/** Each --service-header "Name: value". */
function serviceHeadersOf(values: string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const h of values) {
    const i = h.indexOf(':');
    if (i < 1 || !h.slice(i + 1).trim())
      throw new CliError('--service-header must look like "Name: value"', 2, [
        { path: '--service-header', message: 'must look like "Name: value"' },
      ]);
    headers[h.slice(0, i).trim()] = h.slice(i + 1).trim();
  }
  return headers;
}

/** The JSON document in the file (or standard input). */
async function readDocument(file: string | undefined, ctx: CliContext): Promise<unknown> {
  const { name, text } = await readInput(file, ctx);
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new CliError(`${name} is not JSON: ${(err as Error).message}`, 1, [
      { path: '(root)', message: 'must be a JSON object: a 202 body or a hitl object' },
    ]);
  }
}

/** Runs send; returns the exit code. */
export async function sendCommand(args: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parseSendArgs(args);
  if (!values.to)
    throw new CliError('--to <target> is required', 2, [{ path: '--to', message: 'is required' }]);
  if (positionals.length > 1) throw new CliError('give one file (or - for standard input)', 2);
  const notifyOn = notifyOnOf(values['notify-on']);
  const labels = labelsOf(values.label ?? []);
  const serviceHeaders = serviceHeadersOf(values['service-header'] ?? []);
  const timeout = waitSeconds(values.timeout);
  const input = toCaseInput(await readDocument(positionals[0], ctx), values.to);
  if (values['notify-url']) input.notify_url = values['notify-url'];
  if (notifyOn) input.notify_on = notifyOn;
  if (Object.keys(labels).length) input.labels = labels;
  if (Object.keys(serviceHeaders).length) input.service_auth = { headers: serviceHeaders };

  const client = clientFromEnv(ctx.env, values['relay-url']);
  const requireApproval = values['require-approval'] === true;
  const wait = values.wait === true || requireApproval;
  let view = await client.send(input);
  if (wait && !view.final)
    view = await client.wait(view.id, timeout === undefined ? {} : { timeoutMs: timeout * 1000 });
  if (values.json)
    ctx.io.out(
      `${JSON.stringify(wait ? { ...view, approval: outcomeOf(view).approval } : view, null, 2)}\n`,
    );
  else ctx.io.out(wait ? `${formatCase(view)}${verdictLine(view)}\n` : formatCase(view));
  return wait ? waitExitCode(view, requireApproval) : 0;
}
