/** One poll of a case's poll_url (spec section 8): ETag / If-None-Match, Retry-After, validated body. */
import type { Dispatcher } from 'undici';
import { ValidationError } from '../errors.ts';
import { call, NetworkError, retryAfterMs } from '../net/http.ts';
import { knownVersion } from '../protocol/hitl.ts';
import { parsePollResponse, type StatusUpdate, v09VariantIssue } from '../protocol/status.ts';
import type { CaseSecrets, StoredCase } from '../store/types.ts';
import { onCaseOrigin } from './case-origin.ts';

/**
 * Why a poll told us nothing. A watch that fails is a watch failure, never an expiry: each class
 * says what the person or the agent can do about it.
 * - unreachable: no answer (refused connection, timeout, reset, refused by the URL policy)
 * - refused: 401 / 403, the service wants (other) credentials for poll_url
 * - gone: 404 / 410, the service does not know the case (any more)
 * - invalid: an answer that is not a poll response (not JSON, wrong shape, an unknown status,
 *   another case, a redirect we do not follow)
 * - rate_limited: 429
 * - failing: 5xx, the service failed
 */
export type WatchFailure =
  | 'unreachable'
  | 'refused'
  | 'gone'
  | 'invalid'
  | 'rate_limited'
  | 'failing';

/** What a poll came to. */
export type PollResult =
  | {
      kind: 'status';
      update: StatusUpdate;
      etag: string | null;
      retryAfterMs: number | undefined;
      /** Why the body is not its status's v0.9 variant (checkVariants; only v0.9 cases care). */
      variantIssue?: string;
    }
  | { kind: 'not_modified'; retryAfterMs: number | undefined }
  | {
      kind: 'error';
      failure: WatchFailure;
      /** For people and logs: never a URL, a header or a body. */
      reason: string;
      retryAfterMs: number | undefined;
    };

/** The failure class of an HTTP status that is not 200 or 304. */
export function failureOfStatus(status: number): WatchFailure {
  if (status === 401 || status === 403) return 'refused';
  if (status === 404 || status === 410) return 'gone';
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'failing';
  return 'invalid';
}

/**
 * The headers a case's watch requests carry to `url`: the credentials given at intake, and only to
 * the case's own origin (case-origin.ts). Redirects are never followed (net/http.ts), so they cannot
 * travel on to another origin either.
 */
export function watchHeaders(
  c: Pick<StoredCase, 'origin'>,
  secrets: Pick<CaseSecrets, 'service_headers'>,
  url: string,
): Record<string, string> {
  if (!secrets.service_headers) return {};
  return onCaseOrigin(c, url) ? { ...secrets.service_headers } : {};
}

/** Polls once; never throws (a bad answer is an error result that changes nothing). */
export async function pollOnce(
  pollUrl: string,
  etag: string | null,
  options: {
    dispatcher: Dispatcher;
    now: number;
    expectedCaseId: string;
    timeoutMs?: number;
    /** Credentials for this service (see watchHeaders). */
    headers?: Record<string, string>;
  },
): Promise<PollResult> {
  let res: Awaited<ReturnType<typeof call>>;
  try {
    const headers: Record<string, string> = { ...options.headers, accept: 'application/json' };
    if (etag) headers['if-none-match'] = etag;
    res = await call(pollUrl, {
      headers,
      dispatcher: options.dispatcher,
      timeoutMs: options.timeoutMs ?? 10_000,
      maxBytes: 256 * 1024,
    });
  } catch (err) {
    const tooLarge = err instanceof NetworkError && err.code === 'too_large';
    return {
      kind: 'error',
      failure: tooLarge ? 'invalid' : 'unreachable',
      reason: (err as Error).message,
      retryAfterMs: undefined,
    };
  }
  const retry = retryAfterMs(res.headers['retry-after'], options.now);
  if (res.status === 304) return { kind: 'not_modified', retryAfterMs: retry };
  if (res.status !== 200)
    return {
      kind: 'error',
      failure: failureOfStatus(res.status),
      reason: `the service answered ${res.status}`,
      retryAfterMs: retry,
    };
  return readPollBody(res, options.expectedCaseId, retry);
}

