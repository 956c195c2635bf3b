/** Short random ids and the signature of a Details link. */
import { createHmac, randomBytes } from 'node:crypto';

/** The signature part of a Details link. */
export function linkSignature(key: string, caseKey: string): string {
  return createHmac('sha256', key).update(`details:${caseKey}`).digest('base64url').slice(0, 22);
}

/** A short random id. */
export function randomId(bytes: number): string {
  return randomBytes(bytes).toString('base64url');
}
