/**
 * The inbox: one person's open cases across every chat of a platform (the web chat's rooms), newest
 * first, each with the chats it is in that this person may decide it in. The same privacy rule as
 * `/pending` (mayDecide per chat): a case they may decide nowhere is left out entirely.
 * One indexed store read per batch (store.listOpenOnPlatform), bounded per page; the service, type
 * and policy filters are part of that read, so pages and cursors count matching cases only.
 */
import type { InboxItem, InboxPage, InboxQuery } from '../adapter.ts';
import type { StoredCase } from '../store/types.ts';
import {
  bulkRefusal,
  decode,
  encode,
  mayDecide,
  type PendingDeps,
  type PendingList,
} from './pending.ts';

const PAGE = 20;
const MAX_PAGE = 50;
const BATCH = 50;
const MAX_BATCHES = 4;
/** Cases one `keys` read looks up at most (a bulk decision's size limit). */
export const INBOX_MAX_KEYS = 50;
const TERMINAL = new Set(['completed', 'expired', 'cancelled']);

/** The chats (addresses) of `platform` where `c` has a posted card this person may decide. */
async function chatsOf(d: PendingDeps, c: StoredCase, q: InboxQuery): Promise<string[]> {
  const chats = (await d.store.listMessages(c.id))
    .filter((m) => m.platform === q.platform && m.state === 'posted' && m.ref_id)
    .map((m) => m.address)
    .filter((a) => !q.address || a === q.address);
  return [...new Set(chats)].filter((a) => mayDecide(d, c, `${q.platform}:${a}`, q.user, q.mine));
}

/** The pages of a person's inbox. */
export class Inbox {
  constructor(
    private readonly d: PendingDeps,
    private readonly list: PendingList,
  ) {}

  async page(q: InboxQuery): Promise<InboxPage> {
    if (q.keys) return { items: await this.named(q, q.keys), next: null };
    const limit = Math.min(MAX_PAGE, Math.max(1, q.limit ?? PAGE));
    const chosen: { c: StoredCase; chats: string[] }[] = [];
    let before = decode(q.cursor);
    let more = true;
    for (let i = 0; i < MAX_BATCHES && more && chosen.length <= limit; i++) {
      const rows = await this.d.store.listOpenOnPlatform({
        platform: q.platform,
        limit: BATCH,
        before,
        service: q.service,
        type: q.type,
        policy: q.policy,
      });
      more = rows.length === BATCH;
      for (const c of rows) {
        before = { created_at: c.created_at, id: c.id };
        const chats = await chatsOf(this.d, c, q);
        if (chats.length) chosen.push({ c, chats });
        if (chosen.length > limit) break;
      }
    }
    const shown = chosen.slice(0, limit);
    const last = shown[shown.length - 1];
    const next =
      chosen.length > limit && last ? encode(last.c) : more && before ? encode(before) : null;
    return { items: await Promise.all(shown.map((s) => this.item(s, q))), next };
  }

  /** The named cases that are open and in this person's inbox, in the order named. */
  private async named(q: InboxQuery, keys: string[]): Promise<InboxItem[]> {
    const chosen: { c: StoredCase; chats: string[] }[] = [];
    for (const key of [...new Set(keys)].slice(0, INBOX_MAX_KEYS)) {
      const c = await this.d.store.getCaseByKey(key);
      if (!c || TERMINAL.has(c.status)) continue;
      const chats = await chatsOf(this.d, c, q);
      if (chats.length) chosen.push({ c, chats });
    }
    return Promise.all(chosen.map((s) => this.item(s, q)));
  }

  private async item(s: { c: StoredCase; chats: string[] }, q: InboxQuery): Promise<InboxItem> {
    const { c, chats } = s;
    return {
      ...(await this.list.item(c, { platform: q.platform, address: chats[0]! })),
      service: new URL(c.origin).host,
      type: c.doc.hitl.type,
      policy: c.doc.policy?.name ?? null,
      chats,
      bulk_refusal: bulkRefusal(c, this.d.strings),
    };
  }
}
