/**
 * The watch loop: leases due cases from the store (so replicas share the work and a dead replica's
 * leases lapse), polls each within a concurrency limit, applies changes, and schedules the next
 * look between the configured minimum and maximum, honouring Retry-After and backing off on errors.
 *
 * A lease holds a case for several looks (`holdMs`): a look that changes nothing keeps its next
 * look here, in memory, and writes nothing, so watching many quiet cases costs the store about two
 * writes per hold instead of two per poll (docs/BENCHMARKS.md, watching at scale). Anything else
 * (a change, a failure, a tap, a stream, a next look past the hold) writes the watch row, which
 * ends the hold; so does any other writer's watch write. Each look reads the case back only if the
 * hold still stands (Store.heldCases).
 */
import type { CaseRepository } from '../cases/repository.ts';
import type { HeldCase, Store } from '../cases/store.ts';
import type { StoredCase, WatchState } from '../cases/types.ts';
import type { RelayConfig } from '../config/config.ts';
import { isTerminal } from '../protocol/types.ts';
import { checkUnknownSubmit, type UnknownSubmitDeps } from '../submit/unknown.ts';
import { tapInFlightHere } from './confirm.ts';
import { type Hold, Holds } from './holds.ts';
import { OriginPool, originOf } from './origin-pool.ts';
import { type PollResult, pollCase, pollDelay, pollOnce, watchHeaders } from './poll.ts';
import { WatchWrites } from './watch-writes.ts';

/** What the watch loop touches. */
export interface WatcherDeps extends UnknownSubmitDeps {
  store: Pick<
    Store,
    | 'getCase'
    | 'updateWatch'
    | 'updateWatchMany'
    | 'leaseDue'
    | 'heldCases'
    | 'rescheduleOpen'
    | 'releaseWatchLeases'
    | 'releaseClaim'
  >;
  config: Pick<RelayConfig, 'pollMinMs' | 'pollMaxMs' | 'leaseMs'>;
  cases: Pick<CaseRepository, 'mutate' | 'patchDoc' | 'history' | 'events'>;
  /** Names this process in poll leases. */
  instanceId: string;
}

/** Options of the watcher. */
export interface WatcherOptions {
  /** How often the loop asks the store for due work. */
  tickMs?: number;
  /** Cases leased per tick at most (never more than there are free poll slots). */
  batch?: number;
  /** Polls in flight at once. */
  concurrency?: number;
  /** Polls in flight at once to one service origin (a hanging service holds only these). */
  perOrigin?: number;
  /** How long a poll may run before another replica may start one on the same case. */
  leaseMs?: number;
  /** How long a lease holds a case for looks of this process (default 10 minimum poll intervals). */
  holdMs?: number;
  /** Told of each look as it starts, with the time it was due (benchmarks measure the lag). */
  onLook?: (c: Pick<StoredCase, 'id' | 'case_id'>, dueAt: number) => void;
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
  /** The last pass left due cases for want of a free slot. */
  private starved = false;
  private wakePending = false;
  /** Only a started loop is woken by a free slot (tests drive tick() themselves). */
  private started = false;
  private readonly o: Required<WatcherOptions>;
  private readonly pool: OriginPool;
  /** The engine's clock at the last pass (to notice it stepping back). */
  private lastNow = Number.NEGATIVE_INFINITY;
  private readonly hooks: WatchHooks;
  /** The watch rows of polls that end together go in one commit. */
  private readonly writes: WatchWrites;
  /** Cases this process holds, and their next looks. */
  private readonly holds = new Holds();

