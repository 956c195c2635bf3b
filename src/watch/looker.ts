/**
 * One look at a leased case: poll it, apply what the service says, and schedule the next look, kept
 * in memory while the lease holds the case and nothing changed (see watcher.ts), else written to
 * the store. A held case unchanged since a quiet look is polled from its row alone.
 */

import { isTerminal } from '../protocol/types.ts';
import { tapInFlightHere } from '../service-client/confirm-by-poll.ts';
import {
  checkVariants,
  type PollResult,
  pollCase,
  pollDelay,
  pollOnce,
  watchHeaders,
} from '../service-client/poll.ts';
import { checkUnknownSubmit } from '../service-client/unknown-submit.ts';
import type { HeldCase } from '../store/store.ts';
import type { StoredCase, WatchState } from '../store/types.ts';
import type { Hold, Holds } from './holds.ts';
import type { WatcherDeps, WatchHooks } from './watch-deps.ts';
import type { WatchWrites } from './watch-writes.ts';

/** Looks at cases for a Watcher (its holds, its batched watch writes, its hooks). */
export class Looker {
  constructor(
    private readonly deps: WatcherDeps,
    private readonly hooks: WatchHooks,
    private readonly holds: Holds,
    private readonly writes: WatchWrites,
    private readonly o: { leaseMs: number; expiryGraceMs: number },
  ) {}

  /** A held case read whole (it changed, or has more to it than a poll): the usual look. */
  async fullCheck(id: string, until: number): Promise<void> {
    const c = await this.deps.store.getCase(id);
    if (c && c.next_check_at !== null && !isTerminal(c.status)) await this.check(c, until);
  }

  /**
   * A held case unchanged since a quiet look: polled from its row. A 304 keeps it held and writes
   * nothing; any other answer reads the case whole and goes on as a usual look.
   */
  async leanCheck(row: HeldCase, h: Hold): Promise<void> {
    const e = this.deps;
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
      await this.afterPoll(c, checkVariants(c, r), now, h.until);
  }

  /**
   * Polls one leased case and schedules its next look: here while the lease (ending at `heldUntil`)
   * holds it and nothing changed, else in the store.
   */
  async check(c: StoredCase, heldUntil?: number): Promise<void> {
    const e = this.deps;
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
    const e = this.deps;
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
    const e = this.deps;
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
    const e = this.deps;
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
    const { pollMinMs: min, pollMaxMs: max } = this.deps.config;
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
