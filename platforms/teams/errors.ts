/** The one place where Bot Connector and botbuilder failures become PlatformError. */
import { PlatformError, type PlatformErrorCode } from '../../src/errors.ts';
import { scrub } from '../../src/log.ts';

/** The Bot Connector answered with a non-2xx status (after the transport's own retries). */
export class TeamsHttpError extends Error {
  constructor(
    readonly status: number,
    /** The connector's error code ("ConversationNotFound", ...) or a short body excerpt. */
    readonly detail: string,
    readonly retryAfterMs: number | undefined,
  ) {
    super(`Bot Connector answered ${status}${detail ? `: ${detail}` : ''}`);
    this.name = 'TeamsHttpError';
  }
}

/** No answer from the Bot Connector (connection refused, reset, timeout). */
export class TeamsNetworkError extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = 'TeamsNetworkError';
  }
}

/** A conversation key with no stored conversation reference (the bot was never added there). */
export class TeamsUnknownConversationError extends Error {
  constructor(readonly key: string) {
    super(
      `no conversation reference stored for teams:${key}; add the bot to that channel or chat first`,
    );
    this.name = 'TeamsUnknownConversationError';
  }
}

function codeForStatus(status: number): PlatformErrorCode {
  if (status === 429) return 'rate_limited';
  if (status === 404) return 'not_found';
  if (status === 401 || status === 403) return 'forbidden';
  if (status >= 400 && status < 500 && status !== 408 && status !== 412) return 'bad_request';
  return 'remote';
}

/** Walks `cause` links (botbuilder and core-client may wrap what our transport threw). */
function findInChain<T>(err: unknown, match: (e: unknown) => e is T): T | undefined {
  let current: unknown = err;
  for (let depth = 0; current && depth < 8; depth++) {
    if (match(current)) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Maps anything a Teams call threw to a PlatformError naming the call. */
export function toPlatformError(err: unknown, call: string): PlatformError {
  if (err instanceof PlatformError) return err;
  const http = findInChain(err, (e): e is TeamsHttpError => e instanceof TeamsHttpError);
  if (http) {
    return new PlatformError('teams', call, codeForStatus(http.status), scrub(http.message), {
      status: http.status,
      ...(http.retryAfterMs !== undefined ? { retryAfterMs: http.retryAfterMs } : {}),
      cause: err,
    });
  }
  const unknownConversation = findInChain(
    err,
    (e): e is TeamsUnknownConversationError => e instanceof TeamsUnknownConversationError,
  );
  if (unknownConversation) {
    return new PlatformError('teams', call, 'not_found', unknownConversation.message, {
      cause: err,
    });
  }
  if (findInChain(err, (e): e is TeamsNetworkError => e instanceof TeamsNetworkError)) {
    return new PlatformError('teams', call, 'network', scrub(String((err as Error).message)), {
      cause: err,
    });
  }
  // A RestError from core-client (a status we did not turn into TeamsHttpError) or anything else.
  const status = (err as { statusCode?: unknown }).statusCode;
  const message = scrub(err instanceof Error ? err.message : String(err));
  if (typeof status === 'number') {
    return new PlatformError('teams', call, codeForStatus(status), message, { status, cause: err });
  }
  return new PlatformError('teams', call, 'remote', message, { cause: err });
}
