/**
 * The content-type rule of every inbound endpoint. Each one takes JSON (the API, web chat,
 * callbacks, Telegram, Discord, Teams) or a URL-encoded form (Slack interactions and slash
 * commands, the HITL service's review pages); a body of any other type is refused with 415 before any
 * handler reads it. Endpoints that take only one of the two check that themselves.
 */
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { jsonLimitIssue } from '../protocol/json-limits.ts';
import { ApiError } from './api-error.ts';

/** Content types an inbound request body may have. */
export const INBOUND_BODY_TYPES = [
  /^application\/json\s*(;|$)/i,
  /^application\/x-www-form-urlencoded\s*(;|$)/i,
];

/** True when the request carries a body (announced by Content-Length or chunked encoding). */
function hasBody(headers: Headers): boolean {
  const length = headers.get('content-length');
  if (length !== null) return Number(length) > 0;
  return headers.has('transfer-encoding');
}

/** Refuses request bodies whose Content-Type is not one of `allowed` (415, naming what to send). */
export function requireBodyType(allowed: RegExp[] = INBOUND_BODY_TYPES): MiddlewareHandler {
  return async (c, next) => {
    if (c.req.method === 'GET' || c.req.method === 'HEAD' || !hasBody(c.req.raw.headers))
      return next();
    const type = c.req.header('content-type') ?? '';
    if (allowed.some((re) => re.test(type))) return next();
    throw new ApiError(
      415,
      'unsupported_media_type',
      `Content-Type ${type ? `"${type.slice(0, 80)}"` : '(none)'} is not accepted here; send application/json${allowed.length > 1 ? ' or application/x-www-form-urlencoded' : ''}`,
      undefined,
      // The body is left unread, so the connection cannot be reused.
      { headers: { connection: 'close' } },
    );
  };
}

/**
 * hono's bodyLimit, without its cost on the common path. hono's middleware touches the request's
 * body stream, which makes @hono/node-server build a full web Request (a ReadableStream and an
 * AbortSignal) for every request, GETs included: ~9 % of the relay's CPU per intake. A body that
 * announces its length is judged by Content-Length (Node's parser reads exactly that many bytes,
 * so nothing longer gets through) and later read straight off the socket; a request with no body
 * passes; only a chunked body goes through hono's counting stream.
 */
export function limitBody(
  maxSize: number,
  onError: (c: Context) => Response | Promise<Response>,
): MiddlewareHandler {
  const counting = bodyLimit({ maxSize, onError });
  return async (c, next) => {
    if (c.req.header('transfer-encoding') !== undefined) return counting(c, next);
    const length = c.req.header('content-length');
    return length !== undefined && Number(length) > maxSize ? onError(c) : next();
  };
}

/**
 * Reads a JSON request body the one way every JSON API route does: Content-Type application/json
 * (415 otherwise), a JSON document (400 invalid_json), and within the depth and size limits
 * (400 invalid_request naming the path where it broke) before any code walks or clones it.
 * `hint` tells the caller what to send when the body is not JSON. Throws an ApiError.
 */
export async function readJsonBody(c: Context, hint: string): Promise<unknown> {
  if (!/^application\/json\b/i.test(c.req.header('content-type') ?? ''))
    throw new ApiError(415, 'unsupported_media_type', 'send Content-Type: application/json');
  let value: unknown;
  try {
    value = JSON.parse(await c.req.text());
  } catch {
    throw new ApiError(400, 'invalid_json', `the body is not JSON: ${hint}`, [
      { path: '(root)', message: 'must be a JSON object' },
    ]);
  }
  const tooDeep = jsonLimitIssue(value);
  if (tooDeep)
    throw new ApiError(
      400,
      'invalid_request',
      `JSON nested too deep or too large: ${tooDeep.path} ${tooDeep.message}`,
      [tooDeep],
    );
  return value;
}
