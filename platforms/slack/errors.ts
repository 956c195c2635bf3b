/** The one place where @slack/web-api's errors become PlatformError. */
import { ErrorCode } from '@slack/web-api';
import { PlatformError, type PlatformErrorCode } from '../../src/errors.ts';
import { scrub } from '../../src/log.ts';

const PLATFORM = 'slack';

// Slack answers HTTP 200 with {ok:false, error}; these names come from the methods' reference pages.
const NOT_FOUND = new Set([
  'channel_not_found',
  'message_not_found',
  'thread_not_found',
  'user_not_found',
  'user_not_in_channel',
]);
const FORBIDDEN = new Set([
  'not_in_channel',
  'is_archived',
  'cant_update_message',
  'edit_window_closed',
  'restricted_action',
  'restricted_action_read_only_channel',
  'restricted_action_thread_only_channel',
  'restricted_action_non_threadable_channel',
  'missing_scope',
  'not_allowed_token_type',
  'invalid_auth',
  'not_authed',
  'account_inactive',
  'token_revoked',
  'token_expired',
  'no_permission',
  'ekm_access_denied',
  'team_access_not_granted',
  'access_denied',
]);
const REMOTE = new Set([
  'fatal_error',
  'internal_error',
  'service_unavailable',
  'request_timeout',
  'team_added_to_org',
]);

/** PlatformErrorCode for a Slack `error` string. */
export function codeForSlackError(error: string): PlatformErrorCode {
  if (error === 'ratelimited' || error === 'rate_limited') return 'rate_limited';
  if (NOT_FOUND.has(error)) return 'not_found';
  if (FORBIDDEN.has(error)) return 'forbidden';
  if (REMOTE.has(error)) return 'remote';
  // invalid_blocks, msg_too_long, no_text, invalid_arguments, ...: the payload was refused.
  return 'bad_request';
}

interface CodedLike {
  code?: unknown;
  data?: { error?: unknown };
  retryAfter?: unknown;
  statusCode?: unknown;
  statusMessage?: unknown;
  original?: unknown;
  message?: unknown;
}

/**
 * Maps whatever a Web API call threw to a PlatformError naming the call. Matched by the SDK's error
 * `code` rather than instanceof, so two copies of the SDK in node_modules still map the same way.
 */
export function toPlatformError(err: unknown, call: string): PlatformError {
  if (err instanceof PlatformError) return err;
  const e = (err ?? {}) as CodedLike;
  switch (e.code) {
    case ErrorCode.PlatformError: {
      const error = typeof e.data?.error === 'string' ? e.data.error : 'unknown_error';
      return new PlatformError(PLATFORM, call, codeForSlackError(error), scrub(error), {
        status: 200,
        cause: err,
      });
    }
    case ErrorCode.RateLimitedError: {
      const seconds = typeof e.retryAfter === 'number' ? e.retryAfter : 1;
      return new PlatformError(PLATFORM, call, 'rate_limited', `retry after ${seconds}s`, {
        status: 429,
        retryAfterMs: seconds * 1000,
        cause: err,
      });
    }
    case ErrorCode.HTTPError: {
      const status = typeof e.statusCode === 'number' ? e.statusCode : undefined;
      const code: PlatformErrorCode =
        status === 404
          ? 'not_found'
          : status === 401 || status === 403
            ? 'forbidden'
            : status !== undefined && status >= 400 && status < 500
              ? 'bad_request'
              : 'remote';
      return new PlatformError(
        PLATFORM,
        call,
        code,
        scrub(`HTTP ${status ?? '?'} ${String(e.statusMessage ?? '')}`.trim()),
        { ...(status !== undefined ? { status } : {}), cause: err },
      );
    }
    case ErrorCode.RequestError: {
      const original = e.original instanceof Error ? e.original.message : 'request failed';
      return new PlatformError(PLATFORM, call, 'network', scrub(original), { cause: err });
    }
    default: {
      const message = err instanceof Error ? err.message : String(err);
      return new PlatformError(PLATFORM, call, 'network', scrub(message), { cause: err });
    }
  }
}
