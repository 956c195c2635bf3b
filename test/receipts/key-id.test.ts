/**
 * Key ids never start with '-' (a command line would read `--key-id -abc…` as an option), and a
 * receipt signed under an old '-' id still verifies against either form of it.
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSigner, parseSigningKey } from '../../src/receipts/keys.ts';
import {
  historyChain,
  keyId,
  legacyKeyId,
  RECEIPT_FORMAT,
  type Receipt,
  type ReceiptBody,
  rawPublicKey,
  receiptProblem,
} from '../../src/receipts/receipt.ts';
import { verifyReceipt } from '../../src/receipts/verify.ts';

/** Deterministic 32-byte seeds: the same keys on every run. */
const seed = (i: number) => createHash('sha256').update(`kid-seed-${i}`).digest().toString('hex');

/** The first deterministic key whose old-style id starts with '-'. */
function dashKey() {
  for (let i = 0; i < 10_000; i++) {
    const key = parseSigningKey(seed(i));
    if (legacyKeyId(rawPublicKey(key)).startsWith('-')) return key;
  }
  throw new Error('no key with a "-" id in 10,000 seeds');
}

const body: ReceiptBody = {
  format: RECEIPT_FORMAT,
  issued_at: '2026-12-03T10:00:00.000Z',
  instance: 't',
  case: {
    id: 'hc_1',
    case_id: 'c1',
    service: 'https://svc.example',
    target: 'web:ops',
    type: 'approval',
    prompt: 'Deploy?',
    status: 'completed',
    status_at: '2026-12-03T10:00:00.000Z',
    confirmed: true,
  },
  content_sha256: 'a'.repeat(64),
  card_sha256: 'b'.repeat(64),
  actions: ['approve'],
  actors: [],
  decision: { result: { action: 'approve' }, submitted_by: null, responded_by: null, votes: [] },
  policy: null,
  history: { count: 0, chain_sha256: historyChain([]), entries: [] },
};

describe('receipt key ids', () => {
  it("KEYID-1: no key id starts with '-' (2,000 deterministic public keys, some '-' by the old rule)", () => {
    let oldDash = 0;
    for (let i = 0; i < 2000; i++) {
      const raw = createHash('sha256').update(`raw-${i}`).digest();
      if (legacyKeyId(raw).startsWith('-')) oldDash++;
      expect(keyId(raw)).not.toMatch(/^-/);
    }
    expect(oldDash).toBeGreaterThan(0);
    expect(createSigner(dashKey()).publicJwk.kid).toMatch(/^k-/);
  });

  it('KEYID-2: an id that did not start with "-" is unchanged; one that did gets a "k" before it', () => {
    const raw = rawPublicKey(dashKey());
    expect(keyId(raw)).toBe(`k${legacyKeyId(raw)}`);
    const plain = rawPublicKey(parseSigningKey(seed(0)));
    if (!legacyKeyId(plain).startsWith('-')) expect(keyId(plain)).toBe(legacyKeyId(plain));
  });

  it('KEYID-3: a receipt signed under the old "-" id verifies against either form; a new one too', () => {
    const signer = createSigner(dashKey());
    const fresh = signer.sign(body);
    expect(fresh.signature.key_id).toMatch(/^k-/);
    const old: Receipt = {
      ...fresh,
      signature: { ...fresh.signature, key_id: fresh.signature.key_id.slice(1) },
    };
    for (const r of [fresh, old]) {
      expect(receiptProblem(r)).toBeNull();
      for (const kid of [fresh.signature.key_id, old.signature.key_id]) {
        expect(receiptProblem(r, kid)).toBeNull();
        expect(verifyReceipt(r, { trusted: [{ kid }] })).toMatchObject({ valid: true });
      }
    }
    // Another id is still refused.
    const other = {
      ...fresh,
      signature: { ...fresh.signature, key_id: 'kAAAAAAAAAAAAAAAAAAAAAA' },
    };
    expect(receiptProblem(other)).toMatch(/key_id does not match/);
  });
});
