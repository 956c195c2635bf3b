/**
 * `/pending` in a chat: the open cases this chat shows a card of, newest first, that the person
 * asking may decide (the target's allowlist and the case's approval policy), a page at a time.
 * Cases they may not decide are left out entirely, not shown greyed: nothing of them is told.
 * One indexed store read per batch (store.listOpenInChat), bounded per page.
 */
import type {
  DecidersQuery,
  PendingBulk,
  PendingItem,
  PendingPage,
  PendingQuery,
  TapUser,
} from '../adapter.ts';
import { endedByPolicy } from '../policy/escalation.ts';
import { durationWords } from '../policy/expiry-warning.ts';
import { judge } from '../policy/policy.ts';
import type { Card } from '../render/card.ts';
import { type Strings, t } from '../render/templates.ts';
import type { Store } from '../store/store.ts';
import type { StoredCase } from '../store/types.ts';
import type { CardRenderer } from './card-render.ts';
import type { Targets } from './targets.ts';

const PAGE = 5;
const MAX_PAGE = 10;
/** Store rows read per batch, and batches per page at most (a page of a chat full of others' cases). */
const BATCH = 50;
const MAX_BATCHES = 4;

/** What the list reads. */
export interface PendingDeps {
  store: Pick<Store, 'listOpenInChat' | 'listOpenOnPlatform' | 'listMessages' | 'getCaseByKey'>;
  targets: Pick<Targets, 'mayAct' | 'identityOfAccount'>;
  render: Pick<CardRenderer, 'detailsUrl' | 'cardOf'>;
  strings: Strings;
  now: () => number;
}

/** A position in a chat's list, as the opaque cursor of a page. */
export function encode(c: { created_at: number; id: string }): string {
  return Buffer.from(`${c.created_at}:${c.id}`).toString('base64url');
}

export function decode(cursor: string | undefined): { created_at: number; id: string } | undefined {
  if (!cursor) return undefined;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const at = text.indexOf(':');
  const created = Number(text.slice(0, at));
  return at > 0 && Number.isFinite(created)
    ? { created_at: created, id: text.slice(at + 1) }
    : undefined;
}

/** Whether `user` (on `platform`) may decide `c` in chat `target`: open, allowed, an approver. */
export function mayDecide(
  d: Pick<PendingDeps, 'targets'>,
  c: StoredCase,
  target: string,
  user: TapUser,
  mine = false,
): boolean {
  if (c.doc.next_id || c.doc.delivery_failed || endedByPolicy(c)) return false;
  return mayDecideAtAll(d, c, target, user, mine);
}

/** Whether `user` may decide `c` in chat `target` by its allowlist and policy, open or not. */
export function mayDecideAtAll(
  d: Pick<PendingDeps, 'targets'>,
  c: StoredCase,
  target: string,
  user: TapUser,
  mine: boolean,
): boolean {
  if (!d.targets.mayAct(c, target, user.id)) return false;
  const platform = target.slice(0, target.indexOf(':'));
  const account = `${platform}:${user.id}`;
  const identity = d.targets.identityOfAccount(account);
  const p = c.doc.policy;
  if (mine)
    return !!p?.approvers && (p.approvers.includes(identity) || p.approvers.includes(account));
  if (!p) return true;
  const v = judge(
    p,
    c.doc.votes ?? [],
    { identity, account, action: p.actions[0]! },
    c.doc.requested_by,
  );
  return !(v.kind === 'refused' && v.reason === 'not_an_approver');
}

/** A bulk refusal reason in the relay's words (templates `adapter.pending.bulk.reasons`). */
const reasonOf = (strings: Strings, key: string, view?: Record<string, unknown>) =>
  t(strings, `adapter.pending.bulk.reasons.${key}`, view);

/**
 * Why a case may not be decided in bulk, by its policy: one that needs several distinct people
 * (four-eyes) is decided on its card, where each vote and the tally are seen. Null: it may be.
 */
