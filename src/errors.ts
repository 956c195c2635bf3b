/** Errors that carry a code and their cause; "the remote said no" is kept apart from "the network failed". */

/** What went wrong when calling a chat platform. */
export type PlatformErrorCode =
  | 'rate_limited' // 429 after the adapter's own retries; retryAfterMs says when to try again
  | 'not_found' // the chat or message is gone
  | 'forbidden' // the bot may not post there (kicked, missing scope)
  | 'bad_request' // the platform refused the payload
  | 'remote' // the platform answered with another error (5xx, ...)
  | 'network'; // no answer: connection refused, reset, timeout

/** A failed platform call; adapters map their SDK's errors to this in one place. */
export class PlatformError extends Error {
  readonly code: PlatformErrorCode;
  readonly platform: string;
  /** The platform method that failed, e.g. "sendMessage". */
  readonly call: string;
  readonly status: number | undefined;
  readonly retryAfterMs: number | undefined;

  constructor(
    platform: string,
    call: string,
    code: PlatformErrorCode,
    message: string,
    options: { status?: number; retryAfterMs?: number; cause?: unknown } = {},
  ) {
    super(`${platform} ${call} failed (${code}): ${message}`, { cause: options.cause });
    this.name = 'PlatformError';
    this.platform = platform;
    this.call = call;
    this.code = code;
    this.status = options.status;
    this.retryAfterMs = options.retryAfterMs;
  }

  /** Whether trying the same call later may succeed. */
  get retryable(): boolean {
    return this.code === 'rate_limited' || this.code === 'remote' || this.code === 'network';
  }
}

/** One failed check of an input, with the JSON path where it failed. */
export interface ValidationIssue {
  path: string;
  message: string;
}

/** Input from outside (202 body, poll response, config, ...) that did not validate. */
export class ValidationError extends Error {
  readonly code: string;
  readonly details: ValidationIssue[];
  constructor(code: string, what: string, details: ValidationIssue[]) {
    const first = details[0];
    super(
      `${what}: ${first ? `${first.path || '(root)'} ${first.message}` : 'invalid'}${details.length > 1 ? ` (+${details.length - 1} more)` : ''}`,
    );
    this.name = 'ValidationError';
    this.code = code;
    this.details = details;
  }
}
