/**
 * The outbox worker: leases due notify deliveries from the store (replicas share the work; a dead
 * replica's leases lapse), POSTs each signed body to its notify_url through the guarded dispatcher
 * (the URL policy applies), and settles the attempt: delivered, retry later with exponential backoff
 * and jitter, or given up after the last attempt. At-least-once: a receiver de-duplicates on the
 * delivery id.
 */
import type { Dispatcher } from 'undici';
import { type CaseRepository, NOTIFY_QUEUED_EVENT } from '../cases/repository.ts';
import type { RelayConfig } from '../config/config.ts';
import { NOTIFY_DEFAULTS, type NotifySettings } from '../config/notify-settings.ts';
import type { Logger } from '../log.ts';
import { call, NetworkError, retryAfterMs } from '../net/http.ts';
import { OriginPool, originOf } from '../net/origin-pool.ts';
import { type UrlPolicy, urlRefusal } from '../net/url-policy.ts';
import {
  NOTIFY_ATTEMPT_HEADER,
  NOTIFY_DELIVERY_HEADER,
  NOTIFY_EVENT_HEADER,
  NOTIFY_SIGNATURE_HEADER,
  NOTIFY_TIMESTAMP_HEADER,
  signNotify,
} from '../protocol/notify-signature.ts';
import type { NotifyDelivery, Store } from '../store/store.ts';

export { NOTIFY_DEFAULTS, type NotifySettings } from '../config/notify-settings.ts';

/** What the outbox worker touches. */
export interface NotifyWorkerDeps {
  store: Pick<Store, 'leaseDeliveries' | 'settleDelivery'>;
  config: Pick<RelayConfig, 'notify'> & UrlPolicy;
  cases: Pick<CaseRepository, 'history' | 'events'>;
  log: Logger;
  now: () => number;
  instanceId: string;
  dispatcher: Dispatcher;
}

/** Tuning of the worker loop. */
export interface NotifyWorkerOptions {
  /** How often the store is asked for due deliveries (a local enqueue wakes the loop at once). */
  tickMs?: number;
  batch?: number;
  concurrency?: number;
  /** Attempts in flight to one receiver origin (a hanging receiver holds only these). */
  perOrigin?: number;
}

/** Exponential backoff with equal jitter: attempt 1 waits [min/2, min], doubling up to max. */
export function backoffMs(
  attempt: number,
  minMs: number,
  maxMs: number,
  random: () => number = Math.random,
): number {
  const base = Math.min(maxMs, minMs * 2 ** Math.min(Math.max(attempt - 1, 0), 30));
  return Math.round(base / 2 + (random() * base) / 2);
}

/** Runs the outbox until stopped. */
export class NotifyWorker {
  private timer: NodeJS.Timeout | undefined;
  private stopped = true;
  private running: Promise<number> | undefined;
  private again = false;
  private readonly s: NotifySettings;
  private readonly o: Required<NotifyWorkerOptions>;
  private readonly wake = () => this.schedule(0);
  private readonly pool: OriginPool;

  constructor(
    private readonly deps: NotifyWorkerDeps,
    settings: Partial<NotifySettings> = {},
    options: NotifyWorkerOptions = {},
  ) {
    this.s = { ...NOTIFY_DEFAULTS, ...deps.config.notify, ...settings };
    this.o = {
      tickMs: options.tickMs ?? Math.max(50, Math.min(1000, this.s.retryMinMs / 2)),
      batch: options.batch ?? 100,
      concurrency: options.concurrency ?? 16,
      perOrigin: options.perOrigin ?? 4,
    };
    this.pool = new OriginPool(this.o.concurrency, this.o.perOrigin);
  }

  /** Starts the loop. */
  start(): void {
    this.stopped = false;
    this.deps.cases.events.on(NOTIFY_QUEUED_EVENT, this.wake);
    this.schedule(0);
  }

  /** Stops the loop and waits for attempts in flight (their outcome is recorded). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.deps.cases.events.off(NOTIFY_QUEUED_EVENT, this.wake);
    await this.running;
    await this.pool.idle();
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), ms);
    this.timer.unref?.();
  }

  /** One pass: lease due deliveries and attempt each. Exposed for tests. */
  tick(): Promise<number> {
    if (this.running) {
      this.again = true;
      return Promise.resolve(0);
    }
    this.again = false;
    this.running = this.pass().finally(() => {
      this.running = undefined;
      this.schedule(this.again ? 0 : this.o.tickMs);
    });
    return this.running;
  }

