/**
 * What an answer to an inline submit means (spec 7.5, 7.6): each HTTP status class is told apart,
 * so the person is told what happened and what they can do. Pure: no I/O.
 */
import type { HttpResponse } from '../net/http.ts';
import { retryAfterMs } from '../net/http.ts';
import { readSubmitAnswer, type SubmitAnswer } from '../protocol/status.ts';

/** What a submit came to. */
export type SubmitOutcome =
  /** 2xx with a JSON body: the service took the answer; `answer` is what its body says. */
  | { kind: 'accepted'; answer: SubmitAnswer; completed_at?: string }
  /** 2xx without the JSON body of an accepted submit (a proxy's page, a cut body): the poll decides. */
  | { kind: 'unconfirmed'; status: number }
  /** 400 / 422 (and other 4xx the spec does not name): the service refused the request itself. */
  | { kind: 'refused'; status: number; message: string | undefined }
  | { kind: 'unauthorized'; message: string | undefined }
  /** 403: `error` is verification_required, verification_failed, action_not_inline or another code. */
  | { kind: 'forbidden'; error: string; message: string | undefined }
  | { kind: 'closed'; status: 409 | 410 }
  | { kind: 'rate_limited'; retryAfterMs: number | undefined }
  /** 3xx: never followed (the bearer must not travel to another URL); nothing was decided. */
  | { kind: 'redirected'; status: number }
  /** 5xx: the service was reached and failed; nothing was decided. */
  | { kind: 'service_failed'; status: number; message: string | undefined }
  /** Too many submits already waiting for this service: nothing was sent. */
  | { kind: 'queue_full' }
  /**
   * The request may have reached the service and no answer came (a timeout once sent, a reset, an
   * answer too large to read): the service may have recorded the decision, so only a poll can tell.
   * `timeoutS` is set when the deadline ran out.
   */
  | { kind: 'unknown'; reason: string; timeoutS?: number }
  /** The request provably never left (connection refused, no such host, refused by the URL policy). */
  | { kind: 'failed'; reason: string; status?: number };

/** The meaning of one HTTP answer to a submit. */
export function classifySubmitAnswer(res: HttpResponse, now: number): SubmitOutcome {
  const body = jsonObject(res.text);
  const message = text(body?.message, 300);
  if (res.status >= 200 && res.status < 300) {
    if (!body) return { kind: 'unconfirmed', status: res.status };
    const answer = readSubmitAnswer(body);
    return {
      kind: 'accepted',
      answer,
      ...(answer.completed_at ? { completed_at: answer.completed_at } : {}),
    };
  }
  if (res.status === 401) return { kind: 'unauthorized', message };
  if (res.status === 403)
    return { kind: 'forbidden', error: text(body?.error, 64) ?? 'forbidden', message };
  if (res.status === 409 || res.status === 410) return { kind: 'closed', status: res.status };
  if (res.status === 429)
    return { kind: 'rate_limited', retryAfterMs: retryAfterMs(res.headers['retry-after'], now) };
  if (res.status >= 500) return { kind: 'service_failed', status: res.status, message };
  if (res.status >= 300 && res.status < 400) return { kind: 'redirected', status: res.status };
  return { kind: 'refused', status: res.status, message };
}

/** The string at `v`, flattened to one line and bounded, or undefined. */
function text(v: unknown, max: number): string | undefined {
  if (typeof v !== 'string') return undefined;
  // Printable text only: a service's message goes on a card and into a toast.
  const flat = Array.from(v, (ch) => (ch < ' ' || ch === '\u007f' ? ' ' : ch))
    .join('')
    .replace(/\s+/g, ' ')
    .trim();
  return flat ? flat.slice(0, max) : undefined;
}

function jsonObject(s: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(s);
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? v : undefined;
  } catch {
    return undefined;
  }
}
