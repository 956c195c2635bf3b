/**
 * `/pending`'s "Re-post" (issue 35): a case's card posted again at the bottom of the chat it
 * targets, for one who may decide it, while it is open, at most once per case in REPOST_EVERY_MS.
 * The (case, target) message row then names the new card, so every later edit (the final one
 * too) goes to it; the old card is edited to say it moved, its buttons gone.
 */
import type { MessageRef, PlatformAdapter, TapUser } from '../adapter.ts';
import type { CardReposter, RepostOutcome, RepostQuery, RepostReply } from '../adapter-repost.ts';
import type { Logger } from '../log.ts';
import { endedByPolicy } from '../policy/escalation.ts';
import { isTerminal } from '../protocol/types.ts';
import type { Card } from '../render/card.ts';
import { type Strings, t } from '../render/templates.ts';
import type { Store } from '../store/store.ts';
import type { HistoryEntry, StoredCase, StoredMessage } from '../store/types.ts';
import type { CardDelivery } from './card-delivery.ts';
import type { CardRenderer } from './card-render.ts';
import { mayDecideAtAll } from './pending.ts';
import type { CaseRepository } from './repository.ts';
import type { Targets } from './targets.ts';

/** A case's card is re-posted at most once in this time, whoever presses (a chat is not flooded). */
export const REPOST_EVERY_MS = 30_000;

/** What a re-post touches. */
export interface CardRepostDeps {
  store: Pick<Store, 'getCaseByKey' | 'listMessages' | 'updateMessage' | 'kv'>;
  adapters: ReadonlyMap<string, PlatformAdapter>;
  targets: Pick<Targets, 'mayAct' | 'identityOfAccount'>;
  render: Pick<CardRenderer, 'cardOf'>;
  cards: Pick<CardDelivery, 'refresh' | 'settled'>;
  cases: Pick<CaseRepository, 'recorded'>;
  strings: Strings;
  log: Logger;
  now: () => number;
}

/** The card a moved card is edited to: what it was about, that it moved, no buttons or widgets. */
export function movedCard(card: Card, strings: Strings): Card {
  const { ask: _ask, openLink: _open, table: _table, ...rest } = card;
  const words = (key: string) => t(strings, `adapter.pending.repost.${key}`);
  return {
    ...rest,
    title: `${words('moved_title')}: ${card.title}`,
    lines: [],
    hint: null,
    actions: [],
    status: words('moved'),
  };
}

/** Presses of "Re-post". */
export class CardRepost implements CardReposter {
  constructor(private readonly d: CardRepostDeps) {}

  /** The label of a menu of them. */
  get menu(): string {
    return t(this.d.strings, 'adapter.pending.repost.menu');
  }

  /** The button's label. */
  get label(): string {
    return t(this.d.strings, 'adapter.pending.repost.button');
  }

  /** Re-posts case `q.key`'s card in chat `q.address` for `q.user`, when every check passes. */
  async press(q: RepostQuery): Promise<RepostReply> {
    const target = `${q.platform}:${q.address}`;
    const c = await this.d.store.getCaseByKey(q.key);
    const m = c && (await this.d.store.listMessages(c.id)).find((x) => x.target === target);
    const adapter = this.d.adapters.get(q.platform);
    // Unknown, not in this chat, or not theirs to decide: the same answer, nothing of the case told.
    if (!c || !m || !adapter) return this.reply('unknown_case');
    if (!mayDecideAtAll(this.d, c, target, q.user, false)) return this.reply('forbidden');
    if (isTerminal(c.status) || c.doc.next_id || c.doc.delivery_failed || endedByPolicy(c))
      return this.reply('closed', { status: c.doc.next_id ? 'revised' : c.status });
    if (m.state === 'posting') return this.reply('busy');
    const wait = await this.limit(c.id);
    if (wait > 0) return this.reply('rate_limited', { seconds: Math.ceil(wait / 1000) });
    return this.repost(adapter, c, m, q.user);
  }

  /** Takes the case's re-post slot; 0 when taken, else the milliseconds until it frees. */
  private async limit(id: string): Promise<number> {
    const { kv } = this.d.store;
    const key = `repost-limit:${id}`;
    const now = this.d.now();
    if (await kv.setIfAbsent(key, String(now), REPOST_EVERY_MS)) return 0;
    const last = await kv.get(key);
    const left = last === undefined ? 0 : Number(last) + REPOST_EVERY_MS - now;
    if (left > 0) return left;
    // The entry outlived its time by the relay's clock: take it over, unless another press did.
    const took =
      last === undefined
        ? await kv.setIfAbsent(key, String(now), REPOST_EVERY_MS)
        : await kv.compareAndSet(key, last, String(now), REPOST_EVERY_MS);
    return took ? 0 : REPOST_EVERY_MS;
  }

  /** Posts the card anew, swaps the message row to it (with its history row), edits the old one. */
  private async repost(
    adapter: PlatformAdapter,
    c: StoredCase,
    m: StoredMessage,
    user: TapUser,
  ): Promise<RepostReply> {
    const { store, log, now } = this.d;
    await this.d.cards.settled(c.id);
    const card = await this.d.render.cardOf(c);
    let ref: MessageRef;
    try {
      ref = await adapter.post(m.address, card);
    } catch (err) {
      log.warn({ case: c.id, target: m.target, err: String(err) }, 'a re-post failed');
      return this.reply('failed');
    }
    const old = m.state === 'posted' && m.ref_id ? m.ref_id : null;
    const row: HistoryEntry = {
      at: now(),
      kind: 'card_reposted',
      detail: { target: m.target, by: `${m.platform}:${user.id}`, from: old, to: ref.id },
    };
    const moved: StoredMessage = {
      ...m,
      ref_id: ref.id,
      state: 'posted',
      rendered_version: c.version,
      error: null,
      posted_at: now(),
    };
    await store.updateMessage(moved, { history: [row] });
    this.d.cases.recorded(c.id, row);
    // A change while the new card was being posted: bring it (now the case's card) up to date.
    void this.d.cards.refresh(c.id);
    if (old)
      await this.tellMoved(
        adapter,
        { platform: m.platform, address: m.address, id: old },
        card,
        c.id,
      );
    return { ...this.reply('reposted'), card: ref };
  }

  /** Edits the old card to say it moved; a card that cannot be edited any more is left as it is. */
  private async tellMoved(adapter: PlatformAdapter, ref: MessageRef, card: Card, id: string) {
    try {
      await adapter.update(ref, movedCard(card, this.d.strings));
    } catch (err) {
      this.d.log.warn({ case: id, err: String(err) }, 'the re-posted card could not say it moved');
    }
  }

  private reply(outcome: RepostOutcome, view?: Record<string, unknown>): RepostReply {
    const key = outcome === 'unknown_case' ? 'unknown' : outcome;
    return { outcome, text: t(this.d.strings, `adapter.pending.repost.${key}`, view), card: null };
  }
}