  constructor(
    private readonly engine: WatcherDeps,
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
      perOrigin: options.perOrigin ?? 16,
      leaseMs: options.leaseMs ?? engine.config.leaseMs,
      holdMs:
        options.holdMs ??
        Math.max(options.leaseMs ?? engine.config.leaseMs, 10 * engine.config.pollMinMs),
      onLook: options.onLook ?? (() => {}),
      expiryGraceMs: options.expiryGraceMs ?? 60_000,
    };
    this.pool = new OriginPool(this.o.concurrency, this.o.perOrigin, () => this.slotFree());
    this.writes = new WatchWrites(engine.store);
  }

  /** Resolves when every poll started so far has finished (tests, shutdown). */
  idle(): Promise<void> {
    return this.pool.idle();
  }

  /** Starts the loop. */
  start(): void {
    this.stopped = false;
    this.started = true;
    this.schedule(0);
  }

  /** Stops the loop (in-flight polls finish on their own). */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), ms);
    this.timer.unref?.();
  }

  /**
   * One pass: lease as many due cases as there are free poll slots and start each poll on its
   * own (the pass does not wait for them). A case whose origin has no free slot stays due for the
   * next free slot, so a slow or hanging service delays only its own cases. Exposed for tests.
   */
  async tick(): Promise<number> {
    if (this.running) return 0;
    this.running = true;
    let n = 0;
    try {
      const now = this.engine.now();
      // The clock stepped back (an NTP correction, a VM restore): every next check now looks far
      // away, so bring the open cases forward rather than stop polling until the clock catches up.
      if (now < this.lastNow - 5_000) {
        this.engine.log.warn(
          { by_ms: Math.round(this.lastNow - now) },
          'the clock stepped back; rescheduling open cases',
        );
        // Our holds go back first: their next looks are on the clock that stepped.
        await this.engine.store.releaseWatchLeases(
          this.engine.instanceId,
          now,
          this.engine.config.pollMinMs,
        );
        this.holds.clear();
        await this.engine.store.rescheduleOpen(now, this.engine.config.pollMinMs);
      }
      this.lastNow = now;
      n = await this.leaseAndStart(now);
    } catch (err) {
      this.engine.log.error({ err: String(err) }, 'watch tick failed');
    } finally {
      this.running = false;
      // Waiting for a slot (all taken, or an origin's): the next free slot wakes the loop.
      this.starved = this.pool.free === 0 || this.pool.saturated().length > 0;
      this.schedule(n >= this.o.batch ? 0 : this.o.tickMs);
    }
    return n;
  }

  /**
   * Leases only what can start now: at most one origin's worth of slots per query, never a case of
   * an origin whose slots are all taken (those stay due and unleased until a slot frees, so one
   * busy service neither holds the others back nor loses its place).
   */
  private async leaseAndStart(now: number): Promise<number> {
    const e = this.engine;
    let n = await this.startHeld(now);
    while (n < this.o.batch) {
      // Once an origin is full, skipping it costs a scan past its due cases: that is left to the
      // next timer pass, not repeated after every poll that frees a slot.
      if (n > 0 && this.pool.saturated().length > 0) break;
      // At most what the busiest origin with a free slot can still start, so a batch of one
      // service's cases does not overfill it (the rest would have to be put back).
      const room = Math.min(
        this.o.batch - n,
        this.pool.free,
        this.pool.maxPerOrigin - this.pool.busiestOpen(),
      );
      if (room <= 0) break;
      const until = now + this.o.holdMs;
      const due = await e.store.leaseDue(
        now,
        room,
        e.instanceId,
        this.o.holdMs,
        this.pool.saturated(),
      );
      for (const c of due) {
        const look = () => this.check(c, until);
        if (this.tryStart(c, originOf(c.doc.hitl.poll_url), c.next_check_at ?? now, look)) n++;
        // Its origin filled up within this batch: due again, unleased, for its next free slot.
        else
          await e.store.updateWatch(c.id, {
            next_check_at: c.next_check_at,
            etag: c.etag,
            poll_failures: c.poll_failures,
          });
      }
      if (due.length < room) break;
    }
    return n;
  }

  /**
   * Starts the looks at held cases that are due, as many as there are free slots; each is read back
   * only if its hold still stands (another writer's watch write ended it: the store has it again).
   */
  private async startHeld(now: number): Promise<number> {
    const ready = this.holds.takeDue(now, Math.min(this.o.batch, this.pool.free));
    if (!ready.length) return 0;
    const rows = new Map(
      (await this.engine.store.heldCases(this.engine.instanceId, ready)).map((c) => [c.id, c]),
    );
    let n = 0;
    for (const h of ready) {
      const row = rows.get(h.id);
      if (!row) {
        this.holds.settle(h.id); // the hold ended: the store has the case again
        continue;
      }
      // Unchanged since a look that found nothing else to do (no hook, claim or stream due): it is
      // polled from the row alone. Anything else is read whole and looked at as usual.
      const lean = h.version === row.version && !row.claim && now < h.wake;
      const look = lean ? () => this.leanCheck(row, h) : () => this.fullCheck(row.id, h.until);
      if (this.tryStart(row, originOf(h.pollUrl), h.due, look)) n++;
      else this.holds.set(h.id, h); // its origin's slots are full: next free slot
    }
    return n;
  }

  /** Starts `look` if the origin has a free slot. */
  private tryStart(
    c: Pick<StoredCase, 'id' | 'case_id'>,
    origin: string,
    dueAt: number,
    look: () => Promise<void>,
  ): boolean {
    const run = () =>
      look()
        .catch((err) =>
          this.engine.log.error({ case: c.id, err: String(err) }, 'watching a case failed'),
        )
        .finally(() => this.holds.settle(c.id)); // a look that did not keep it lets it go
    if (!this.pool.tryRun(origin, run)) return false;
    this.o.onLook(c, dueAt);
    return true;
  }

  /** A held case read whole (it changed, or has more to it than a poll): the usual look. */
  private async fullCheck(id: string, until: number): Promise<void> {
    const c = await this.engine.store.getCase(id);
    if (c && c.next_check_at !== null && !isTerminal(c.status)) await this.check(c, until);
  }

  /**
   * A held case unchanged since a quiet look: polled from its row. A 304 keeps it held and writes
   * nothing; any other answer reads the case whole and goes on as a usual look.
   */
  private async leanCheck(row: HeldCase, h: Hold): Promise<void> {
    const e = this.engine;
    const now = e.now();
    const r = await pollOnce(h.pollUrl, row.etag, {
      dispatcher: e.dispatcher,
      now,
      expectedCaseId: row.case_id,
      headers: watchHeaders(row, e.sealer.open(row.secrets), h.pollUrl),
    });
    if (r.kind === 'not_modified') {
      const next = this.nextCheck(h.expires, now, 0, r.retryAfterMs, false, h.wake);
      e.cases.events.emit('poll', r.kind); // counted in /metrics
      if (next <= h.until - this.o.leaseMs) return this.holds.set(row.id, { ...h, due: next });
      // Past the hold: the row gives the case back with its next check, unless it changed since.
      const w = { id: row.id, next_check_at: next, etag: row.etag, poll_failures: 0 };
      if (await this.writes.write({ ...w, version: row.version })) return;
      const c = await e.store.getCase(row.id);
      if (c) await this.writeLook(c, { r, now, failures: 0, etag: row.etag });
      return;
    }
    const c = await e.store.getCase(row.id);
    if (c && c.next_check_at !== null && !isTerminal(c.status))
      await this.afterPoll(c, r, now, h.until);
  }

  /** A slot came free: when the last pass had to leave due cases for want of one, run again now. */
  private slotFree(): void {
    if (!this.started || !this.starved || this.stopped || this.running || this.wakePending) return;
    this.wakePending = true;
    setImmediate(() => {
      this.wakePending = false;
      if (!this.stopped && !this.running) this.schedule(0);
    });
  }

  /**
   * Polls one leased case and schedules its next look: here while the lease (ending at `heldUntil`)
   * holds it and nothing changed, else in the store.
   */
  async check(c: StoredCase, heldUntil?: number): Promise<void> {
    const e = this.engine;
    const now = e.now();
    // A tap of ours is submitting (see tapInFlightHere): no poll now. Look again on the usual
    // schedule, not at the claim's end: the tap may release its claim long before it lapses.
    if (tapInFlightHere(e, c)) {
      e.log.debug({ case: c.id }, 'poll deferred: a tap of this process is submitting');
      await this.writes.write({
        id: c.id,
        next_check_at: Math.min(c.claim.until, now + e.config.pollMinMs),
        etag: c.etag,
        poll_failures: c.poll_failures,
      });
      return;
    }
    await this.afterPoll(c, await pollCase(e, c, c.etag), now, heldUntil);
  }

  /** Applies what a poll of `c` read and schedules the next look. */
  private async afterPoll(
    c: StoredCase,
    r: PollResult,
    now: number,
    heldUntil: number | undefined,
  ): Promise<void> {
    const e = this.engine;
    e.cases.events.emit('poll', r.kind); // counted in /metrics
    const failures = r.kind === 'error' ? c.poll_failures + 1 : 0;
    const noted = await noteWatch(e, c, r);
    const applied = await this.apply(c, r, now, failures);
    // Nothing changed it here (a 304, a repeated failure) and nothing is pending on it: the leased
    // copy stands, and the watch write below lands only if nobody else changed the case since.
    const quiet = !noted && !applied && r.kind !== 'status' && !c.claim && !c.doc.submit_unknown;
    const seen = quiet ? c : await this.settled(c, r, now);
    if (!seen) return;
    if (!isTerminal(seen.status))
      await this.hooks
        .afterCheck?.(seen)
        .catch((err) => e.log.warn({ case: c.id, err: String(err) }, 'watch hook failed'));
    const etag = r.kind === 'status' ? r.etag : c.etag;
    const look = { r, now, failures, etag };
    if (quiet && heldUntil !== undefined && (await this.keepHeld(seen, look, heldUntil))) return;
    // A hook, a tap or an event changed the case since `seen` was read: schedule from a fresh read.
    if (await this.writeLook(seen, look, seen.version)) return;
    const fresh = await e.store.getCase(c.id);
    if (fresh) await this.writeLook(fresh, look);
  }

  /**
   * After a quiet look at a held case: keeps its next look here when it falls within the hold, with
   * a lease's length to spare (a look must end before the hold does). Nothing is written: the row
   * still says what it said (ETag, no failures), and its next check is the hold's end.
   */
  private async keepHeld(
    c: StoredCase,
    look: { r: PollResult; now: number; failures: number },
    until: number,
  ): Promise<boolean> {
    if (look.failures || c.poll_failures) return false;
    // A healthy stream stretches the next look to the maximum: that is for the store to keep.
    if (await this.hooks.streaming?.(c)) return false;
    const wake = this.hooks.wakeAt?.(c);
    const expires = Date.parse(c.doc.hitl.expires_at);
    const next = this.nextCheck(expires, look.now, 0, look.r.retryAfterMs, false, wake);
    if (next > until - this.o.leaseMs) return false;
    // Nothing but polling is pending (no stream to start, no claim, no unknown submit, no failure
    // shown): the next looks, up to the next wake, need only the row.
    const plain =
      !c.doc.hitl.events_url &&
      !c.claim &&
      !c.doc.submit_unknown &&
      (!c.doc.watch || c.doc.watch.state === 'ok');
    this.holds.set(c.id, {
      until,
      due: next,
      version: plain ? c.version : Number.NaN,
      wake: wake ?? Number.POSITIVE_INFINITY,
      pollUrl: c.doc.hitl.poll_url,
      expires,
    });
    return true;
  }

  /** Writes the watch row of `x` after a look: its next check (none once final), ETag, failures. */
  private async writeLook(
    x: StoredCase,
    look: { r: PollResult; now: number; failures: number; etag: string | null },
    version?: number,
  ): Promise<boolean> {
    const final = isTerminal(x.status);
    // A healthy event stream brings changes at once; the poll is then only the safety net.
    const stretch = !final && !look.failures && ((await this.hooks.streaming?.(x)) ?? false);
    return this.writes.write({
      id: x.id,
      next_check_at: final
        ? null
        : this.nextCheck(
            Date.parse(x.doc.hitl.expires_at),
            look.now,
            look.failures,
            look.r.retryAfterMs,
            stretch,
            this.hooks.wakeAt?.(x),
          ),
      etag: look.etag,
      poll_failures: look.failures,
      ...(version === undefined ? {} : { version }),
    });
  }

  /** Applies what a poll read; a failed poll past expires_at (and the grace) shows the case expired. */
  private async apply(
    c: StoredCase,
    r: PollResult,
    now: number,
    failures: number,
  ): Promise<boolean> {
    const e = this.engine;
    if (r.kind === 'status') {
      await e.status.apply(c.id, r.update, 'poll');
      return true;
    }
    if (r.kind !== 'error') return false;
    e.log.warn(
      { case: c.id, failures, failure: r.failure, reason: r.reason },
      'poll failed: the case cannot be seen',
    );
    // The service could not be read past expires_at: the case is shown as expired, but marked
    // as the relay's own conclusion, with the watch failure that led to it.
    if (now <= Date.parse(c.doc.hitl.expires_at) + this.o.expiryGraceMs) return false;
    await e.status.apply(
      c.id,
      { status: 'expired', case_id: c.case_id, at: c.doc.hitl.expires_at },
      'local_expiry',
      (x) => {
        x.doc.unconfirmed = `not confirmed by the service (${r.failure}: ${r.reason})`;
      },
    );
    return true;
  }

  /** The case after a poll, with an unknown submit and a lapsed claim settled by what it read. */
  private async settled(c: StoredCase, r: PollResult, now: number) {
    const e = this.engine;
    let after = await e.store.getCase(c.id);
    if (!after) return undefined;
    // A tap's submit got no answer: this look tells whether the service recorded it.
    if (r.kind !== 'error' && after.doc.submit_unknown)
      after = (await checkUnknownSubmit(e, after, r)).case ?? after;
    // An expired claim is a submit whose outcome is unknown; only a poll that read the case open
    // shows it did not land (a failed poll shows nothing, and releasing then invites a second POST).
    if (r.kind !== 'error' && after.claim && after.claim.until < now && !isTerminal(after.status))
      await e.store.releaseClaim(after.id, after.claim.holder);
    return after;
  }

  /**
   * When to look next: `expires` (ms) is the case's expires_at, `wake` its next reminder or
   * escalation step (WatchHooks.wakeAt), if any.
   */
  private nextCheck(
    expires: number,
    now: number,
    failures: number,
    retryAfterMs: number | undefined,
    stretch: boolean,
    wake: number | undefined,
  ): number {
    const { pollMinMs: min, pollMaxMs: max } = this.engine.config;
    // A healthy event stream brings changes at once; the poll is then only the safety net.
    const wait = pollDelay({
      min,
      max,
      failures,
      retryAfterMs,
      streaming: stretch,
      random: Math.random,
    });
    // Nothing pulls a poll before the time the service asked for (Retry-After).
    const notBefore = now + (retryAfterMs ?? 0);
    // Look again right after expiry so the card does not keep live buttons on an expired case.
    let at = now + wait;
    if (expires > now && expires + 1000 < at) at = Math.max(notBefore, expires + 1000);
    // Wake for the next reminder too, however far the next poll is.
    return wake !== undefined && wake < at ? Math.max(now, notBefore, wake) : at;
  }
}

/**
 * Keeps the case's watch state: a failure is recorded at once (the case view, the card and a
 * notify_on=all agent see it), a good look clears it. Written only when the state changes (true then).
 */
export async function noteWatch(
  e: Pick<WatcherDeps, 'cases' | 'now'>,
  c: StoredCase,
  r: PollResult,
): Promise<boolean> {
  const prev = c.doc.watch;
  if (r.kind !== 'error') {
    if (!prev || prev.state === 'ok') return false;
    await e.cases.patchDoc(c.id, {
      watch: { state: 'ok', last_error: null, since: new Date(e.now()).toISOString() },
    });
    await e.cases.history(c.id, 'watch', { state: 'ok' });
    return true;
  }
  if (prev && prev.state === r.failure && prev.last_error === r.reason) return false;
  const next: WatchState = {
    state: r.failure,
    last_error: r.reason,
    since: prev?.state === r.failure ? prev.since : new Date(e.now()).toISOString(),
  };
  await e.cases.patchDoc(c.id, { watch: next });
  if (prev?.state !== r.failure)
    await e.cases.history(c.id, 'watch', { state: r.failure, error: r.reason });
  return true;
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