  private async pass(): Promise<number> {
    const e = this.deps;
    try {
      // The lease outlives the longest attempt (headers + body timeouts), so two replicas never overlap.
      const leaseMs = 2 * this.s.timeoutMs + 1000;
      // Only as many as there are free slots, each started on its own: the pass never waits for a
      // slow receiver, and a receiver whose slots are full has its delivery put back a little later.
      const room = Math.min(this.o.batch, this.pool.free);
      if (room <= 0) return 0;
      const due = await e.store.leaseDeliveries(e.now(), room, e.instanceId, leaseMs);
      if (due.length >= room && room === this.o.batch) this.again = true;
      for (const d of due) {
        const run = () =>
          this.attempt(d).catch((err) =>
            e.log.error({ delivery: d.id, err: String(err) }, 'notify attempt failed'),
          );
        if (this.pool.tryRun(originOf(d.url), run)) continue;
        await e.store.settleDelivery(d.id, e.instanceId, {
          state: 'pending',
          next_attempt_at: e.now() + 2000 * (0.5 + Math.random()),
          error: 'deferred: too many deliveries to this receiver in flight',
          notAttempted: true,
        });
      }
      return due.length;
    } catch (err) {
      e.log.error({ err: String(err) }, 'notify pass failed');
      return 0;
    }
  }

  /** Makes one attempt at a leased delivery and records its outcome. */
  async attempt(d: NotifyDelivery): Promise<void> {
    const e = this.deps;
    const refused = urlRefusal(d.url, e.config);
    if (refused) return this.failed(d, `notify_url ${refused}`, { permanent: true });
    const t = Math.floor(e.now() / 1000);
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'user-agent': 'hitl-relay',
      [NOTIFY_DELIVERY_HEADER]: d.id,
      [NOTIFY_EVENT_HEADER]: d.event,
      [NOTIFY_TIMESTAMP_HEADER]: String(t),
      [NOTIFY_ATTEMPT_HEADER]: String(d.attempts),
    };
    if (this.s.secret) headers[NOTIFY_SIGNATURE_HEADER] = signNotify(d.body, this.s.secret, t);
    try {
      const res = await call(d.url, {
        method: 'POST',
        headers,
        body: d.body,
        dispatcher: e.dispatcher,
        timeoutMs: this.s.timeoutMs,
        maxBytes: 64 * 1024,
      });
      if (res.status >= 200 && res.status < 300) {
        await e.store.settleDelivery(d.id, e.instanceId, { state: 'delivered', at: e.now() });
        await e.cases.history(d.case_id, 'notify_delivered', {
          event: d.event,
          delivery: d.id,
          attempts: d.attempts,
        });
        return;
      }
      const wait = retryAfterMs(res.headers['retry-after'], e.now());
      return this.failed(d, `HTTP ${res.status}`, wait === undefined ? {} : { retryAfterMs: wait });
    } catch (err) {
      const policy = err instanceof NetworkError && err.code === 'refused_by_policy';
      const message = err instanceof Error ? err.message : String(err);
      return this.failed(d, message, { permanent: policy });
    }
  }

  private async failed(
    d: NotifyDelivery,
    error: string,
    o: { permanent?: boolean; retryAfterMs?: number },
  ): Promise<void> {
    const e = this.deps;
    const retry = !o.permanent && d.attempts < this.s.maxAttempts;
    let next: number | undefined;
    if (retry) {
      const wait = Math.max(
        backoffMs(d.attempts, this.s.retryMinMs, this.s.retryMaxMs),
        Math.min(o.retryAfterMs ?? 0, this.s.retryMaxMs),
      );
      next = e.now() + wait;
      await e.store.settleDelivery(d.id, e.instanceId, {
        state: 'pending',
        next_attempt_at: next,
        error,
      });
    } else await e.store.settleDelivery(d.id, e.instanceId, { state: 'failed', error });
    await e.cases.history(d.case_id, 'notify_failed', {
      event: d.event,
      delivery: d.id,
      attempts: d.attempts,
      error,
      will_retry: retry,
    });
    // The URL is left out: a notify_url may carry a token in its query.
    const fields = { case: d.case_id, delivery: d.id, attempt: d.attempts, err: error };
    if (retry)
      e.log.warn({ ...fields, retry_at: new Date(next!).toISOString() }, 'notify delivery failed');
    else e.log.error(fields, 'notify delivery given up');
  }
}
