/**
 * The watch loop: leases due cases from the store (so replicas share the work and a dead replica's
 * leases lapse), polls each within a concurrency limit, applies changes, and schedules the next
 * look between the configured minimum and maximum, honouring Retry-After and backing off on errors.
 */
import type { Engine } from '../cases/engine.ts';
import type { StoredCase } from '../cases/types.ts';
import { isTerminal } from '../protocol/types.ts';
import { pollOnce } from './poll.ts';

/** Options of the watcher. */
export interface WatcherOptions {
  /** How often the loop asks the store for due work. */
  tickMs?: number;
  /** Cases leased per tick. */
  batch?: number;
  /** Polls in flight at once. */
  concurrency?: number;
  leaseMs?: number;
  /** Past expires_at by this much with the service unreachable, a case is shown as expired. */
  expiryGraceMs?: number;
}

/** What else has a say after each look at an open case (event streams, reminders). */
export interface WatchHooks {
  /** Runs after each poll of a case that is still open (sends due reminders, starts its stream). */
  afterCheck?(c: StoredCase): Promise<void>;
  /** True while the case's event stream is up: its next poll may then wait up to pollMax. */
  streaming?(c: StoredCase): Promise<boolean>;
  /** The next time the case needs a look besides polling (its next reminder), if any. */
  wakeAt?(c: StoredCase): number | undefined;
}

/** Runs the poll schedule until stopped. */
export class Watcher {
  private timer: NodeJS.Timeout | undefined;
  private running = false;
  private stopped = false;
  private inflight = 0;
  private readonly o: Required<WatcherOptions>;
  private readonly hooks: WatchHooks;

  constructor(
    private readonly engine: Engine,
    options: WatcherOptions = {},
    hooks: WatchHooks = {},
  ) {
    this.hooks = hooks;
    this.o = {
      // A due case waits for the next tick: at most 250 ms keeps the poll lag well under a second
      // (docs/BENCHMARKS.md, watching at scale); the lease query is cheap when nothing is due.
      tickMs: options.tickMs ?? Math.max(20, Math.min(250, engine.config.pollMinMs / 2)),
      batch: options.batch ?? 500,
      concurrency: options.concurrency ?? 64,
      leaseMs: options.leaseMs ?? 60_000,
      expiryGraceMs: options.expiryGraceMs ?? 60_000,
    };
  }

  /** Starts the loop. */
  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** Stops the loop (in-flight polls finish on their own). */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.tick(), ms);
    this.timer.unref?.();
  }

  /** One pass: lease what is due and poll it. Exposed for tests and benchmarks. */
  async tick(): Promise<number> {
    if (this.running) return 0;
    this.running = true;
    let n = 0;
    try {
      const room = this.o.batch - this.inflight;
      if (room > 0) {
        const due = await this.engine.store.leaseDue(
          this.engine.now(),
          room,
          this.engine.instanceId,
          this.o.leaseMs,
        );
        n = due.length;
        await runLimited(due, this.o.concurrency, (c) => this.check(c));
      }
    } catch (err) {
      this.engine.log.error({ err: String(err) }, 'watch tick failed');
    } finally {
      this.running = false;
      this.schedule(n >= this.o.batch ? 0 : this.o.tickMs);
    }
    return n;
  }

  /** Polls one leased case and schedules its next look. */
  async check(c: StoredCase): Promise<void> {
    this.inflight++;
    const e = this.engine;
    try {
      const now = e.now();
      const r = await pollOnce(c.doc.hitl.poll_url, c.etag, {
        dispatcher: e.dispatcher,
        now,
        expectedCaseId: c.case_id,
      });
      e.events.emit('poll', r.kind); // counted in /metrics
      let failures = 0;
      let etag = c.etag;
      if (r.kind === 'status') {
        etag = r.etag;
        await e.applyStatus(c.id, r.update, 'poll');
      } else if (r.kind === 'error') {
        failures = c.poll_failures + 1;
        e.log.warn({ case: c.id, failures, reason: r.reason }, 'poll failed');
        if (now > Date.parse(c.doc.hitl.expires_at) + this.o.expiryGraceMs)
          await e.applyStatus(
            c.id,
            { status: 'expired', case_id: c.case_id, at: c.doc.hitl.expires_at },
            'local_expiry',
          );
      }
      let after = await e.store.getCase(c.id);
      if (!after) return;
      // An expired claim is a submit whose outcome is unknown; only a poll that read the case open
      // shows it did not land (a failed poll shows nothing, and releasing then invites a second POST).
      if (r.kind !== 'error' && after.claim && after.claim.until < now && !isTerminal(after.status))
        await e.store.releaseClaim(after.id, after.claim.holder);
      let stretch = false;
      if (!isTerminal(after.status) && (this.hooks.afterCheck || this.hooks.streaming)) {
        await this.hooks
          .afterCheck?.(after)
          .catch((err) => e.log.warn({ case: c.id, err: String(err) }, 'watch hook failed'));
        after = (await e.store.getCase(c.id)) ?? after;
        stretch = !failures && ((await this.hooks.streaming?.(after)) ?? false);
      }
      await e.store.updateWatch(c.id, {
        next_check_at: isTerminal(after.status)
          ? null
          : this.nextCheck(after, now, failures, r.retryAfterMs, stretch),
        etag,
        poll_failures: failures,
      });
    } finally {
      this.inflight--;
    }
  }

  private nextCheck(
    c: StoredCase,
    now: number,
    failures: number,
    retryAfterMs: number | undefined,
    stretch = false,
  ): number {
    const { pollMinMs: min, pollMaxMs: max } = this.engine.config;
    // A healthy event stream brings changes at once; the poll is then only the safety net.
    let wait = stretch ? max : failures ? Math.min(max, min * 2 ** Math.min(failures, 10)) : min;
    if (retryAfterMs !== undefined) wait = Math.max(wait, retryAfterMs);
    wait = Math.min(max, Math.max(min, wait));
    wait *= 0.9 + Math.random() * 0.2; // jitter, so cases ingested together do not stay in lockstep
    const expires = Date.parse(c.doc.hitl.expires_at);
    // Look again right after expiry so the card does not keep live buttons on an expired case.
    let at = now + wait;
    if (expires > now && expires + 1000 < at) at = expires + 1000;
    // Wake for the next reminder too, however far the next poll is.
    const wake = this.hooks.wakeAt?.(c);
    return wake !== undefined && wake < at ? Math.max(now, wake) : at;
  }
}

/** Runs `fn` over `items` with at most `limit` at once. */
export async function runLimited<T>(
  items: T[],
  limit: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++]!;
      await fn(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
