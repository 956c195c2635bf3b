/**
 * The receipt signing key: RECEIPT_SIGNING_KEY (a PKCS#8 PEM Ed25519 private key, or its 32-byte
 * seed in base64url or hex), else one generated on first start and kept in the store, sealed under
 * RELAY_SECRET_KEY, so every replica and restart signs with the same key.
 */
import { createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import type { KeyValue } from '../adapter.ts';
import { createTextSealer } from '../store/sealer.ts';
import { keyId, type Receipt, type ReceiptBody, rawPublicKey, signReceipt } from './receipt.ts';

/** Signs receipt bodies; knows its public key. */
export interface ReceiptSigner {
  sign(body: ReceiptBody): Receipt;
  /** The public key as a JWK (OKP, Ed25519) with its key id. */
  publicJwk: { kty: 'OKP'; crv: 'Ed25519'; x: string; kid: string; alg: 'EdDSA'; use: 'sig' };
}

const KV_KEY = 'receipt:signing-key';
// PKCS#8 DER prefix of an Ed25519 private key; the 32-byte seed follows.
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** Reads a configured key; throws a message naming RECEIPT_SIGNING_KEY when it is not one. */
export function parseSigningKey(text: string): KeyObject {
  const fail = (why: string) =>
    new Error(`RECEIPT_SIGNING_KEY: ${why} (give a PKCS#8 PEM Ed25519 key or its 32-byte seed)`);
  let key: KeyObject;
  if (text.includes('-----BEGIN')) {
    try {
      key = createPrivateKey(text);
    } catch {
      throw fail('not a readable PEM private key');
    }
  } else {
    const seed = /^[0-9a-f]{64}$/i.test(text)
      ? Buffer.from(text, 'hex')
      : Buffer.from(text, 'base64url');
    if (seed.length !== 32) throw fail(`the seed is ${seed.length} bytes, not 32`);
    key = createPrivateKey({
      key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]),
      format: 'der',
      type: 'pkcs8',
    });
  }
  if (key.asymmetricKeyType !== 'ed25519') throw fail(`a ${key.asymmetricKeyType} key`);
  return key;
}

/** The signing key from the configuration, else the stored one (generated once). */
export async function loadSigningKey(
  configured: string | undefined,
  secretKey: string | undefined,
  kv: KeyValue,
): Promise<KeyObject> {
  if (configured) return parseSigningKey(configured);
  const sealer = createTextSealer(secretKey, 'receipt-signing-key v1');
  const fresh = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' });
  await kv.setIfAbsent(KV_KEY, sealer.seal(String(fresh)));
  const sealed = await kv.get(KV_KEY);
  if (!sealed) throw new Error('the receipt signing key could not be stored');
  try {
    return createPrivateKey(sealer.open(sealed));
  } catch {
    throw new Error(
      'the stored receipt signing key cannot be opened: RELAY_SECRET_KEY differs from the one it was sealed with',
    );
  }
}

/** A signer for a private key. */
export function createSigner(privateKey: KeyObject): ReceiptSigner {
  const raw = rawPublicKey(privateKey);
  return {
    sign: (body) => signReceipt(body, privateKey),
    publicJwk: {
      kty: 'OKP',
      crv: 'Ed25519',
      x: raw.toString('base64url'),
      kid: keyId(raw),
      alg: 'EdDSA',
      use: 'sig',
    },
  };
}
