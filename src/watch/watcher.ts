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

import { OriginPool, originOf } from '../net/origin-pool.ts';
import type { WatchWrite } from '../store/store.ts';
import type { StoredCase } from '../store/types.ts';
import { Holds } from './holds.ts';
import { Looker } from './looker.ts';
import type { WatcherDeps, WatchHooks } from './watch-deps.ts';
import { WatchWrites } from './watch-writes.ts';

export type { WatcherDeps, WatchHooks };

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
  /**
   * A poll running or having run longer than this marks its origin slow: slow origins, and those
   * not yet known to answer, share three quarters of `concurrency`, so they never hold it all.
   */
  slowPollMs?: number;
  /** Monotonic milliseconds that time slowPollMs (default performance.now; tests pass a clock). */
  monotonicNow?: () => number;
  /** How long a poll may run before another replica may start one on the same case. */
  leaseMs?: number;
  /** How long a lease holds a case for looks of this process (default 10 minimum poll intervals). */
  holdMs?: number;
  /** Told of each look as it starts, with the time it was due (benchmarks measure the lag). */
  onLook?: (c: Pick<StoredCase, 'id' | 'case_id'>, dueAt: number) => void;
  /** Past expires_at by this much with the service unreachable, a case is shown as expired. */
  expiryGraceMs?: number;
}

