/** Review and submit tokens (spec 7): random, stored only as SHA-256 hashes, compared in constant time. */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/** A fresh 256-bit token, base64url (43 characters). */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** The SHA-256 digest stored in place of a token. */
export function hashToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/**
 * Whether `token` is the one behind `hash`. Each call site passes the one hash meant for its
 * purpose (review page or inline submit), so one token can never stand in for the other.
 */
export function tokenMatches(token: string | undefined | null, hash: Buffer | null): boolean {
  if (!token || !hash) return false;
  const candidate = hashToken(token);
  return candidate.length === hash.length && timingSafeEqual(candidate, hash);
}

/**
 * The submit token handed to the asking agent when the relay keeps its own (`relayToken`): derived
 * from it (HMAC), so the relay can give the same 202 again without storing the agent's token,
 * while the agent's token never yields the relay's.
 */
export function agentTokenOf(relayToken: string): string {
  return createHmac('sha256', relayToken)
    .update('hitl-relay agent submit token')
    .digest('base64url');
}

/** A case id: `review_` plus 96 random bits, URL-safe. */
export function newCaseId(): string {
  return `review_${randomBytes(12).toString('hex')}`;
}