/** A 200's body as a poll response for `expectedCaseId`, or why it is not one. */
function readPollBody(
  res: { headers: Record<string, string | undefined>; text: string },
  expectedCaseId: string,
  retry: number | undefined,
): PollResult {
  const invalid = (reason: string): PollResult => ({
    kind: 'error',
    failure: 'invalid',
    reason,
    retryAfterMs: retry,
  });
  if (!/\bjson\b/i.test(res.headers['content-type'] ?? ''))
    return invalid(
      `the service answered with content-type ${(res.headers['content-type'] ?? 'none').slice(0, 64)}`,
    );
  try {
    const json: unknown = JSON.parse(res.text);
    const update = parsePollResponse(json);
    if (update.case_id !== expectedCaseId)
      return invalid(`the service answered for another case (${update.case_id.slice(0, 64)})`);
    const variantIssue = v09VariantIssue(json);
    return {
      kind: 'status',
      update,
      etag: res.headers.etag ?? null,
      retryAfterMs: retry,
      ...(variantIssue ? { variantIssue } : {}),
    };
  } catch (err) {
    if (!(err instanceof ValidationError)) return invalid('the service answered with invalid JSON');
    const first = err.details[0];
    return invalid(
      first
        ? `invalid poll response: ${first.path || 'body'} ${first.message}`.slice(0, 200)
        : err.message,
    );
  }
}

/**
 * When to look at a case next, in ms from now: between `min` and `max`, doubling after failures,
 * `max` while an event stream is up, and never earlier than the service's Retry-After (spec 8: the
 * jitter only ever lengthens the wait, so a poll never arrives before the time the service asked
 * for). `random` is Math.random in production and a fixed sequence in tests.
 */
export function pollDelay(o: {
  min: number;
  max: number;
  failures: number;
  retryAfterMs: number | undefined;
  streaming: boolean;
  random: () => number;
}): number {
  let wait = o.streaming ? o.max : o.failures ? o.min * 2 ** Math.min(o.failures, 10) : o.min;
  wait = Math.min(o.max, Math.max(o.min, wait));
  // Jitter up to +20 %, so cases ingested together do not stay in lockstep.
  wait *= 1 + o.random() * 0.2;
  // Retry-After wins over our own maximum: the service said when it will answer.
  if (o.retryAfterMs !== undefined) wait = Math.max(wait, o.retryAfterMs);
  return wait;
}

/**
 * A v0.9 case's poll held to the v0.9 variants (v0.9 §8: completed needs result and completed_at,
 * expired expired_at and default_action, cancelled cancelled_at; open statuses carry no result,
 * responded_by or submission_context): a body that breaks them is an invalid answer with the
 * reason, never a status change. Cases of 0.5-0.8 are read as their versions allow.
 */
export function checkVariants(c: Pick<StoredCase, 'doc'>, r: PollResult): PollResult {
  if (r.kind !== 'status' || !r.variantIssue) return r;
  if (knownVersion(c.doc.hitl.spec_version) !== '0.9') return r;
  return {
    kind: 'error',
    failure: 'invalid',
    reason: `invalid v0.9 poll response: ${r.variantIssue}`.slice(0, 200),
    retryAfterMs: r.retryAfterMs,
  };
}

/** Polls a stored case with its credentials (the relay's usual way to read a case). */
export async function pollCase(
  deps: {
    dispatcher: Dispatcher;
    now: () => number;
    sealer: { open(sealed: string): CaseSecrets };
  },
  c: StoredCase,
  etag: string | null,
): Promise<PollResult> {
  const r = await pollOnce(c.doc.hitl.poll_url, etag, {
    dispatcher: deps.dispatcher,
    now: deps.now(),
    expectedCaseId: c.case_id,
    headers: watchHeaders(c, deps.sealer.open(c.secrets), c.doc.hitl.poll_url),
  });
  return checkVariants(c, r);
}
