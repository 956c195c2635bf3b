/**
 * Signatures of notify_url deliveries: `X-Hitl-Relay-Signature: t=<unix>,v1=<hex>` where the hex is
 * HMAC-SHA256 over "<t>.<raw body>" with the notify secret. The timestamp is signed with the body,
 * so a replayed delivery older than the receiver's tolerance is refused. A wire format of the relay's
 * own (what an agent's receiver checks), so it sits with the protocol: pure node:crypto, read by the
 * configuration (the derived secret), the notify worker (signing) and the client package (verifying).
 */
import { createHmac, hkdfSync, timingSafeEqual } from 'node:crypto';

/** The signature header (lower case, as Node reports header names). */
export const NOTIFY_SIGNATURE_HEADER = 'x-hitl-relay-signature';
/** The delivery id header: the same id on every retry of one delivery; de-duplicate on it. */
export const NOTIFY_DELIVERY_HEADER = 'x-hitl-relay-delivery';
/** The event header: the status the case reached ("completed", "expired", ...). */
export const NOTIFY_EVENT_HEADER = 'x-hitl-relay-event';
/** The timestamp header (unix seconds, the same `t` as in the signature). */
export const NOTIFY_TIMESTAMP_HEADER = 'x-hitl-relay-timestamp';
/** The attempt header (1 for the first try). Not signed: informational only. */
export const NOTIFY_ATTEMPT_HEADER = 'x-hitl-relay-attempt';

/** Default replay window of verifyNotifySignature. */
export const NOTIFY_TOLERANCE_SECONDS = 300;

/**
 * The notify secret derived from a key (RELAY_API_KEY, else RELAY_SECRET_KEY) when RELAY_NOTIFY_SECRET
 * is not set: HKDF-SHA256, so the agent holding the API key can compute it and nobody can go back.
 */
export function deriveNotifySecret(key: string): string {
  return Buffer.from(hkdfSync('sha256', key, 'hitl-relay', 'notify-signature-v1', 32)).toString(
    'hex',
  );
}

function hmac(secret: string, t: number, rawBody: string | Uint8Array): string {
  return createHmac('sha256', secret)
    .update(`${t}.`)
    .update(typeof rawBody === 'string' ? rawBody : Buffer.from(rawBody))
    .digest('hex');
}

/** The signature header value for `rawBody` at unix time `t`. */
export function signNotify(rawBody: string | Uint8Array, secret: string, t: number): string {
  return `t=${t},v1=${hmac(secret, t, rawBody)}`;
}

/** Why a signature was refused. */
export type NotifySignatureFailure = 'missing' | 'malformed' | 'too_old' | 'mismatch';

/** The verdict on a delivery's signature. */
export type NotifySignatureCheck =
  | { ok: true; timestamp: number }
  | { ok: false; reason: NotifySignatureFailure };

/**
 * Verifies a delivery: `rawBody` exactly as received (before any JSON parsing), the
 * X-Hitl-Relay-Signature header, and the notify secret. Refuses timestamps further than
 * `toleranceSeconds` (default 300) from now; several `v1=` entries are accepted (secret rotation).
 */
export function verifyNotifySignature(
  rawBody: string | Uint8Array,
  header: string | null | undefined,
  secret: string,
  options: { toleranceSeconds?: number; now?: number } = {},
): NotifySignatureCheck {
  if (!header) return { ok: false, reason: 'missing' };
  let t: number | undefined;
  const given: string[] = [];
  for (const part of header.split(',')) {
    const i = part.indexOf('=');
    const k = part.slice(0, i).trim();
    const v = part.slice(i + 1).trim();
    if (k === 't' && /^\d{1,12}$/.test(v)) t = Number(v);
    else if (k === 'v1' && /^[0-9a-f]{64}$/.test(v)) given.push(v);
  }
  if (t === undefined || !given.length) return { ok: false, reason: 'malformed' };
  const now = Math.floor((options.now ?? Date.now()) / 1000);
  if (Math.abs(now - t) > (options.toleranceSeconds ?? NOTIFY_TOLERANCE_SECONDS))
    return { ok: false, reason: 'too_old' };
  const expected = Buffer.from(hmac(secret, t, rawBody), 'hex');
  const match = given.some((g) => timingSafeEqual(Buffer.from(g, 'hex'), expected));
  return match ? { ok: true, timestamp: t } : { ok: false, reason: 'mismatch' };
}
