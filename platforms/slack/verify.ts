/** Slack request signatures: `v0=` + hex HMAC-SHA256(signing secret, `v0:${timestamp}:${rawBody}`). */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Slack's replay window: a request whose timestamp is further than this from now is refused. */
export const SLACK_SIGNATURE_MAX_AGE_MS = 5 * 60 * 1000;

/** Why a request was refused (for a debug log line; never shown to the caller). */
export type SlackVerifyFailure = 'missing_headers' | 'bad_timestamp' | 'stale' | 'bad_signature';

/**
 * Checks `x-slack-signature` and `x-slack-request-timestamp` over the raw body, the same algorithm
 * as Bolt's verifySlackRequest, also refusing timestamps from more than 5 minutes in the future.
 * `headers` has lower-case names.
 */
export function verifySlackSignature(args: {
  signingSecret: string;
  headers: Record<string, string | undefined>;
  rawBody: Buffer | string;
  nowMs: number;
}): { ok: true } | { ok: false; reason: SlackVerifyFailure } {
  const signature = args.headers['x-slack-signature'];
  const timestamp = args.headers['x-slack-request-timestamp'];
  if (!signature || !timestamp) return { ok: false, reason: 'missing_headers' };
  if (!/^\d{1,12}$/.test(timestamp)) return { ok: false, reason: 'bad_timestamp' };
  if (Math.abs(args.nowMs - Number(timestamp) * 1000) > SLACK_SIGNATURE_MAX_AGE_MS) {
    return { ok: false, reason: 'stale' };
  }
  const expected = Buffer.from(
    `v0=${createHmac('sha256', args.signingSecret)
      .update(`v0:${timestamp}:`)
      .update(args.rawBody)
      .digest('hex')}`,
  );
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { ok: false, reason: 'bad_signature' };
  }
  return { ok: true };
}