export function bulkRefusal(c: StoredCase, strings: Strings): string | null {
  const p = c.doc.policy;
  return p && p.required > 1 ? reasonOf(strings, 'four_eyes', { required: p.required }) : null;
}

/** What a bulk decision may do with `c` (its card as it stands): reversible inline actions only. */
function bulkOf(c: StoredCase, card: Card, strings: Strings): PendingBulk {
  const no = (key: string): PendingBulk => ({ actions: [], reason: reasonOf(strings, key) });
  const refusal = bulkRefusal(c, strings);
  if (refusal) return { actions: [], reason: refusal };
  if (card.final) return no('decided');
  if (card.ask) return no('typed');
  if (!card.actions.length) return no('no_buttons');
  const actions = card.actions
    .filter((a) => !a.confirm)
    .map(({ action, label }) => ({ action, label }));
  return actions.length ? { actions, reason: null } : no('irreversible');
}

/** The pages of `/pending`. */
export class PendingList {
  constructor(private readonly d: PendingDeps) {}

  /** One page of the chat's open cases this person may decide. */
  async page(q: PendingQuery): Promise<PendingPage> {
    const limit = Math.min(MAX_PAGE, Math.max(1, q.limit ?? PAGE));
    const target = `${q.platform}:${q.address}`;
    const chosen: StoredCase[] = [];
    let before = decode(q.cursor);
    let more = true;
    for (let i = 0; i < MAX_BATCHES && more && chosen.length <= limit; i++) {
      const rows = await this.d.store.listOpenInChat({ ...q, limit: BATCH, before });
      more = rows.length === BATCH;
      for (const c of rows) {
        before = { created_at: c.created_at, id: c.id };
        if (mayDecide(this.d, c, target, q.user, q.mine)) chosen.push(c);
        if (chosen.length > limit) break;
      }
    }
    const shown = chosen.slice(0, limit);
    // More after this page: a further case was found (the next page starts after the last one
    // shown), or the batches ran out before the rows did (it starts after the last row read).
    const last = shown[shown.length - 1];
    const next =
      chosen.length > limit && last ? encode(last) : more && before ? encode(before) : null;
    return { items: await Promise.all(shown.map((c) => this.item(c, q))), next };
  }

  /** Of `q.users`, those who may decide case `q.key` in the chat (for an ended case: could have). */
  async deciders(q: DecidersQuery): Promise<string[]> {
    const c = await this.d.store.getCaseByKey(q.key);
    if (!c) return [];
    const target = `${q.platform}:${q.address}`;
    const may = q.ended ? mayDecideAtAll : mayDecide;
    return [...new Set(q.users)].filter((id) => may(this.d, c, target, { id }, false));
  }

  /** `c` as a list item, with its card in chat (`platform`, `address`). */
  async item(c: StoredCase, q: Pick<PendingQuery, 'platform' | 'address'>): Promise<PendingItem> {
    const now = this.d.now();
    const m = (await this.d.store.listMessages(c.id)).find(
      (x) =>
        x.platform === q.platform && x.address === q.address && x.state === 'posted' && x.ref_id,
    );
    const p = c.doc.policy;
    const yes = p ? (c.doc.votes ?? []).filter((v) => p.actions.includes(v.action)).length : 0;
    const expires = Date.parse(c.doc.hitl.expires_at);
    return {
      key: c.key,
      prompt: c.doc.hitl.prompt,
      from: c.doc.requested_by ?? new URL(c.origin).host,
      age: durationWords(Math.max(1, Math.round((now - c.created_at) / 60_000)) * 60),
      expires_in: durationWords(Math.max(60, Math.round((expires - now) / 60_000) * 60)),
      expires_at: c.doc.hitl.expires_at,
      tally: p ? t(this.d.strings, 'pending.tally', { tally: yes, required: p.required }) : null,
      card: m ? { platform: m.platform, address: m.address, id: m.ref_id! } : null,
      link: this.d.render.detailsUrl(c) ?? null,
      bulk: bulkOf(c, await this.d.render.cardOf(c), this.d.strings),
    };
  }
}
