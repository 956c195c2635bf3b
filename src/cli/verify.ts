/**
 * `hitl-relay verify <receipt.json>`: checks a decision receipt offline (signature, key id, history
 * chain). With --relay it also asks the relay for its published key and for the case's stored
 * history, and fails when that history no longer matches what the receipt covered.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import {
  historyProblem,
  type Receipt,
  type ReceiptHistoryEntry,
  receiptProblem,
} from '../receipts/receipt.ts';
import type { CliContext } from './context.ts';
import { CliError } from './output.ts';

/** Usage of verify. */
export const VERIFY_USAGE = `usage: hitl-relay verify <receipt.json|-> [--key-id <id>] [--relay] [--relay-url <url>] [--json]

  Offline: checks the Ed25519 signature, the key id and the history hash chain.
  --key-id   the key id the receipt must be signed with (the relay publishes it at
             /.well-known/hitl-relay/receipt-keys.json)
  --relay    also fetch that key and the case's stored history from the relay ($RELAY_URL,
             RELAY_API_KEY) and check the stored history still matches the receipt
  Exit codes: 0 valid, 1 invalid, 2 usage.`;

/** Runs verify. */
export async function verifyCommand(args: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      'key-id': { type: 'string' },
      relay: { type: 'boolean' },
      'relay-url': { type: 'string' },
      json: { type: 'boolean' },
    },
  });
  const file = positionals[0];
  if (!file || positionals.length > 1)
    throw new CliError('give one receipt file (or - for standard input)', 2, [
      { path: '<receipt.json>', message: 'is required' },
    ]);
  const text = file === '-' ? await ctx.stdin() : await readFile(file, 'utf8').catch(() => null);
  if (text === null) throw new CliError(`cannot read ${file}`, 2);
  let receipt: Receipt;
  try {
    receipt = JSON.parse(text) as Receipt;
  } catch {
    return report(ctx, values.json, ['the file is not JSON']);
  }
  const problems: string[] = [];
  const offline = receiptProblem(receipt, values['key-id']);
  if (offline) problems.push(offline);
  if (!offline && (values.relay || values['relay-url'])) {
    const base = (
      values['relay-url'] ??
      ctx.env.RELAY_URL ??
      `http://127.0.0.1:${ctx.env.PORT || 8787}`
    ).replace(/\/+$/, '');
    const headers: Record<string, string> = { accept: 'application/json' };
    if (ctx.env.RELAY_API_KEY) headers.authorization = `Bearer ${ctx.env.RELAY_API_KEY}`;
    const get = async (path: string) => {
      const res = await fetch(`${base}${path}`, { headers }).catch((err: Error) => {
        throw new CliError(`cannot reach the relay at ${base}: ${err.message}`);
      });
      if (!res.ok) throw new CliError(`the relay answered ${res.status} to GET ${path}`);
      return res.json();
    };
    const keys = (await get('/.well-known/hitl-relay/receipt-keys.json')) as {
      keys: Array<{ kid: string }>;
    };
    if (!keys.keys.some((k) => k.kid === receipt.signature.key_id))
      problems.push(`the relay at ${base} does not publish key ${receipt.signature.key_id}`);
    const stored = (await get(
      `/v1/cases/${encodeURIComponent(receipt.receipt.case.id)}/receipt/history`,
    )) as { entries: ReceiptHistoryEntry[] };
    const h = historyProblem(receipt, stored.entries);
    if (h) problems.push(h);
  }
  return report(ctx, values.json, problems, receipt);
}

function report(
  ctx: CliContext,
  json: boolean | undefined,
  problems: string[],
  r?: Receipt,
): number {
  const ok = problems.length === 0;
  if (json) ctx.io.out(`${JSON.stringify({ valid: ok, problems }, null, 2)}\n`);
  else if (ok && r) {
    const c = r.receipt.case;
    const action = (r.receipt.decision.result as { action?: string } | null)?.action;
    ctx.io.out(
      `valid: case ${c.id} (${c.case_id}) ${c.status}${action ? ` (${action})` : ''}${c.confirmed ? '' : ', not confirmed by the service'}; signed by key ${r.signature.key_id}\n`,
    );
  } else ctx.io.out(`INVALID: ${problems.join('; ')}\n`);
  return ok ? 0 : 1;
}
