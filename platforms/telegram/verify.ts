/** Telegram signs nothing; a webhook proves itself by echoing setWebhook's secret_token in a header. */
import { createHash, timingSafeEqual } from 'node:crypto';

/** The header Telegram sets on every webhook request (lower case, as the server hands headers over). */
export const TELEGRAM_SECRET_HEADER = 'x-telegram-bot-api-secret-token';

/** Compares the header with the configured secret in constant time (lengths included). */
export function verifySecretToken(header: string | undefined, secret: string): boolean {
  if (header === undefined || secret === '') return false;
  // Hashing first gives equal-length buffers, so neither the content nor the length leaks by timing.
  const given = createHash('sha256').update(header, 'utf8').digest();
  const wanted = createHash('sha256').update(secret, 'utf8').digest();
  return timingSafeEqual(given, wanted);
}
