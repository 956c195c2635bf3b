/**
 * Verifying a receipt against a trust anchor. A receipt carries the public key that signed it, so
 * a signature checked against that embedded key only shows the receipt is intact: anyone can
 * re-sign a changed receipt with a fresh key. A receipt is valid only when it is signed by a key
 * the verifier already trusts (the relay's published key, a key file, or a key id) and is for the
 * case the verifier expects. Pure: no network, no clock.
 */
import { createPublicKey } from 'node:crypto';
import { keyId, type Receipt, receiptProblem, sameKeyId } from './receipt.ts';

/** A public key a receipt may be signed with: a key id, with the raw key (JWK `x`) when known. */
export interface TrustedReceiptKey {
  kid: string;
  x?: string;
}

/** What the verifier expects of a receipt. */
export interface ReceiptExpectations {
  /** The keys the signer must be one of. Without any, the signer is not verified. */
  trusted?: readonly TrustedReceiptKey[];
  /** The relay case id (`hc_…`) or the service's `case_id` the receipt must be for. */
  caseId?: string;
}

/** The verdict on a receipt. */
export interface ReceiptVerdict {
  /** True only when the receipt is intact, signed by a trusted key, and meets every expectation. */
  valid: boolean;
  /** Whether the signing key is one of the trusted keys (false without any trusted key). */
  signer_verified: boolean;
  problems: string[];
}

/** Said when the receipt is intact but nothing anchors who signed it. */
export const SIGNER_NOT_VERIFIED =
  'signature consistent with the embedded key, signer not verified (give --key-id, --key or --relay)';

/** Verifies a receipt: integrity, signer against the trusted keys, and the expected case. */
export function verifyReceipt(r: unknown, expect: ReceiptExpectations = {}): ReceiptVerdict {
  const intact = receiptProblem(r);
  if (intact) return { valid: false, signer_verified: false, problems: [intact] };
  const receipt = r as Receipt;
  const problems: string[] = [];
  const s = receipt.signature;
  const trusted = expect.trusted ?? [];
  const signerVerified = trusted.some(
    (k) => sameKeyId(k.kid, s.key_id) && (k.x === undefined || k.x === s.public_key),
  );
  if (trusted.length === 0) problems.push(SIGNER_NOT_VERIFIED);
  else if (!signerVerified)
    problems.push(
      `signed by key ${s.key_id}, not one of the trusted keys (expected ${trusted.map((k) => k.kid).join(', ')})`,
    );
  const c = receipt.receipt.case;
  if (expect.caseId !== undefined && expect.caseId !== c.id && expect.caseId !== c.case_id)
    problems.push(`the receipt is for case ${c.id} (${c.case_id}), not ${expect.caseId}`);
  return { valid: problems.length === 0, signer_verified: signerVerified, problems };
}

/**
 * The trusted keys in a key file: the relay's `receipt-keys.json` (`{ keys: [JWK] }`), one JWK, or
 * an SPKI PEM public key. Throws a message saying what is wrong with it.
 */
export function trustedKeysFromText(text: string): TrustedReceiptKey[] {
  if (text.includes('-----BEGIN')) {
    let raw: Buffer;
    try {
      const key = createPublicKey(text);
      if (key.asymmetricKeyType !== 'ed25519') throw new Error(`a ${key.asymmetricKeyType} key`);
      raw = Buffer.from(key.export({ format: 'jwk' }).x as string, 'base64url');
    } catch (err) {
      throw new Error(`not an Ed25519 public key in PEM (${(err as Error).message})`);
    }
    return [{ kid: keyId(raw), x: raw.toString('base64url') }];
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error('neither JSON nor a PEM public key');
  }
  const list = (json as { keys?: unknown })?.keys ?? [json];
  if (!Array.isArray(list) || list.length === 0) throw new Error('holds no key');
  return list.map((k, i) => jwkKey(k, i));
}

function jwkKey(k: unknown, i: number): TrustedReceiptKey {
  const j = k as { kty?: unknown; crv?: unknown; x?: unknown };
  if (j?.kty !== 'OKP' || j.crv !== 'Ed25519' || typeof j.x !== 'string')
    throw new Error(`keys[${i}] is not an Ed25519 JWK (kty OKP, crv Ed25519, x)`);
  const raw = Buffer.from(j.x, 'base64url');
  if (raw.length !== 32 || raw.toString('base64url') !== j.x)
    throw new Error(`keys[${i}].x is not 32 bytes of base64url`);
  // The key id is derived from the key, never taken from the file.
  return { kid: keyId(raw), x: j.x };
}
