/** Checks that an HTTP interaction really comes from Discord (Ed25519 over timestamp + raw body). */
import { verifyKey } from 'discord-interactions';

/**
 * How far the signed timestamp may be from our clock. Discord does not require this check; it stops
 * a captured request from being replayed later (interaction ids are also de-duplicated).
 */
export const DISCORD_SIGNATURE_MAX_AGE_SECONDS = 300;

/** The two headers Discord signs each interaction request with (lower-case, as the server gives them). */
export interface DiscordSignatureHeaders {
  'x-signature-ed25519'?: string;
  'x-signature-timestamp'?: string;
}

/**
 * True when `x-signature-ed25519` is the application's Ed25519 signature of
 * `x-signature-timestamp + rawBody` and the timestamp is recent.
 */
export async function verifyDiscordRequest(
  headers: Record<string, string | undefined>,
  rawBody: Buffer,
  publicKeyHex: string,
  nowMs: number = Date.now(),
): Promise<boolean> {
  const signature = headers['x-signature-ed25519'];
  const timestamp = headers['x-signature-timestamp'];
  if (
    !signature ||
    !timestamp ||
    !/^[0-9a-f]{128}$/i.test(signature) ||
    !/^\d{1,12}$/.test(timestamp)
  ) {
    return false;
  }
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > DISCORD_SIGNATURE_MAX_AGE_SECONDS) return false;
  return verifyKey(rawBody, signature, timestamp, publicKeyHex);
}