/** Whether `after` skips an origin `before` did not (a pass learned it cannot start there now). */
function learned(before: readonly string[], after: readonly string[]): boolean {
  const known = new Set(before);
  return after.some((o) => !known.has(o));
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
  /** The clock at the last pass (to notice it stepping back). */
  private lastNow = Number.NEGATIVE_INFINITY;
  /** The watch rows of polls that end together go in one commit. */
  private readonly writes: WatchWrites;
  /** Cases this process holds, and their next looks. */
  private readonly holds = new Holds();
  private readonly looker: Looker;

  constructor(
    private readonly deps: WatcherDeps,
    options: WatcherOptions = {},
    hooks: WatchHooks = {},
  ) {
    this.o = {
      // A due case waits for the next tick: at most 250 ms keeps the poll lag well under a second
      // (docs/BENCHMARKS.md, watching at scale); the lease query is cheap when nothing is due.
      tickMs: options.tickMs ?? Math.max(20, Math.min(250, deps.config.pollMinMs / 2)),
      batch: options.batch ?? 500,
      concurrency: options.concurrency ?? 64,
      perOrigin: options.perOrigin ?? 16,
      slowPollMs: options.slowPollMs ?? 2000,
      monotonicNow: options.monotonicNow ?? (() => performance.now()),
      leaseMs: options.leaseMs ?? deps.config.leaseMs,
      holdMs:
        options.holdMs ??
        Math.max(options.leaseMs ?? deps.config.leaseMs, 10 * deps.config.pollMinMs),
      onLook: options.onLook ?? (() => {}),
      expiryGraceMs: options.expiryGraceMs ?? 60_000,
    };
    // Durations on the monotonic clock, not the relay's (which tests move and NTP can step).
    this.pool = new OriginPool(this.o.concurrency, this.o.perOrigin, () => this.slotFree(), {
      slowMs: this.o.slowPollMs,
      now: this.o.monotonicNow,
    });
    this.writes = new WatchWrites(deps.store);
    this.looker = new Looker(deps, hooks, this.holds, this.writes, this.o);
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
      const now = this.deps.now();
      // The clock stepped back (an NTP correction, a VM restore): every next check now looks far
      // away, so bring the open cases forward rather than stop polling until the clock catches up.
      if (now < this.lastNow - 5_000) {
        this.deps.log.warn(
          { by_ms: Math.round(this.lastNow - now) },
          'the clock stepped back; rescheduling open cases',
        );
        // Our holds go back first: their next looks are on the clock that stepped.
        await this.deps.store.releaseWatchLeases(
          this.deps.instanceId,
          now,
          this.deps.config.pollMinMs,
        );
        this.holds.clear();
        await this.deps.store.rescheduleOpen(now, this.deps.config.pollMinMs);
      }
      this.lastNow = now;
      n = await this.leaseAndStart(now);
    } catch (err) {
      this.deps.log.error({ err: String(err) }, 'watch tick failed');
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
   * busy service neither holds the others back nor loses its place). Origins that answer go first:
   * the due cases of slow, hanging or not yet known origins (often many, and due longest) are
   * leased after theirs, into the part of the pool those share.
   */
  private async leaseAndStart(now: number): Promise<number> {
    let n = await this.startHeld(now);
    const limited = this.pool.limited();
    if (limited.length)
      n = await this.leaseRounds(now, n, () => [...this.pool.saturated(), ...limited]);
    return this.leaseRounds(now, n, () => this.pool.saturated());
  }

  /** Leases and starts due cases of origins not in `skip()` until the batch or the pool is full. */
  private async leaseRounds(now: number, n: number, skip: () => string[]): Promise<number> {
    const e = this.deps;
    let here = 0;
    while (n < this.o.batch) {
      // Once an origin is full, skipping it costs a scan past its due cases: that is left to the
      // next timer pass, not repeated after every poll that frees a slot.
      if (here > 0 && this.pool.saturated().length > 0) break;
      // At most what the busiest origin with a free slot can still start, so a batch of one
      // service's cases does not overfill it (the rest would have to be put back).
      const room = Math.min(
        this.o.batch - n,
        this.pool.free,
        this.pool.maxPerOrigin - this.pool.busiestOpen(),
      );
      if (room <= 0) break;
      const until = now + this.o.holdMs;
      const skipped = skip();
      const due = await e.store.leaseDue(now, room, e.instanceId, this.o.holdMs, skipped);
      const back: WatchWrite[] = [];
      for (const c of due) {
        const look = () => this.looker.check(c, until);
        if (!this.tryStart(c, originOf(c.doc.hitl.poll_url), c.next_check_at ?? now, look))
          // Its origin filled up within this batch: due again, unleased, for its next free slot.
          back.push({
            id: c.id,
            next_check_at: c.next_check_at,
            etag: c.etag,
            poll_failures: c.poll_failures,
          });
      }
      if (back.length) await e.store.updateWatchMany(back);
      const started = due.length - back.length;
      n += started;
      here += started;
      if (due.length < room) break;
      // Nothing could start: go on only past origins this round taught the pool to skip (seen
      // for the first time with the lane full). Stopping there left an answering service's case
      // behind one pass per hanging origin; going on past the same cases would lease them again.
      if (started === 0 && !learned(skipped, skip())) break;
    }
    return n;
  }

  /**
   * Starts the looks at held cases that are due, as many as their origins have free slots; each is
   * read back only if its hold still stands (another writer's watch write ended it: the store has
   * it again). Only what can start now is read: a saturated origin's due holds keep their place.
   */
  private async startHeld(now: number): Promise<number> {
    const room = new Map<string, number>();
    const admit = (origin: string) => {
      const left = room.get(origin) ?? this.pool.room(origin);
      if (left <= 0) return false;
      room.set(origin, left - 1);
      return true;
    };
    const ready = this.holds.takeDue(now, Math.min(this.o.batch, this.pool.free), admit);
    if (!ready.length) return 0;
    const rows = new Map(
      (await this.deps.store.heldCases(this.deps.instanceId, ready)).map((c) => [c.id, c]),
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
      const look = lean
        ? () => this.looker.leanCheck(row, h)
        : () => this.looker.fullCheck(row.id, h.until);
      if (this.tryStart(row, h.origin, h.due, look)) n++;
      else this.holds.set(h.id, h); // a slot was taken while the rows were read: next free slot
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
          this.deps.log.error({ case: c.id, err: String(err) }, 'watching a case failed'),
        )
        .finally(() => this.holds.settle(c.id)); // a look that did not keep it lets it go
    if (!this.pool.tryRun(origin, run)) return false;
    this.o.onLook(c, dueAt);
    return true;
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

  /** One look at a leased case (tests drive looks themselves). */
  check(c: StoredCase): Promise<void> {
    return this.looker.check(c);
  }
}
