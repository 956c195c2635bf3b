/** Short random ids and the signature of a Details link. */
import { createHmac, randomBytes } from 'node:crypto';

/** The signature part of a Details link. */
export function linkSignature(key: string, caseKey: string): string {
  return createHmac('sha256', key).update(`details:${caseKey}`).digest('base64url').slice(0, 22);
}

// Random bytes drawn 4 KiB at a time and each used once (as crypto.randomUUID does): a
// randomBytes call per id was 5 % of the relay's CPU per intake.
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let used = 0;

/** A short random id (`bytes` bytes from the CSPRNG, base64url). */
export function randomId(bytes: number): string {
  if (bytes > POOL_BYTES) return randomBytes(bytes).toString('base64url');
  if (used + bytes > pool.length) {
    pool = randomBytes(POOL_BYTES);
    used = 0;
  }
  const id = pool.toString('base64url', used, used + bytes);
  // Spent bytes are wiped, so the pool never holds an id already handed out.
  pool.fill(0, used, used + bytes);
  used += bytes;
  return id;
}
