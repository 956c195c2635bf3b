/** One poll of a case's poll_url (spec section 8): ETag / If-None-Match, Retry-After, validated body. */
import type { Dispatcher } from 'undici';
import { ValidationError } from '../errors.ts';
import { call, retryAfterMs } from '../net/http.ts';
import { parsePollResponse, type StatusUpdate } from '../protocol/status.ts';

/** What a poll came to. */
export type PollResult =
  | { kind: 'status'; update: StatusUpdate; etag: string | null; retryAfterMs: number | undefined }
  | { kind: 'not_modified'; retryAfterMs: number | undefined }
  | { kind: 'error'; reason: string; retryAfterMs: number | undefined };

/** Polls once; never throws (a bad answer is an error result that changes nothing). */
export async function pollOnce(
  pollUrl: string,
  etag: string | null,
  options: { dispatcher: Dispatcher; now: number; expectedCaseId: string; timeoutMs?: number },
): Promise<PollResult> {
  let res: Awaited<ReturnType<typeof call>>;
  try {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (etag) headers['if-none-match'] = etag;
    res = await call(pollUrl, {
      headers,
      dispatcher: options.dispatcher,
      timeoutMs: options.timeoutMs ?? 10_000,
      maxBytes: 256 * 1024,
    });
  } catch (err) {
    return { kind: 'error', reason: (err as Error).message, retryAfterMs: undefined };
  }
  const retry = retryAfterMs(res.headers['retry-after'], options.now);
  if (res.status === 304) return { kind: 'not_modified', retryAfterMs: retry };
  if (res.status !== 200)
    return { kind: 'error', reason: `poll answered ${res.status}`, retryAfterMs: retry };
  if (!/\bjson\b/i.test(res.headers['content-type'] ?? ''))
    return {
      kind: 'error',
      reason: `poll answered with content-type ${res.headers['content-type'] ?? 'none'}`,
      retryAfterMs: retry,
    };
  try {
    const update = parsePollResponse(JSON.parse(res.text));
    if (update.case_id !== options.expectedCaseId)
      return {
        kind: 'error',
        reason: `poll answered for another case (${update.case_id.slice(0, 64)})`,
        retryAfterMs: retry,
      };
    return { kind: 'status', update, etag: res.headers.etag ?? null, retryAfterMs: retry };
  } catch (err) {
    const reason = err instanceof ValidationError ? err.message : 'poll answered with invalid JSON';
    return { kind: 'error', reason, retryAfterMs: retry };
  }
}
