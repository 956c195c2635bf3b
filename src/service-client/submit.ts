/** The inline submit (spec 7.5): POST submit_url with Bearer submit_token, and what the answer means. */
import type { Dispatcher } from 'undici';
import { call, NetworkError } from '../net/http.ts';
import type { SubmitRequest } from '../protocol/actions.ts';
import { offOriginReason, onCaseOrigin } from './case-origin.ts';
import { SubmitGate } from './submit-gate.ts';
import { classifySubmitAnswer, type SubmitOutcome } from './submit-outcome.ts';

export type { SubmitOutcome } from './submit-outcome.ts';

/** Options for submit(). */
export interface SubmitOptions {
  dispatcher: Dispatcher;
  /**
   * The case's origin (case-origin.ts): the submit token goes to submit_url only when it is there.
   * Required, so no caller can send a token without saying where it may go.
   */
  caseOrigin: string;
  now: () => number;
  /**
   * Attempts when the request provably never reached the service (connection refused, no such
   * host). A timeout, a reset or a 5xx is never repeated: the service may have recorded the
   * decision, and a second POST is a second decision for a service without 409 de-duplication.
   */
  attempts?: number;
  /** Longest Retry-After we wait for inside one tap before giving up. */
  maxWaitMs?: number;
  /** Counted from when the request gets its slot in the gate, never while it waits. */
  timeoutMs?: number;
  sleep?: (ms: number) => Promise<void>;
  /** Per-origin concurrency and queue (one per dispatcher by default). */
  gate?: SubmitGate;
}

/** One gate per dispatcher unless the caller brings one: its connections are the gate's slots. */
const gates = new WeakMap<Dispatcher, SubmitGate>();
function gateFor(dispatcher: Dispatcher): SubmitGate {
  let g = gates.get(dispatcher);
  if (!g) {
    g = new SubmitGate();
    gates.set(dispatcher, g);
  }
  return g;
}

const defaultSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Sends one submit, with a bounded retry; never throws. */
export async function submit(
  submitUrl: string,
  submitToken: string,
  body: SubmitRequest,
  options: SubmitOptions,
): Promise<SubmitOutcome> {
  if (!URL.canParse(submitUrl)) return { kind: 'failed', reason: 'submit_url is not a URL' };
  const c = { origin: options.caseOrigin };
  // Checked before the gate and the token: a submit_url off the case's origin is never contacted.
  if (!onCaseOrigin(c, submitUrl))
    return { kind: 'failed', reason: offOriginReason('submit_url', c, submitUrl) };
  const origin = options.caseOrigin;
  const release = await (options.gate ?? gateFor(options.dispatcher)).acquire(origin);
  if (!release) return { kind: 'queue_full' };
  try {
    return await send(submitUrl, submitToken, body, options);
  } finally {
    release();
  }
}

async function send(
  submitUrl: string,
  submitToken: string,
  body: SubmitRequest,
  options: SubmitOptions,
): Promise<SubmitOutcome> {
  const attempts = options.attempts ?? 3;
  const sleep = options.sleep ?? defaultSleep;
  const timeoutMs = options.timeoutMs ?? 10_000;
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
        timeoutMs,
        maxBytes: 64 * 1024,
      });
      const outcome = classifySubmitAnswer(res, options.now());
      if (outcome.kind === 'rate_limited') {
        const wait = outcome.retryAfterMs;
        if (wait !== undefined && wait <= (options.maxWaitMs ?? 3000) && attempt < attempts) {
          await sleep(wait);
          continue;
        }
      }
      // A 5xx is never repeated either: the service may have recorded the decision before failing.
      return outcome;
    } catch (err) {
      // Only a request that provably never left may be sent again, or be told "not reached".
      if (!(err instanceof NetworkError) || !err.notSent)
        return {
          kind: 'unknown',
          reason: err instanceof NetworkError ? err.message : 'network error',
          ...(err instanceof NetworkError && err.code === 'timeout'
            ? { timeoutS: Math.round(timeoutMs / 100) / 10 }
            : {}),
        };
      last = { kind: 'failed', reason: err.message };
      if (err.code === 'refused_by_policy') return last;
    }
    if (attempt < attempts) await sleep(150 * 4 ** (attempt - 1));
  }
  return last;
}
