/** Posting and editing the cards of cases: once per (case, target), in order, and reconciled after restarts. */
import type { MessageRef } from '../adapter.ts';
import { PlatformError } from '../errors.ts';
import type { Card } from '../render/card.ts';
import type { Engine } from './engine.ts';
import type { StoredCase, StoredMessage } from './types.ts';

/**
 * How long a post may take before another replica may post the message again: longer than any
 * send-pace queue we expect (a burst of a few hundred cases into one chat at 1/s).
 */
const POSTING_LEASE_MS = 15 * 60_000;

/** Delivers cards for the engine. */
export class CardDelivery {
  /** Per-case chains so the cards of one case are edited in order. */
  private readonly refreshing = new Map<string, Promise<void>>();
  /** Posting leases held by a post under way in this process. */
  private readonly posting = new Set<string>();
  /** Whether a reconcile pass is running (passes never overlap). */
  private reconciling = false;

  constructor(private readonly engine: Engine) {}

  /** Posts the case's card to each target once (the message slot is reserved in the store first). */
  async deliver(c: StoredCase, targets: string[]): Promise<void> {
    const { store, now } = this.engine;
    const card = await this.engine.cardOf(c);
    await Promise.all(
      targets.map(async (target) => {
        const platform = target.slice(0, target.indexOf(':'));
        const m: StoredMessage = {
          case_id: c.id,
          target,
          platform,
          address: target.slice(platform.length + 1),
          ref_id: null,
          state: 'posting',
          rendered_version: c.version,
          error: null,
          posted_at: now(),
        };
        if (!(await store.reserveMessage(m))) return;
        await this.post(m, card, await this.threadRoot(c, target));
      }),
    );
  }

  /** Every round of a chain replies to the first round's card in the same chat: one thread per chain. */
  private async threadRoot(c: StoredCase, target: string): Promise<MessageRef | undefined> {
    const ids: string[] = [];
    for (let id = c.doc.previous_id; id && ids.length < 50; ) {
      ids.unshift(id);
      id = (await this.engine.store.getCase(id))?.doc.previous_id;
    }
    for (const id of ids) {
      const root = (await this.engine.store.listMessages(id)).find(
        (x) => x.target === target && x.ref_id,
      );
      if (root?.ref_id) return { platform: root.platform, address: root.address, id: root.ref_id };
    }
    return undefined;
  }

  /**
   * Posts one reserved message and records the outcome. A post can wait long in a platform's send
   * pace, so it holds a lease in the shared key-value store: reconcile (in any replica) never posts
   * a message again while its first post may still be under way.
   */
  async post(m: StoredMessage, card: Card, replyTo?: MessageRef): Promise<void> {
    const { store, now, log } = this.engine;
    const adapter = this.engine.adapters.get(m.platform);
    if (!adapter) return;
    const lease = `posting:${m.case_id}:${m.target}`;
    if (this.posting.has(lease)) return;
    // Our own lease with no post of ours under way: its release was lost (the store was down), so
    // it is ours to reuse rather than to wait out.
    const own = async () => (await store.kv.get(lease)) === this.engine.instanceId;
    if (
      !(await store.kv.setIfAbsent(lease, this.engine.instanceId, POSTING_LEASE_MS)) &&
      !(await own())
    )
      return;
    this.posting.add(lease);
    // A long send-pace queue can outlast the lease: renew it while this post is still pending.
    const renew = setInterval(
      () => void store.kv.set(lease, this.engine.instanceId, POSTING_LEASE_MS).catch(() => {}),
      POSTING_LEASE_MS / 3,
    );
    renew.unref();
    try {
      const ref = await adapter.post(m.address, card, replyTo ? { replyTo } : undefined);
      await store.updateMessage({
        ...m,
        ref_id: ref.id,
        state: 'posted',
        error: null,
        posted_at: now(),
      });
      await this.engine.history(m.case_id, 'posted', { target: m.target });
    } catch (err) {
      const retry = err instanceof PlatformError ? err.retryable : true;
      const error = err instanceof Error ? err.message : String(err);
      await store.updateMessage({
        ...m,
        state: retry ? 'posting' : 'failed',
        error,
        posted_at: now(),
      });
      await this.engine.history(m.case_id, 'post_failed', {
        target: m.target,
        error,
        will_retry: retry,
      });
      log.warn({ case: m.case_id, target: m.target, err: error }, 'posting a card failed');
    } finally {
      clearInterval(renew);
      this.posting.delete(lease);
      await store.kv.set(lease, '', 1);
    }
  }

  /** Edits every message of the case whose card is behind the case's version, in order. */
  refresh(id: string): Promise<void> {
    const prev = this.refreshing.get(id) ?? Promise.resolve();
    const next = prev
      .then(() => this.refreshNow(id))
      .catch((err) => this.engine.log.warn({ case: id, err: String(err) }, 'card refresh failed'));
    this.refreshing.set(id, next);
    void next.finally(() => {
      if (this.refreshing.get(id) === next) this.refreshing.delete(id);
    });
    return next;
  }

  private async refreshNow(id: string): Promise<void> {
    const { store, log } = this.engine;
    const c = await store.getCase(id);
    if (!c) return;
    const behind = (await store.listMessages(id)).filter(
      (m) => m.state === 'posted' && m.ref_id && m.rendered_version < c.version,
    );
    if (!behind.length) return;
    const card = await this.engine.cardOf(c);
    await Promise.all(
      behind.map(async (m) => {
        const adapter = this.engine.adapters.get(m.platform);
        if (!adapter || !m.ref_id) return;
        try {
          await adapter.update({ platform: m.platform, address: m.address, id: m.ref_id }, card);
          this.engine.events.emit('edit', m.platform, 'ok'); // metrics
          // Written unconditionally: if another replica's newer edit landed first, the row then says
          // it is behind again and the next reconcile edits it once more, so cards converge.
          await store.updateMessage({ ...m, rendered_version: c.version, error: null });
        } catch (err) {
          const error = err instanceof Error ? err.message : String(err);
          this.engine.events.emit('edit', m.platform, 'failed', error); // metrics
          await store.updateMessage({ ...m, error });
          log.warn(
            { case: id, target: m.target, err: error },
            'updating a card failed; will retry',
          );
        }
      }),
    );
  }

  /** Retries unposted messages and brings every card up to its case's version (start-up and periodically). */
  async reconcile(options: { retryPostingOlderThanMs: number }): Promise<void> {
    if (this.reconciling) return;
    this.reconciling = true;
    try {
      const { store, now } = this.engine;
      const cases = new Set<string>();
      for (const m of await store.staleMessages(500)) {
        if (m.state !== 'posting') {
          cases.add(m.case_id);
          continue;
        }
        if ((m.posted_at ?? 0) > now() - options.retryPostingOlderThanMs) continue;
        const c = await store.getCase(m.case_id);
        if (c)
          await this.post(
            { ...m, rendered_version: c.version },
            await this.engine.cardOf(c),
            await this.threadRoot(c, m.target),
          );
      }
      await Promise.all([...cases].map((id) => this.refresh(id)));
    } finally {
      this.reconciling = false;
    }
  }
}
