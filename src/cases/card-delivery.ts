/** Posting and editing the cards of cases: once per (case, target), in order, and reconciled after restarts. */
import type { MessageRef, PlatformAdapter } from '../adapter.ts';
import { PlatformError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { Card } from '../render/card.ts';
import type { KvWrite, Store } from '../store/store.ts';
import type { HistoryEntry, StoredCase, StoredMessage } from '../store/types.ts';
import { editCard } from './card-edit.ts';
import {
  type PostingLeaseDeps,
  postingLeaseKey,
  renewPostingLease,
  takePostingLease,
} from './posting-lease.ts';
import { retryRecord } from './record-retry.ts';
import type { CaseRepository } from './repository.ts';
import { earlierRounds } from './rounds.ts';
import type { Targets } from './targets.ts';

/** What card delivery touches. */
export interface CardDeliveryDeps {
  readonly store: Pick<
    Store,
    | 'listMessages'
    | 'getCase'
    | 'reserveMessage'
    | 'updateMessage'
    | 'staleMessages'
    | 'orphanCases'
    | 'kv'
  >;
  readonly adapters: ReadonlyMap<string, PlatformAdapter>;
  readonly log: Logger;
  readonly instanceId: string;
  readonly now: () => number;
  readonly config: { readonly leaseMs: number };
  readonly render: { cardOf(c: StoredCase): Promise<Card> };
  /** History rows, and the announcements of rows written with a message and of edits (metrics). */
  readonly cases: Pick<CaseRepository, 'history' | 'recorded' | 'events'>;
  readonly targets: Pick<Targets, 'resolveTargets'>;
}

/** Posts and edits cards. */
export class CardDelivery {
  /** Per-case chains so the cards of one case are edited in order. */
  private readonly refreshing = new Map<string, Promise<void>>();
  /** Posting leases held by a post under way in this process. */
  private readonly posting = new Set<string>();
  /** Whether a reconcile pass is running (passes never overlap). */
  private reconciling = false;

  constructor(private readonly d: CardDeliveryDeps) {}

  private get leaseMs(): number {
    return this.d.config.leaseMs;
  }

  /** The message slot of a case on one target, as reserved before its first post. */
  reservation(c: StoredCase, target: string): StoredMessage {
    const platform = target.slice(0, target.indexOf(':'));
    return {
      case_id: c.id,
      target,
      platform,
      address: target.slice(platform.length + 1),
      ref_id: null,
      state: 'posting',
      rendered_version: c.version,
      error: null,
      posted_at: this.d.now(),
    };
  }

  /** The posting lease of a message, as written with the case at intake (this process posts it). */
  leaseOf(m: StoredMessage): KvWrite {
    return {
      key: postingLeaseKey(m),
      value: this.d.instanceId,
      until: this.d.now() + this.leaseMs,
    };
  }

  /**
   * Posts the case's card to each target that has none yet. The slots are normally reserved with
   * the case; a case stored without them (by an older version, before a crash) gets them here.
   * A slot whose post is under way elsewhere is left alone (the posting lease), so this is safe
   * to call again for the same case: a retried intake finishes what the first one left undone.
   * `reserved`: the slots intake just stored for `c` with this process's posting leases (nothing
   * to look up again); returns the messages as they then stand.
   */
  async deliver(
    c: StoredCase,
    targets: string[],
    reserved?: StoredMessage[],
  ): Promise<StoredMessage[]> {
    const { store } = this.d;
    const existing = reserved ?? (await store.listMessages(c.id));
    const todo = targets.filter((t) => {
      const m = existing.find((x) => x.target === t);
      return !m || m.state === 'posting';
    });
    if (!todo.length) return existing;
    const current = reserved ? c : ((await store.getCase(c.id)) ?? c);
    const card = await this.d.render.cardOf(current);
    const after = new Map<string, StoredMessage>();
    await Promise.all(
      todo.map(async (target) => {
        const m = existing.find((x) => x.target === target) ?? this.reservation(current, target);
        if (!existing.includes(m)) await store.reserveMessage(m);
        const done = await this.post({ ...m, rendered_version: current.version }, card, {
          replyTo: await this.threadRoot(current, target),
          c: current,
          leased: !!reserved,
        });
        if (done) after.set(target, done);
      }),
    );
    return existing.map((m) => after.get(m.target) ?? m);
  }

  /** Every round of a chain replies to the first round's card in the same chat: one thread per chain. */
  private async threadRoot(c: StoredCase, target: string): Promise<MessageRef | undefined> {
    for (const id of await earlierRounds(this.d.store, c)) {
      const root = (await this.d.store.listMessages(id)).find(
        (x) => x.target === target && x.ref_id,
      );
      if (root?.ref_id) return { platform: root.platform, address: root.address, id: root.ref_id };
    }
    return undefined;
  }

  /** The posting-lease view of these deps. */
  private get leases(): PostingLeaseDeps {
    const d = this.d;
    return {
      kv: d.store.kv,
      instanceId: d.instanceId,
      now: d.now,
      leaseMs: this.leaseMs,
      log: d.log,
      cases: d.cases,
    };
  }

  /**
   * Posts one reserved message and records the outcome, under its posting lease (posting-lease.ts).
   * `leased`: the lease was taken with the reservation in the same write (intake), so neither it
   * nor the slot is looked up again. `c`: the case as the caller holds it. Returns the message as
   * stored after the attempt (undefined when nothing was attempted).
   */
  async post(
    m: StoredMessage,
    card: Card,
    o: { replyTo?: MessageRef | undefined; c?: StoredCase; leased?: boolean } = {},
  ): Promise<StoredMessage | undefined> {
    const adapter = this.d.adapters.get(m.platform);
    if (!adapter) return undefined;
    const lease = postingLeaseKey(m);
    if (this.posting.has(lease)) return undefined;
    if (!o.leased && !(await takePostingLease(this.leases, m))) return undefined;
    this.posting.add(lease);
    const renew = renewPostingLease(this.leases, lease);
    // The outcome, its history row and the lease release are one write.
    const write = { released: false, lease };
    let unrecorded = false;
    try {
      // Under the lease, look again: another process may have posted it since the caller looked.
      if (!o.leased && (await this.postedElsewhere(m))) return undefined;
      const ref = await adapter.post(
        m.address,
        card,
        o.replyTo ? { replyTo: o.replyTo } : undefined,
      );
      try {
        return await this.recordPosted(m, ref, o.c, write);
      } catch (err) {
        if (write.released) throw err;
        // Sent, record missing: keep the lease and retry the record, never the post.
        unrecorded = true;
        retryRecord(
          () => this.recordPosted(m, ref, o.c, write).then(() => {}),
          this.d.log,
          { case: m.case_id, target: m.target },
          () => {
            clearInterval(renew);
            this.posting.delete(lease);
          },
        );
        return { ...m, ref_id: ref.id, state: 'posted', error: null };
      }
    } catch (err) {
      if (write.released) throw err;
      return await this.recordFailed(m, err, write);
    } finally {
      if (!unrecorded) {
        clearInterval(renew);
        this.posting.delete(lease);
        if (!write.released) await this.d.store.kv.compareAndDelete(lease, this.d.instanceId);
      }
    }
  }

  /** Whether the slot of `m` is no longer waiting for a post (another process posted it). */
  private async postedElsewhere(m: StoredMessage): Promise<boolean> {
    const latest = (await this.d.store.listMessages(m.case_id)).find((x) => x.target === m.target);
    return !!latest && latest.state !== 'posting';
  }

  /** Stores a posted message with its row and the lease release (one write), then announces it. */
  private async recordPosted(
    m: StoredMessage,
    ref: MessageRef,
    c: StoredCase | undefined,
    write: { released: boolean; lease: string },
  ): Promise<StoredMessage> {
    const { now, log } = this.d;
    const posted: StoredMessage = {
      ...m,
      ref_id: ref.id,
      state: 'posted',
      error: null,
      posted_at: now(),
    };
    const row: HistoryEntry = { at: now(), kind: 'posted', detail: { target: m.target } };
    await this.d.store.updateMessage(posted, { history: [row], ...this.release(write.lease) });
    write.released = true;
    this.d.cases.recorded(m.case_id, row);
    this.d.cases.events.emit('posted', m.case_id, c);
    // The platform followed the chat to a new address (a Telegram group became a supergroup).
    if (ref.address !== m.address) {
      const to = `${m.platform}:${ref.address}`;
      await this.d.cases.history(m.case_id, 'target_moved', { target: m.target, to });
      log.warn({ case: m.case_id, target: m.target, to }, 'the chat moved; update the target');
    }
    return posted;
  }

  /** Stores a failed post (retried later unless the platform refused it for good). */
  private async recordFailed(
    m: StoredMessage,
    err: unknown,
    write: { released: boolean; lease: string },
  ): Promise<StoredMessage> {
    const { now, log } = this.d;
    const retry = err instanceof PlatformError ? err.retryable : true;
    const error = err instanceof Error ? err.message : String(err);
    const failed: StoredMessage = {
      ...m,
      state: retry ? 'posting' : 'failed',
      error,
      posted_at: now(),
    };
    const row: HistoryEntry = {
      at: now(),
      kind: 'post_failed',
      detail: { target: m.target, error, will_retry: retry },
    };
    await this.d.store.updateMessage(failed, { history: [row], ...this.release(write.lease) });
    write.released = true;
    this.d.cases.recorded(m.case_id, row);
    log.warn({ case: m.case_id, target: m.target, err: error }, 'posting a card failed');
    return failed;
  }

  /** The lease release that goes with a message write. */
  private release(lease: string) {
    return { releaseLease: lease, leaseOwner: this.d.instanceId };
  }

  /** Edits every message of the case whose card is behind the case's version, in order. */
  refresh(id: string, known?: StoredCase): Promise<void> {
    const prev = this.refreshing.get(id) ?? Promise.resolve();
    const next = prev
      .then(() => this.refreshNow(id, known))
      .catch((err) => this.d.log.warn({ case: id, err: String(err) }, 'card refresh failed'));
    this.refreshing.set(id, next);
    void next.finally(() => {
      if (this.refreshing.get(id) === next) this.refreshing.delete(id);
    });
    return next;
  }

  /** Resolves once the card edits of case `id` queued so far are done (at once when there are none). */
  settled(id: string): Promise<void> {
    return this.refreshing.get(id) ?? Promise.resolve();
  }

  /** `known`: the case as a change just wrote it (not read again). */
  private async refreshNow(id: string, known?: StoredCase): Promise<void> {
    const { store } = this.d;
    const c = known ?? (await store.getCase(id));
    if (!c) return;
    const behind = (await store.listMessages(id)).filter(
      (m) => m.state === 'posted' && m.ref_id && m.rendered_version < c.version,
    );
    if (!behind.length) return;
    const card = await this.d.render.cardOf(c);
    await Promise.all(behind.map((m) => editCard(this.d, id, m, card, c.version)));
  }

  /**
   * Posts the case's card again on every target whose message is gone (or whose post failed for
   * good), as it stands now. Returns the targets it posted to; the others are left alone.
   */
  async repost(id: string): Promise<string[]> {
    const { store, now } = this.d;
    const c = await store.getCase(id);
    if (!c) return [];
    const lost = (await store.listMessages(id)).filter(
      (m) => m.state === 'gone' || m.state === 'failed',
    );
    if (!lost.length) return [];
    const card = await this.d.render.cardOf(c);
    const done: string[] = [];
    for (const m of lost) {
      const fresh: StoredMessage = {
        ...m,
        ref_id: null,
        state: 'posting',
        rendered_version: c.version,
        error: null,
        posted_at: now(),
      };
      await store.updateMessage(fresh);
      await this.d.cases.history(id, 'repost', { target: m.target });
      await this.post(fresh, card, { replyTo: await this.threadRoot(c, m.target), c });
      done.push(m.target);
    }
    return done;
  }

  /**
   * Retries unposted messages, brings every card up to its case's version. Answers how long its
   * store scans took (the loop paces itself by them) and the stale messages the pass began from
   * (the delivery give-up looks at the same list rather than scanning again).
   */
  async reconcile(options: {
    retryPostingOlderThanMs: number;
  }): Promise<{ scanMs: number; stale: StoredMessage[] }> {
    if (this.reconciling) return { scanMs: 0, stale: [] };
    this.reconciling = true;
    try {
      const { store, now } = this.d;
      const cases = new Set<string>();
      const t0 = performance.now();
      const stale = await store.staleMessages(500);
      let scanMs = performance.now() - t0;
      for (const m of stale) {
        if (m.state !== 'posting') {
          cases.add(m.case_id);
          continue;
        }
        if ((m.posted_at ?? 0) > now() - options.retryPostingOlderThanMs) continue;
        const c = await store.getCase(m.case_id);
        if (c)
          await this.post({ ...m, rendered_version: c.version }, await this.d.render.cardOf(c), {
            replyTo: await this.threadRoot(c, m.target),
            c,
          });
      }
      await Promise.all([...cases].map((id) => this.refresh(id)));
      // Cases an older version stored without their messages (a crash between two writes).
      const t1 = performance.now();
      const orphans = await store.orphanCases(now() - options.retryPostingOlderThanMs, 100);
      scanMs += performance.now() - t1;
      for (const c of orphans) {
        let targets: string[];
        try {
          targets = this.d.targets.resolveTargets(c.target);
        } catch {
          continue; // its platform or route is no longer configured
        }
        this.d.log.warn({ case: c.id }, 'a stored case had no message; posting it now');
        await this.deliver(c, targets);
      }
      return { scanMs, stale };
    } finally {
      this.reconciling = false;
    }
  }
}
