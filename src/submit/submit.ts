/** The inline submit (spec 7.5): POST submit_url with Bearer submit_token, and what the answer means. */
import type { Dispatcher } from 'undici';
import { call, NetworkError } from '../net/http.ts';
import type { SubmitRequest } from '../protocol/actions.ts';
import { classifySubmitAnswer, type SubmitOutcome } from './outcome.ts';

export type { SubmitOutcome } from './outcome.ts';

/** Options for submit(). */
export interface SubmitOptions {
  dispatcher: Dispatcher;
  now: () => number;
  /** Attempts for 5xx / network failures (a retried submit that already landed answers 409, which we read as closed). */
  attempts?: number;
  /** Longest Retry-After we wait for inside one tap before giving up. */
  maxWaitMs?: number;
  timeoutMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Sends one submit, with a bounded retry; never throws. */
export async function submit(
  submitUrl: string,
  submitToken: string,
  body: SubmitRequest,
  options: SubmitOptions,
): Promise<SubmitOutcome> {
  const attempts = options.attempts ?? 3;
  const sleep = options.sleep ?? defaultSleep;
  let last: SubmitOutcome = { kind: 'failed', reason: 'not attempted' };
  for (let attempt = 1; attempt <= attempts; attempt++) {
    try {
      const res = await call(submitUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Bearer ${submitToken}`,
          accept: 'application/json',
        },
        body: JSON.stringify(body),
        dispatcher: options.dispatcher,
        timeoutMs: options.timeoutMs ?? 10_000,
        maxBytes: 64 * 1024,
      });
      const outcome = classifySubmitAnswer(res, options.now());
      if (outcome.kind === 'rate_limited') {
        const wait = outcome.retryAfterMs;
        if (wait !== undefined && wait <= (options.maxWaitMs ?? 3000) && attempt < attempts) {
          await sleep(wait);
          continue;
        }
        return outcome;
      }
      if (outcome.kind !== 'service_failed') return outcome;
      last = outcome;
    } catch (err) {
      last = {
        kind: 'failed',
        reason: err instanceof NetworkError ? err.message : 'network error',
      };
      if (err instanceof NetworkError && err.code === 'refused_by_policy') return last;
    }
    if (attempt < attempts) await sleep(150 * 4 ** (attempt - 1));
  }
  return last;
}
