/**
 * Webhook checks: every POST is signed `X-Hub-Signature-256: sha256=<hex HMAC-SHA256 of the raw
 * body with the app secret>`, compared in constant time; the subscription handshake echoes
 * `hub.challenge` only for the configured verify token.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export const WHATSAPP_SIGNATURE_HEADER = 'x-hub-signature-256';

/** The header value Meta sends for `rawBody` (tests and the fake sign with it). */
export function signBody(rawBody: Buffer | string, appSecret: string): string {
  return `sha256=${createHmac('sha256', appSecret).update(rawBody).digest('hex')}`;
}

/** True when `header` is the signature of exactly `rawBody` under `appSecret`. */
export function verifySignature(
  rawBody: Buffer,
  header: string | undefined,
  appSecret: string,
): boolean {
  if (!header || !/^sha256=[0-9a-f]{64}$/i.test(header.trim())) return false;
  const given = Buffer.from(header.trim().slice('sha256='.length).toLowerCase(), 'hex');
  const expected = createHmac('sha256', appSecret).update(rawBody).digest();
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Constant-time string comparison (the verify token of the handshake). */
export function sameSecret(given: string | null, expected: string): boolean {
  if (given === null) return false;
  const a = Buffer.from(given, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}
