/** The inline submit (spec 7.5): POST submit_url with Bearer submit_token, and what the answer means. */
import type { Dispatcher } from 'undici';
import { call, NetworkError, retryAfterMs } from '../net/http.ts';
import type { SubmitRequest } from '../protocol/actions.ts';

/** What a submit came to. */
export type SubmitOutcome =
  | { kind: 'accepted'; completed_at?: string }
  /** 2xx without the JSON body of an accepted submit (a proxy's page, a cut body): the poll decides. */
  | { kind: 'unconfirmed'; status: number }
  | { kind: 'unauthorized' }
  | { kind: 'forbidden'; error: string }
  | { kind: 'closed'; status: 409 | 410 }
  | { kind: 'rate_limited'; retryAfterMs: number | undefined }
  | { kind: 'failed'; reason: string; status?: number };

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
      if (res.status >= 200 && res.status < 300) {
        const answer = jsonObject(res.text);
        if (!answer) return { kind: 'unconfirmed', status: res.status };
        return { kind: 'accepted', ...completedAt(answer) };
      }
      if (res.status === 401) return { kind: 'unauthorized' };
      if (res.status === 403) return { kind: 'forbidden', error: errorCode(res.text) };
      if (res.status === 409 || res.status === 410) return { kind: 'closed', status: res.status };
      if (res.status === 429) {
        const wait = retryAfterMs(res.headers['retry-after'], options.now());
        if (wait !== undefined && wait <= (options.maxWaitMs ?? 3000) && attempt < attempts) {
          await sleep(wait);
          continue;
        }
        return { kind: 'rate_limited', retryAfterMs: wait };
      }
      last = { kind: 'failed', reason: `the service answered ${res.status}`, status: res.status };
      if (res.status < 500) return last;
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

function jsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(text);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? v : undefined;
  } catch {
    return undefined;
  }
}

function parse(text: string): Record<string, unknown> {
  return jsonObject(text) ?? {};
}

function completedAt(answer: Record<string, unknown>): { completed_at?: string } {
  const v = answer.completed_at;
  return typeof v === 'string' && !Number.isNaN(Date.parse(v)) ? { completed_at: v } : {};
}

function errorCode(text: string): string {
  const v = parse(text).error;
  return typeof v === 'string' ? v.slice(0, 64) : 'forbidden';
}
