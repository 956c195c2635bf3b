/** The one place where Graph API error answers become PlatformError. */
import { PlatformError, type PlatformErrorCode } from '../../src/errors.ts';
import { scrub } from '../../src/log.ts';

const PLATFORM = 'whatsapp';

/** Pair rate: too many messages from this number to one person (about one every 6 s). */
export const PAIR_RATE_LIMIT = 131056;
/** Throughput: too many messages from this number per second. */
export const THROUGHPUT_LIMIT = 130429;
/** Re-engagement: the 24-hour customer-service window is closed; only a template may be sent. */
export const WINDOW_CLOSED = 131047;

/** The `error` object of a Graph API answer (and of a failed status webhook's `errors[]`). */
export interface GraphErrorBody {
  message?: string;
  code?: number;
  error_subcode?: number;
  error_data?: { details?: string };
}

/** A Graph API call answered with an error; carries Meta's numeric code. */
export class GraphError extends Error {
  constructor(
    readonly status: number,
    readonly code: number | undefined,
    message: string,
    readonly subcode?: number,
  ) {
    super(message);
    this.name = 'GraphError';
  }
}

/** Reads the error out of an answer body (anything: HTML from a proxy, empty, JSON). */
export function graphError(status: number, text: string): GraphError {
  let body: GraphErrorBody | undefined;
  try {
    body = (JSON.parse(text) as { error?: GraphErrorBody }).error;
  } catch {
    body = undefined;
  }
  const details = body?.error_data?.details;
  const message = `${status}${body?.code !== undefined ? ` #${body.code}` : ''} ${body?.message ?? text.slice(0, 200)}${details ? ` (${details})` : ''}`;
  return new GraphError(status, body?.code, scrub(message.trim()), body?.error_subcode);
}

/** Meta's codes for "not permitted": bad or expired token, missing permission, blocked account. */
function isForbidden(code: number | undefined): boolean {
  return (
    code === 190 || code === 10 || code === 3 || (code !== undefined && code >= 200 && code < 300)
  );
}

function codeFor(err: GraphError): PlatformErrorCode {
  const { code, status } = err;
  if (code === PAIR_RATE_LIMIT || code === THROUGHPUT_LIMIT || code === 4 || code === 80007)
    return 'rate_limited';
  if (status === 401 || status === 403 || isForbidden(code)) return 'forbidden';
  // 100/33: the phone number id does not exist (or the token cannot see it).
  if (code === 100 && err.subcode === 33) return 'not_found';
  if (status === 404) return 'not_found';
  // 131000 something went wrong, 131016 service unavailable, 2 temporary: try again later.
  if (status >= 500 || code === 131000 || code === 131016 || code === 2 || code === 1)
    return 'remote';
  return 'bad_request';
}

/** Maps whatever a Graph API call threw to a PlatformError naming the call. */
export function toPlatformError(err: unknown, call: string, retryAfterMs?: number): PlatformError {
  if (err instanceof PlatformError) return err;
  if (err instanceof GraphError) {
    return new PlatformError(PLATFORM, call, codeFor(err), err.message, {
      status: err.status,
      cause: err,
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    });
  }
  const message = err instanceof Error ? err.message : String(err);
  return new PlatformError(PLATFORM, call, 'network', scrub(message), { cause: err });
}
