/**
 * Signed callbacks (spec 9): POST each terminal event to the agent's hitl_callback_url, with
 * retries. Sent through the given dispatcher (the relay's guarded agent: the URL policy is enforced
 * on the address actually connected to, so DNS rebinding is covered) and never following a
 * redirect. The body carries `event_id` (`<case_id>:<seq>`, also the X-HITL-Event-Id header): the
 * same on every attempt, so a receiver de-duplicates on it. The secret is only ever an HMAC key.
 */
import { createHmac } from 'node:crypto';
import { Agent, type Dispatcher } from 'undici';
import type { Logger } from '../log.ts';
import { call, NetworkError } from '../net/http.ts';
import type { StoredEvent } from './types.ts';

/** Attempts per callback, as spec 9 recommends. */
export const CALLBACK_MAX_ATTEMPTS = 3;

/** The header that repeats the body's `event_id`. */
export const CALLBACK_EVENT_ID_HEADER = 'x-hitl-event-id';

/** `sha256=<hex HMAC-SHA256 of the raw body>`, the X-HITL-Signature value. */
export function signCallback(body: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

/** How one callback delivery ended (never the URL: it may carry a token; never the secret). */
export interface CallbackOutcome {
  case_id: string;
  event: string;
  event_id: string;
  state: 'delivered' | 'failed';
  attempts: number;
  /** Why the last attempt failed ("HTTP 503", "redirect not followed (HTTP 302)", ...). */
  error?: string;
}

/** Options of the sender. */
export interface CallbackSenderOptions {
  secret?: string;
  log: Logger;
  /** First wait between attempts (doubled each time); default 250 ms. */
  baseDelayMs?: number;
  /** Connections (the relay's guarded agent); an unguarded agent of its own when absent (demo). */
  dispatcher?: Dispatcher;
  /** Told how each delivery ended (the relay records it in the case's history). */
  onOutcome?: (outcome: CallbackOutcome) => void;
}

/** One attempt's verdict: done, or worth another attempt, with the reason. */
type Verdict = { ok: true } | { ok: false; retry: boolean; error: string };

/** Delivers callbacks in the background and can abandon them all on shutdown. */
export class CallbackSender {
  private readonly inflight = new Set<AbortController>();
  private closed = false;
  /** Its own agent: the process-wide one may be Node's bundled undici, of another handler API. */
  private readonly dispatcher: Dispatcher;

  constructor(private readonly options: CallbackSenderOptions) {
    this.dispatcher = options.dispatcher ?? new Agent({ connections: 16 });
  }

  /** Sends `event` to `url`; never throws (the poll endpoint stays the source of truth). */
  send(url: string, event: StoredEvent): void {
    if (this.closed) return;
    const eventId = `${event.case_id}:${event.seq}`;
    const body = JSON.stringify({
      event: event.event,
      event_id: eventId,
      case_id: event.case_id,
      ...event.data,
    });
    const controller = new AbortController();
    this.inflight.add(controller);
    this.options.log.debug({ case_id: event.case_id, event: event.event }, 'demo callback queued');
    void this.deliver(url, body, event, eventId, controller).finally(() =>
      this.inflight.delete(controller),
    );
  }

  private async deliver(
    url: string,
    body: string,
    event: StoredEvent,
    eventId: string,
    controller: AbortController,
  ): Promise<void> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': 'hitl-relay',
      [CALLBACK_EVENT_ID_HEADER]: eventId,
    };
    if (this.options.secret) headers['x-hitl-signature'] = signCallback(body, this.options.secret);
    const base = this.options.baseDelayMs ?? 250;
    const log = this.options.log;
    const ids = { case_id: event.case_id, event: event.event, event_id: eventId };
    const end = (state: CallbackOutcome['state'], attempts: number, error?: string) =>
      this.options.onOutcome?.({ ...ids, state, attempts, ...(error && { error }) });
    for (let attempt = 1; attempt <= CALLBACK_MAX_ATTEMPTS; attempt++) {
      const verdict = await this.attempt(url, headers, body, controller);
      if (controller.signal.aborted) return;
      if (verdict.ok) {
        log.debug({ ...ids, attempt }, 'demo callback sent');
        return end('delivered', attempt);
      }
      if (!verdict.retry) {
        log.warn({ ...ids, attempt, err: verdict.error }, 'demo callback refused');
        return end('failed', attempt, verdict.error);
      }
      log.warn({ ...ids, attempt, err: verdict.error }, 'demo callback failed');
      if (attempt < CALLBACK_MAX_ATTEMPTS) {
        const ok = await sleep(base * 2 ** (attempt - 1), controller.signal);
        if (!ok) return;
      } else {
        log.warn({ ...ids, attempts: attempt }, 'demo callback given up');
        return end('failed', attempt, verdict.error);
      }
    }
  }

  /** One POST: 2xx is done; a 5xx or no answer is worth repeating; anything else is final. */
  private async attempt(
    url: string,
    headers: Record<string, string>,
    body: string,
    controller: AbortController,
  ): Promise<Verdict> {
    try {
      const res = await call(url, {
        method: 'POST',
        headers,
        body,
        timeoutMs: 5_000,
        maxBytes: 64 * 1024,
        dispatcher: this.dispatcher,
      });
      if (res.status >= 200 && res.status < 300) return { ok: true };
      // A redirect is never followed (spec 9): the callback may not travel to another destination.
      if (res.status >= 300 && res.status < 400)
        return { ok: false, retry: false, error: `redirect not followed (HTTP ${res.status})` };
      // Only a server-side failure is worth repeating; a 4xx will not change on retry.
      return { ok: false, retry: res.status >= 500, error: `HTTP ${res.status}` };
    } catch (error) {
      if (controller.signal.aborted) return { ok: false, retry: false, error: 'closed' };
      const policy = error instanceof NetworkError && error.code === 'refused_by_policy';
      return { ok: false, retry: !policy, error: (error as Error).message };
    }
  }

  /** Abandons every pending delivery. */
  close(): void {
    this.closed = true;
    for (const controller of this.inflight) controller.abort();
    this.inflight.clear();
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
