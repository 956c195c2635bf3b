/**
 * Seals case secrets (submit_token, review_url) at rest. With RELAY_SECRET_KEY set they are
 * encrypted with AES-256-GCM under a key derived by HKDF-SHA256; without it they are stored as
 * plain JSON (the README says so), which is what a local, single-user setup gets.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { CaseSecrets } from './types.ts';

/** Seals and opens CaseSecrets. */
export interface Sealer {
  seal(secrets: CaseSecrets): string;
  open(sealed: string): CaseSecrets;
}

/** A sealer for `secretKey` (any string of 16+ characters), or a plain one when it is undefined. */
export function createSealer(secretKey: string | undefined): Sealer {
  if (!secretKey) {
    return {
      seal: (s) => `plain:${JSON.stringify(s)}`,
      open: (sealed) => {
        if (!sealed.startsWith('plain:'))
          throw new Error('case secrets are encrypted: set RELAY_SECRET_KEY');
        return JSON.parse(sealed.slice(6));
      },
    };
  }
  const key = Buffer.from(hkdfSync('sha256', secretKey, 'hitl-relay', 'case-secrets v1', 32));
  return {
    seal(s) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(JSON.stringify(s), 'utf8'), cipher.final()]);
      return `v1:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
    },
    open(sealed) {
      if (sealed.startsWith('plain:')) return JSON.parse(sealed.slice(6));
      const raw = Buffer.from(sealed.slice(3), 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
      decipher.setAuthTag(raw.subarray(12, 28));
      return JSON.parse(
        Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8'),
      );
    },
  };
}
