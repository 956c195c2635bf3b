/**
 * The relay API's one error type and the one handler that writes its body. Routes and middleware
 * throw an ApiError (Hono's HTTPException pattern); app.onError turns it, a ValidationError (400),
 * a store outage (503) or anything else (500, logged) into `{ error, message, details? }` — the
 * `Error` schema of the OpenAPI document.
 */
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { ValidationError } from '../errors.ts';
import type { Logger } from '../log.ts';
import { isStoreOutage } from '../store/store-errors.ts';

/** Headers and extra body fields of an ApiError. */
export interface ApiErrorOptions {
  /** Response headers (retry-after, connection: close, ...). */
  headers?: Record<string, string>;
  /** Fields of the body between `message` and `details` (a 422 not_delivered names its targets). */
  fields?: Record<string, unknown>;
}

/** A refusal of the relay's HTTP API: its status, machine-readable code and a sentence for people. */
export class ApiError extends HTTPException {
  readonly code: string;
  readonly details: unknown;
  readonly headers: Record<string, string>;
  readonly fields: Record<string, unknown>;

  constructor(
    status: ContentfulStatusCode,
    code: string,
    message: string,
    details?: unknown,
    options: ApiErrorOptions = {},
  ) {
    super(status, { message });
    this.name = 'ApiError';
    this.code = code;
    this.details = details;
    this.headers = options.headers ?? {};
    this.fields = options.fields ?? {};
  }

  /** The JSON body: `{ error, message, ...fields, details? }`. */
  body(): Record<string, unknown> {
    return {
      error: this.code,
      message: this.message,
      ...this.fields,
      ...(this.details === undefined ? {} : { details: this.details }),
    };
  }

  /** The answer, written the one way every error of the API is. */
  respond(c: Context): Response {
    return c.json(this.body(), this.status as ContentfulStatusCode, this.headers);
  }
}

/** What every thrown error becomes; the handler of app.onError. */
export function toApiError(err: Error, log: Logger, path: string): ApiError | Response {
  if (err instanceof ApiError) return err;
  if (err instanceof ValidationError) return new ApiError(400, err.code, err.message, err.details);
  // Hono's own (a middleware's ready answer, e.g. the chunked body limit).
  if (err instanceof HTTPException) return err.getResponse();
  if (isStoreOutage(err)) {
    log.warn({ err: err.message, path }, 'store unavailable; answered 503');
    return new ApiError(
      503,
      'store_unavailable',
      'the database is unavailable; retry shortly (see /readyz)',
      undefined,
      { headers: { 'retry-after': '5' } },
    );
  }
  log.error({ err: err.message, path }, 'request failed');
  return new ApiError(500, 'internal', 'internal error');
}

/** app.onError: one place writes every error body. */
export function apiErrorHandler(log: Logger) {
  return (err: Error, c: Context): Response => {
    const e = toApiError(err, log, c.req.path);
    return e instanceof ApiError ? e.respond(c) : e;
  };
}
