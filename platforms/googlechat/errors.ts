/** The one place where Chat API and token endpoint answers become PlatformError. */
import { PlatformError, type PlatformErrorCode } from '../../src/errors.ts';
import { scrub } from '../../src/log.ts';

const PLATFORM = 'googlechat';

/**
 * A Google API answered with an error: `{error: {code, message, status}}` (the Chat API), or
 * `{error, error_description}` (the OAuth token endpoint). `status` is Google's canonical code.
 */
export class ChatApiError extends Error {
  constructor(
    readonly httpStatus: number,
    readonly status: string,
    message: string,
  ) {
    super(message);
    this.name = 'ChatApiError';
  }
}

/** Reads the error out of an answer body (anything: HTML from a proxy, empty, JSON). */
export function chatApiError(httpStatus: number, text: string, call: string): ChatApiError {
  let status = '';
  let message = text.slice(0, 200);
  try {
    const body = JSON.parse(text) as {
      error?: { message?: string; status?: string } | string;
      error_description?: string;
    };
    if (typeof body.error === 'object' && body.error) {
      status = body.error.status ?? '';
      message = body.error.message ?? message;
    } else if (typeof body.error === 'string') {
      // The token endpoint: invalid_grant (a revoked or wrong key), invalid_client, ...
      status = body.error;
      message = body.error_description ?? body.error;
    }
  } catch {
    // not JSON: keep the start of the text
  }
  return new ChatApiError(
    httpStatus,
    status,
    scrub(`${call}: ${httpStatus}${status ? ` ${status}` : ''} ${message}`.trim()),
  );
}

function codeFor(err: ChatApiError): PlatformErrorCode {
  const { httpStatus, status } = err;
  if (httpStatus === 429 || status === 'RESOURCE_EXHAUSTED') return 'rate_limited';
  if (httpStatus === 404 || status === 'NOT_FOUND') return 'not_found';
  // 401: the key was refused; 403: the app is not (or no longer) a member of the space.
  if (httpStatus === 401 || httpStatus === 403 || status === 'invalid_grant') return 'forbidden';
  if (httpStatus >= 500) return 'remote';
  return 'bad_request';
}

/** Maps whatever a Chat API call threw to a PlatformError naming the call. */
export function toPlatformError(err: unknown, call: string, retryAfterMs?: number): PlatformError {
  if (err instanceof PlatformError) return err;
  if (err instanceof ChatApiError) {
    return new PlatformError(PLATFORM, call, codeFor(err), err.message, {
      status: err.httpStatus,
      cause: err,
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    });
  }
  const message = err instanceof Error ? err.message : String(err);
  return new PlatformError(PLATFORM, call, 'network', scrub(message), { cause: err });
}
