/** Receipts as data: signing, offline verification, the history chain, and tamper detection. */
import { generateKeyPairSync } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createSigner, parseSigningKey } from '../../src/receipts/keys.ts';
import {
  historyChain,
  historyProblem,
  RECEIPT_FORMAT,
  type ReceiptBody,
  receiptProblem,
} from '../../src/receipts/receipt.ts';

const entries = [
  {
    at: '2026-11-30T10:00:00.000Z',
    kind: 'ingested',
    detail: { target: 'web:ops', case_id: 'c1' },
  },
  {
    at: '2026-11-30T10:01:00.000Z',
    kind: 'tap',
    detail: { platform: 'web', user: 'ann', name: 'Ann' },
  },
  {
    at: '2026-11-30T10:01:01.000Z',
    kind: 'status',
    detail: { from: 'pending', to: 'completed', source: 'submit', action: 'approve' },
  },
];

function body(): ReceiptBody {
  return {
    format: RECEIPT_FORMAT,
    issued_at: '2026-11-30T10:01:02.000Z',
    instance: 'test-1',
    case: {
      id: 'hc_1',
      case_id: 'c1',
      service: 'https://svc.example',
      target: 'web:ops',
      type: 'approval',
      prompt: 'Deploy v2 to production? — «ünïcödé» 🚀',
      status: 'completed',
      status_at: '2026-11-30T10:01:01.000Z',
      confirmed: true,
    },
    content_sha256: 'a'.repeat(64),
    card_sha256: 'b'.repeat(64),
    actions: ['approve', 'reject'],
    actors: [{ at: entries[1]!.at, platform: 'web', user_id: 'ann', name: 'Ann', kind: 'tap' }],
    decision: {
      result: { action: 'approve', data: { n: 1.5 } },
      submitted_by: null,
      responded_by: null,
      votes: [],
    },
    policy: null,
    history: { count: entries.length, chain_sha256: historyChain(entries), entries },
  };
}

const signer = createSigner(generateKeyPairSync('ed25519').privateKey);

describe('receipts', () => {
  it('a signed receipt verifies, also after a JSON round trip and with its key id', () => {
    const r = signer.sign(body());
    expect(receiptProblem(r)).toBeNull();
    expect(receiptProblem(JSON.parse(JSON.stringify(r, null, 2)))).toBeNull();
    expect(receiptProblem(r, signer.publicJwk.kid)).toBeNull();
    expect(receiptProblem(r, 'some-other-key')).toMatch(/expected some-other-key/);
  });

  it('fails when any byte of the serialized receipt is changed', () => {
    const text = JSON.stringify(signer.sign(body()));
    fc.assert(
      fc.property(
        fc.nat({ max: text.length - 1 }),
        fc.constantFrom(...'0123456789abcdefABCDEF_-":,{}[]xyz'.split('')),
        (i, ch) => {
          fc.pre(text[i] !== ch);
          const changed = `${text.slice(0, i)}${ch}${text.slice(i + 1)}`;
          let parsed: unknown;
          try {
            parsed = JSON.parse(changed);
          } catch {
            return; // not a receipt any more: nothing to accept
          }
          expect(receiptProblem(parsed)).not.toBeNull();
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('a receipt signed by another key with this key id, or re-signed with another key, is refused', () => {
    const r = signer.sign(body());
    const other = createSigner(generateKeyPairSync('ed25519').privateKey).sign(body());
    expect(
      receiptProblem({ ...other, signature: { ...other.signature, key_id: r.signature.key_id } }),
    ).toMatch(/key_id/);
    expect(receiptProblem(other, r.signature.key_id)).toMatch(/expected/);
  });

  it('the stored history must chain to what the receipt covered; later rows are not covered', () => {
    const r = signer.sign(body());
    expect(historyProblem(r, entries)).toBeNull();
    expect(historyProblem(r, [...entries, { at: 'x', kind: 'posted', detail: {} }])).toBeNull();
    const altered = structuredClone(entries);
    altered[1]!.detail.user = 'mallory';
    expect(historyProblem(r, altered)).toMatch(/differs/);
    expect(historyProblem(r, entries.slice(0, 2))).toMatch(/covers 3/);
    expect(historyProblem(r, [entries[0]!, entries[2]!, entries[1]!])).toMatch(/differs/);
  });

  it('reads RECEIPT_SIGNING_KEY as a PEM or a 32-byte seed, and names the variable when it is wrong', () => {
    const key = generateKeyPairSync('ed25519').privateKey;
    const pem = String(key.export({ format: 'pem', type: 'pkcs8' }));
    const fromPem = createSigner(parseSigningKey(pem));
    expect(fromPem.publicJwk.kid).toBe(createSigner(key).publicJwk.kid);
    const seed = 'ab'.repeat(32);
    expect(createSigner(parseSigningKey(seed)).publicJwk.kid).toBe(
      createSigner(parseSigningKey(Buffer.from(seed, 'hex').toString('base64url'))).publicJwk.kid,
    );
    expect(() => parseSigningKey('c2hvcnQ')).toThrow(/RECEIPT_SIGNING_KEY: the seed is 5 bytes/);
    const rsa = generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey;
    expect(() => parseSigningKey(String(rsa.export({ format: 'pem', type: 'pkcs8' })))).toThrow(
      /RECEIPT_SIGNING_KEY: a rsa key/,
    );
  });
});
