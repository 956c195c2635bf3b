/**
 * Seals secrets at rest (case secrets: submit_token, review_url; the receipt signing key). With
 * RELAY_SECRET_KEY set they are encrypted with AES-256-GCM under a key derived by HKDF-SHA256 (one
 * key per purpose); without it they are stored as plain text (SECURITY.md says so), which is what a
 * local, single-user setup gets.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { CaseSecrets } from './types.ts';

/** Seals and opens CaseSecrets. */
export interface Sealer {
  seal(secrets: CaseSecrets): string;
  open(sealed: string): CaseSecrets;
  /** A text sealer under the same secret key, with a key derived for `purpose` (an adapter's own). */
  forPurpose(purpose: string): TextSealer;
}

/** Seals and opens one kind of text secret. */
export interface TextSealer {
  seal(text: string): string;
  open(sealed: string): string;
}

/** A text sealer for `secretKey` (16+ characters) and a purpose, or a plain one without a key. */
export function createTextSealer(secretKey: string | undefined, purpose: string): TextSealer {
  if (!secretKey) {
    return {
      seal: (s) => `plain:${s}`,
      open: (sealed) => {
        if (!sealed.startsWith('plain:'))
          throw new Error('secrets are encrypted: set RELAY_SECRET_KEY');
        return sealed.slice(6);
      },
    };
  }
  const key = Buffer.from(hkdfSync('sha256', secretKey, 'hitl-relay', purpose, 32));
  return {
    seal(s) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(s, 'utf8'), cipher.final()]);
      return `v1:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
    },
    open(sealed) {
      if (sealed.startsWith('plain:')) return sealed.slice(6);
      const raw = Buffer.from(sealed.slice(3), 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    },
  };
}

/** A sealer for case secrets under `secretKey` (any string of 16+ characters), or a plain one. */
export function createSealer(secretKey: string | undefined): Sealer {
  const text = createTextSealer(secretKey, 'case-secrets v1');
  return {
    seal: (s) => text.seal(JSON.stringify(s)),
    open: (sealed) => JSON.parse(text.open(sealed)),
    forPurpose: (purpose) => createTextSealer(secretKey, purpose),
  };
}
