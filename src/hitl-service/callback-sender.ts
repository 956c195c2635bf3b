/** Signed callbacks (spec 9): POST each terminal event to the agent's hitl_callback_url, with retries. */
import { createHmac } from 'node:crypto';
import { request } from 'undici';
import type { Logger } from '../log.ts';
import type { StoredEvent } from './types.ts';

/** Attempts per callback, as spec 9 recommends. */
export const CALLBACK_MAX_ATTEMPTS = 3;

/** `sha256=<hex HMAC-SHA256 of the raw body>`, the X-HITL-Signature value. */
export function signCallback(body: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`;
}

/** Delivers callbacks in the background and can abandon them all on shutdown. */
export class CallbackSender {
  private readonly inflight = new Set<AbortController>();
  private closed = false;

  constructor(private readonly options: { secret?: string; log: Logger; baseDelayMs?: number }) {}

  /** Sends `event` to `url`; never throws (the poll endpoint stays the source of truth). */
  send(url: string, event: StoredEvent): void {
    if (this.closed) return;
    const body = JSON.stringify({ event: event.event, case_id: event.case_id, ...event.data });
    const controller = new AbortController();
    this.inflight.add(controller);
    this.options.log.debug({ case_id: event.case_id, event: event.event }, 'demo callback queued');
    void this.deliver(url, body, event, controller).finally(() => this.inflight.delete(controller));
  }

  private async deliver(
    url: string,
    body: string,
    event: StoredEvent,
    controller: AbortController,
  ): Promise<void> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.options.secret) headers['x-hitl-signature'] = signCallback(body, this.options.secret);
    const base = this.options.baseDelayMs ?? 250;
    const log = this.options.log;
    for (let attempt = 1; attempt <= CALLBACK_MAX_ATTEMPTS; attempt++) {
      try {
        const res = await request(url, {
          method: 'POST',
          headers,
          body,
          signal: controller.signal,
          headersTimeout: 5_000,
          bodyTimeout: 5_000,
        });
        await res.body.dump();
        if (res.statusCode < 300) {
          log.debug({ case_id: event.case_id, event: event.event, attempt }, 'demo callback sent');
          return;
        }
        // Only a server-side failure is worth repeating; a 4xx will not change on retry.
        if (res.statusCode < 500) {
          log.warn({ case_id: event.case_id, status: res.statusCode }, 'demo callback refused');
          return;
        }
        log.warn(
          { case_id: event.case_id, status: res.statusCode, attempt },
          'demo callback failed',
        );
      } catch (error) {
        if (controller.signal.aborted) return;
        log.warn(
          { case_id: event.case_id, attempt, err: (error as Error).message },
          'demo callback unreachable',
        );
      }
      if (attempt < CALLBACK_MAX_ATTEMPTS) {
        const ok = await sleep(base * 2 ** (attempt - 1), controller.signal);
        if (!ok) return;
      }
    }
    log.warn({ case_id: event.case_id, attempts: CALLBACK_MAX_ATTEMPTS }, 'demo callback given up');
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
