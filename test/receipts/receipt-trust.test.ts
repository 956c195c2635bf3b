/**
 * Receipts are verified against a trust anchor (issue 32, item 2): a receipt re-signed with a fresh
 * key carries that key inside it, so checking the signature against the embedded key alone proves
 * nothing about who signed. Offline `hitl-relay verify` without --key-id, --key or --relay never
 * says "valid"; --case and the library call check the receipt is for the expected case.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.ts';
import { createSigner } from '../../src/receipts/keys.ts';
import { historyChain, RECEIPT_FORMAT, type ReceiptBody } from '../../src/receipts/receipt.ts';
import { verifyReceipt } from '../../src/receipts/verify.ts';

const dir = mkdtempSync(join(tmpdir(), 'hitl-receipt-trust-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const entries = [
  { at: '2026-11-30T10:00:00.000Z', kind: 'ingested', detail: { target: 'slack:C1' } },
  { at: '2026-11-30T10:01:00.000Z', kind: 'status', detail: { from: 'pending', to: 'completed' } },
];

function body(action: string, id = 'hc_1'): ReceiptBody {
  return {
    format: RECEIPT_FORMAT,
    issued_at: '2026-11-30T10:01:02.000Z',
    instance: 'relay-1',
    case: {
      id,
      case_id: `c-${id}`,
      service: 'https://svc.example',
      target: 'slack:C1',
      type: 'approval',
      prompt: 'Deploy?',
      status: 'completed',
      status_at: '2026-11-30T10:01:01.000Z',
      confirmed: true,
    },
    content_sha256: 'a'.repeat(64),
    card_sha256: 'b'.repeat(64),
    actions: ['approve', 'reject'],
    actors: [],
    decision: { result: { action }, submitted_by: null, responded_by: null, votes: [] },
    policy: null,
    history: { count: entries.length, chain_sha256: historyChain(entries), entries },
  };
}

const relayKey = createSigner(generateKeyPairSync('ed25519').privateKey);
const attackerKey = createSigner(generateKeyPairSync('ed25519').privateKey);

function file(name: string, value: unknown): string {
  const path = join(dir, name);
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value));
  return path;
}

async function cli(args: string[]) {
  let out = '';
  const io = {
    out: (t: string) => {
      out += t;
    },
    err: (t: string) => {
      out += t;
    },
  };
  const code = await main(args, { io, env: {}, stdin: async () => '' });
  return { code, out };
}

describe('receipt trust anchors', () => {
  const genuine = file('genuine.json', relayKey.sign(body('reject')));
  // The attack of the report: the decision flipped and the receipt re-signed with a fresh key.
  const forged = file('forged.json', attackerKey.sign(body('approve')));
  const jwks = file('keys.json', { keys: [relayKey.publicJwk] });

  it('RECEIPT-TRUST-1: offline verify without a trust anchor never calls a receipt valid, forged or not', async () => {
    for (const path of [genuine, forged]) {
      const r = await cli(['verify', path]);
      expect(r.code).not.toBe(0);
      expect(r.out).toMatch(/signature consistent with the embedded key, signer not verified/);
      expect(r.out).not.toMatch(/^valid/m);
    }
    const json = await cli(['verify', forged, '--json']);
    expect(json.code).not.toBe(0);
    expect(JSON.parse(json.out)).toMatchObject({ valid: false, signer_verified: false });
  });

  it('RECEIPT-TRUST-2: a key id or a key file is a trust anchor: the genuine receipt is valid, the forged one is not', async () => {
    const kid = relayKey.publicJwk.kid;
    expect(await cli(['verify', genuine, `--key-id=${kid}`])).toMatchObject({
      code: 0,
      out: expect.stringMatching(/^valid: /),
    });
    expect(await cli(['verify', forged, `--key-id=${kid}`])).toMatchObject({
      code: 1,
      out: expect.stringMatching(/^INVALID: .*expected/),
    });
    expect(await cli(['verify', genuine, '--key', jwks])).toMatchObject({ code: 0 });
    expect(await cli(['verify', forged, '--key', jwks])).toMatchObject({
      code: 1,
      out: expect.stringMatching(/not one of the trusted keys/),
    });
    const pem = file('key.pem', pemOf(relayKey.publicJwk.x));
    expect(await cli(['verify', genuine, '--key', pem])).toMatchObject({ code: 0 });
    expect(await cli(['verify', forged, '--key', pem])).toMatchObject({ code: 1 });
    expect(
      await cli(['verify', genuine, '--key', file('bad.json', '{"keys":[{}]}')]),
    ).toMatchObject({
      code: 2,
      out: expect.stringMatching(/bad\.json/),
    });
  });

  it('RECEIPT-TRUST-3: --case (and the library call) refuses a genuine receipt of another case', async () => {
    const kid = relayKey.publicJwk.kid;
    expect(await cli(['verify', genuine, `--key-id=${kid}`, '--case', 'hc_1'])).toMatchObject({
      code: 0,
    });
    expect(await cli(['verify', genuine, `--key-id=${kid}`, '--case', 'c-hc_1'])).toMatchObject({
      code: 0,
    });
    expect(await cli(['verify', genuine, `--key-id=${kid}`, '--case', 'hc_2'])).toMatchObject({
      code: 1,
      out: expect.stringMatching(/is for case hc_1 .*not hc_2/),
    });
    const other = relayKey.sign(body('approve', 'hc_2'));
    expect(verifyReceipt(other, { trusted: [relayKey.publicJwk], caseId: 'hc_2' })).toEqual({
      valid: true,
      signer_verified: true,
      problems: [],
    });
    expect(verifyReceipt(other, { trusted: [relayKey.publicJwk], caseId: 'hc_1' })).toMatchObject({
      valid: false,
      problems: [expect.stringMatching(/not hc_1/)],
    });
    expect(verifyReceipt(other, {})).toMatchObject({ valid: false, signer_verified: false });
    expect(
      verifyReceipt(attackerKey.sign(body('approve')), { trusted: [relayKey.publicJwk] }),
    ).toMatchObject({ valid: false, signer_verified: false });
  });
});

/** The SPKI PEM of a raw Ed25519 public key (what `openssl pkey -pubout` writes). */
function pemOf(x: string): string {
  const der = Buffer.concat([
    Buffer.from('302a300506032b6570032100', 'hex'),
    Buffer.from(x, 'base64url'),
  ]);
  return `-----BEGIN PUBLIC KEY-----\n${der.toString('base64')}\n-----END PUBLIC KEY-----\n`;
}
