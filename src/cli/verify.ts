/**
 * `hitl-relay verify <receipt.json>`: checks a decision receipt (signature, history chain) against a
 * trust anchor: a key id (--key-id), a key file (--key), or the relay's published key (--relay).
 * Without an anchor it never says "valid": a receipt carries its own public key, so anyone can
 * re-sign a changed one. With --relay it also checks the relay's stored history still matches.
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import {
  historyProblem,
  type Receipt,
  type ReceiptHistoryEntry,
  sameKeyId,
} from '../receipts/receipt.ts';
import {
  type ReceiptVerdict,
  type TrustedReceiptKey,
  trustedKeysFromText,
  verifyReceipt,
} from '../receipts/verify.ts';
import type { CliContext } from './context.ts';
import { CliError } from './output.ts';

/** Usage of verify. */
export const VERIFY_USAGE = `usage: hitl-relay verify <receipt.json|-> [--key-id=<id>] [--key <file>] [--relay] [--relay-url <url>] [--case <id>] [--json]

  Checks the Ed25519 signature and the history hash chain, and that the signer is a key you trust.
  A receipt carries its own public key, so without a trust anchor verify only says "signature
  consistent with the embedded key, signer not verified" and exits 3.
  --key-id   the key id the receipt must be signed with, as --key-id=ID (an old id may start
             with "-"; the relay publishes it at
             /.well-known/hitl-relay/receipt-keys.json)
  --key      a file with the trusted key: that receipt-keys.json, one JWK, or a PEM public key
  --relay    fetch the relay's published keys and the case's stored history ($RELAY_URL,
             RELAY_API_KEY) and check the stored history still matches the receipt
  --case     the case the receipt must be for (the relay's hc_… id or the service's case_id)
  Exit codes: 0 valid, 1 invalid, 2 usage, 3 signer not verified.`;

/** Runs verify. */
export async function verifyCommand(args: string[], ctx: CliContext): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      'key-id': { type: 'string' },
      key: { type: 'string' },
      relay: { type: 'boolean' },
      'relay-url': { type: 'string' },
      case: { type: 'string' },
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
  const trusted: TrustedReceiptKey[] = [];
  if (values['key-id']) trusted.push({ kid: values['key-id'] });
  if (values.key) trusted.push(...(await keyFile(values.key)));
  let receipt: Receipt;
  try {
    receipt = JSON.parse(text) as Receipt;
  } catch {
    return report(ctx, values.json, {
      valid: false,
      signer_verified: false,
      problems: ['the file is not JSON'],
    });
  }
  const online = values.relay || values['relay-url'] ? relayOf(values['relay-url'], ctx) : null;
  // The relay's published keys are an anchor only when no stricter one was given.
  if (online && trusted.length === 0) trusted.push(...(await online.keys()));
  const verdict = verifyReceipt(receipt, { trusted, caseId: values.case });
  if (online && verdict.valid) {
    const published = await online.keys();
    if (!published.some((k) => sameKeyId(k.kid, receipt.signature.key_id)))
      verdict.problems.push(
        `the relay at ${online.base} does not publish key ${receipt.signature.key_id}`,
      );
    const h = historyProblem(receipt, await online.history(receipt.receipt.case.id));
    if (h) verdict.problems.push(h);
    verdict.valid = verdict.problems.length === 0;
  }
  return report(ctx, values.json, verdict, receipt);
}

async function keyFile(path: string): Promise<TrustedReceiptKey[]> {
  const text = await readFile(path, 'utf8').catch(() => null);
  if (text === null) throw new CliError(`cannot read the key file ${path}`, 2);
  try {
    return trustedKeysFromText(text);
  } catch (err) {
    throw new CliError(`the key file ${path}: ${(err as Error).message}`, 2, [
      { path: '--key', message: (err as Error).message },
    ]);
  }
}

/** The relay's published keys and stored history, over HTTP. */
function relayOf(url: string | undefined, ctx: CliContext) {
  const base = (url ?? ctx.env.RELAY_URL ?? `http://127.0.0.1:${ctx.env.PORT || 8787}`).replace(
    /\/+$/,
    '',
  );
  const headers: Record<string, string> = { accept: 'application/json' };
  if (ctx.env.RELAY_API_KEY) headers.authorization = `Bearer ${ctx.env.RELAY_API_KEY}`;
  const get = async (path: string) => {
    const res = await fetch(`${base}${path}`, { headers }).catch((err: Error) => {
      throw new CliError(`cannot reach the relay at ${base}: ${err.message}`);
    });
    if (!res.ok) throw new CliError(`the relay answered ${res.status} to GET ${path}`);
    return res.json();
  };
  return {
    base,
    keys: async () => {
      const body = (await get('/.well-known/hitl-relay/receipt-keys.json')) as { keys: unknown[] };
      try {
        return trustedKeysFromText(JSON.stringify(body));
      } catch (err) {
        throw new CliError(
          `the relay at ${base} publishes no usable key: ${(err as Error).message}`,
        );
      }
    },
    history: async (id: string) =>
      (
        (await get(`/v1/cases/${encodeURIComponent(id)}/receipt/history`)) as {
          entries: ReceiptHistoryEntry[];
        }
      ).entries,
  };
}

function report(
  ctx: CliContext,
  json: boolean | undefined,
  v: ReceiptVerdict,
  r?: Receipt,
): number {
  const unverified = !v.valid && !v.signer_verified && v.problems.length === 1 && r !== undefined;
  const code = v.valid
    ? 0
    : unverified && v.problems[0]!.startsWith('signature consistent')
      ? 3
      : 1;
  if (json) ctx.io.out(`${JSON.stringify(v, null, 2)}\n`);
  else if (v.valid && r) {
    const c = r.receipt.case;
    const action = (r.receipt.decision.result as { action?: string } | null)?.action;
    ctx.io.out(
      `valid: case ${c.id} (${c.case_id}) ${c.status}${action ? ` (${action})` : ''}${c.confirmed ? '' : ', not confirmed by the service'}; signed by trusted key ${r.signature.key_id}\n`,
    );
  } else if (code === 3) ctx.io.out(`UNVERIFIED: ${v.problems[0]}\n`);
  else ctx.io.out(`INVALID: ${v.problems.join('; ')}\n`);
  return code;
}
