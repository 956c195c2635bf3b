/** The one place where @discordjs/rest errors become PlatformError. */
import { DiscordAPIError, HTTPError, RateLimitError } from '@discordjs/rest';
import { PlatformError, type PlatformErrorCode } from '../../src/errors.ts';
import { scrub } from '../../src/log.ts';

/** Discord JSON error codes we treat specially. */
export const DiscordErrorCode = {
  unknownChannel: 10003,
  unknownMessage: 10008,
  unknownWebhook: 10015,
  unknownInteraction: 10062,
  missingAccess: 50001,
  missingPermissions: 50013,
  interactionAlreadyAcknowledged: 40060,
} as const;

function codeFor(status: number, discordCode: number | string): PlatformErrorCode {
  if (
    discordCode === DiscordErrorCode.unknownChannel ||
    discordCode === DiscordErrorCode.unknownMessage
  ) {
    return 'not_found';
  }
  if (status === 429) return 'rate_limited';
  if (status === 401 || status === 403) return 'forbidden';
  if (status === 404) return 'not_found';
  if (status >= 500) return 'remote';
  return 'bad_request';
}

/**
 * Maps anything the REST client threw to a PlatformError. `call` names the route template
 * ("POST /channels/:id/messages"), never the URL: an interaction token lives in some URLs.
 */
export function toPlatformError(call: string, error: unknown): PlatformError {
  if (error instanceof PlatformError) return error;
  if (error instanceof RateLimitError) {
    return new PlatformError(
      'discord',
      call,
      'rate_limited',
      `rate limited for ${error.retryAfter} ms`,
      {
        status: 429,
        retryAfterMs: error.retryAfter,
      },
    );
  }
  if (error instanceof DiscordAPIError) {
    const message = scrub(`${error.status} ${error.code}: ${error.message}`);
    // The cause keeps Discord's JSON error code for discordCodeOf(); never log the cause object
    // itself: its url may hold an interaction token.
    return new PlatformError('discord', call, codeFor(error.status, error.code), message, {
      status: error.status,
      cause: error,
    });
  }
  if (error instanceof HTTPError) {
    return new PlatformError('discord', call, codeFor(error.status, 0), `HTTP ${error.status}`, {
      status: error.status,
    });
  }
  const message = error instanceof Error ? scrub(error.message) : 'request failed';
  return new PlatformError('discord', call, 'network', message, { cause: error });
}

/** Discord's JSON error code behind an error (ours or the REST client's), if any. */
export function discordCodeOf(error: unknown): number | string | undefined {
  if (error instanceof DiscordAPIError) return error.code;
  if (error instanceof PlatformError && error.cause instanceof DiscordAPIError)
    return error.cause.code;
  return undefined;
}

/** Whether the error says the interaction was already answered or has expired (10062 / 40060). */
export function isAnsweredElsewhere(error: unknown): boolean {
  const code = discordCodeOf(error);
  return (
    code === DiscordErrorCode.unknownInteraction ||
    code === DiscordErrorCode.interactionAlreadyAcknowledged
  );
}
