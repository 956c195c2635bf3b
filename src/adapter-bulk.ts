/**
 * Bulk decisions (issue 35), the one code path of every platform: the web inbox and each chat's
 * `/pending` list. A preview names exactly which cases would get which action and which are left
 * out with why, and keeps a single-use confirm token (this person only, 5 minutes) in the shared
 * key-value store; nothing is sent. The confirmation takes the plan out of the store with
 * compareAndDelete (single use across replicas) and submits each case through `onTap`, the same
 * path as a press on its card (allowlist, policy, quorum, per-case checks), one after another,
 * each with its own outcome: one refusal does not stop the others. Platforms import this module
 * (it is on .dependency-cruiser.cjs CORE_SURFACE); it holds no platform knowledge.
 */
import { createHash, randomBytes } from 'node:crypto';
import type {
  AdapterBulkReasons,
  AdapterBulkStrings,
  AdapterContext,
  KeyValue,
  MessageRef,
  PendingItem,
  Tap,
  TapUser,
} from './adapter.ts';
import { buttonPayload, buttonStateOf, stringsOf } from './adapter-kit.ts';

/** Cases one bulk decision may name at most. */
export const BULK_MAX = 50;
const TOKEN_TTL_MS = 5 * 60_000;
/** A confirm token as a platform's payload carries it. */
export const BULK_TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** A case the preview chose: where its card is (the tap's ref) and the action's label on it. */
export interface BulkChosen {
  key: string;
  prompt: string;
  ref: MessageRef;
  label: string;
}

/** A case the preview left out, with why (prompt null: not in this person's list). */
export interface BulkSkipped {
  key: string;
  prompt: string | null;
  reason: string;
}

/** What a preview found; `confirm` is null when nothing may be submitted. */
export interface BulkPreview {
  action: string;
  /** The action's label on the first chosen card (the action's name when none is chosen). */
  label: string;
  chosen: BulkChosen[];
  skipped: BulkSkipped[];
  confirm: string | null;
}

/** One submitted case's outcome: only `submitted` is a confirmed decision. */
export interface BulkResult {
  key: string;
  prompt: string;
  ref: MessageRef;
  result: 'confirmed' | 'unconfirmed' | 'refused';
  outcome: string;
  text: string;
}

/** What a confirm token stands for (kept in the key-value store, never sent back). */
interface BulkPlan {
  user: string;
  action: string;
  label: string;
  items: { key: string; prompt: string; ref: MessageRef }[];
}

/**
 * Why `item` may not be in a bulk decision with `action` (any, when absent), in the relay's words
 * (`reasons`, from the adapter's strings), or null when it may.
 */
export function bulkReason(
  reasons: AdapterBulkReasons,
  item: Pick<PendingItem, 'bulk' | 'card'> | undefined,
  action?: string,
): string | null {
  if (!item) return reasons.unlisted;
  if (item.bulk.reason) return item.bulk.reason;
  if (!item.card) return reasons.noCard;
  if (action && !item.bulk.actions.some((a) => a.action === action))
    return reasons.noAction(action);
  return null;
}

/** Whether `item` may be in a bulk decision at all. */
const mayBulk = (item: Pick<PendingItem, 'bulk' | 'card'>) => !item.bulk.reason && !!item.card;

/** The actions several listed cases share for a bulk decision, each with how many may take it. */
export function bulkOffers(
  items: ReadonlyArray<Pick<PendingItem, 'bulk' | 'card'>>,
): { action: string; label: string; count: number }[] {
  const offers = new Map<string, { action: string; label: string; count: number }>();
  for (const i of items) {
    if (!mayBulk(i)) continue;
    for (const a of i.bulk.actions) {
      const o = offers.get(a.action) ?? { ...a, count: 0 };
      o.count++;
      offers.set(a.action, o);
    }
  }
  return [...offers.values()];
}

const planKey = (platform: string, token: string) =>
  `${platform}:bulk:${createHash('sha256').update(token).digest('base64url')}`;

/** A bulk decision's question: who, which action, which cases, in which chat (absent: any). */
export interface BulkAsk {
  platform: string;
  user: TapUser;
  action: string;
  keys: string[];
  address?: string | undefined;
}

/** The Tap of a press of `action` on the card at `ref`, by `user`. */
const tapOf = (key: string, action: string, ref: MessageRef, user: TapUser): Tap => ({
  platform: ref.platform,
  key,
  action,
  user,
  ref,
});

/** The preview: which cases get the action, which are left out and why; a token to confirm with. */
export async function bulkPreview(ctx: AdapterContext, q: BulkAsk): Promise<BulkPreview> {
  const keys = [...new Set(q.keys)].slice(0, BULK_MAX);
  const found = ctx.inbox
    ? (await ctx.inbox({ platform: q.platform, address: q.address, user: q.user, keys })).items
    : [];
  const reasons = stringsOf(ctx).pending.bulk.reasons;
  const chosen: BulkChosen[] = [];
  const skipped: BulkSkipped[] = [];
  for (const key of keys) {
    const item = found.find((i) => i.key === key);
    let reason = bulkReason(reasons, item, q.action);
    if (!reason && item?.card && ctx.mayAnswer)
      reason = (await ctx.mayAnswer(tapOf(key, q.action, item.card, q.user)))?.text ?? null;
    if (reason || !item?.card) {
      skipped.push({ key, prompt: item?.prompt ?? null, reason: reason ?? reasons.noCard });
      continue;
    }
    const label = item.bulk.actions.find((a) => a.action === q.action)?.label ?? q.action;
    chosen.push({ key, prompt: item.prompt, ref: item.card, label });
  }
  const label = chosen[0]?.label ?? q.action;
  const confirm = chosen.length ? randomBytes(32).toString('base64url') : null;
  if (confirm) {
    const items = chosen.map(({ key, prompt, ref }) => ({ key, prompt, ref }));
    const plan: BulkPlan = { user: q.user.id, action: q.action, label, items };
    await ctx.kv.set(planKey(q.platform, confirm), JSON.stringify(plan), TOKEN_TTL_MS);
  }
  return { action: q.action, label, chosen, skipped, confirm };
}

/** How a tap's outcome reads in a bulk answer: only `submitted` is a confirmed decision. */
export function bulkResultOf(outcome: string): BulkResult['result'] {
  if (outcome === 'submitted') return 'confirmed';
  return ['unconfirmed', 'submit_unknown', 'submit_not_recorded', 'vote_recorded'].includes(outcome)
    ? 'unconfirmed'
    : 'refused';
}

/**
 * The confirmed decision: each case of the plan through the tap path, each with its own outcome;
 * null when the token is used, expired or someone else's (then it stays usable by its owner).
 */
export async function bulkSubmit(
  ctx: Pick<AdapterContext, 'kv' | 'onTap'>,
  q: { platform: string; confirm: string; user: TapUser },
): Promise<{ action: string; label: string; results: BulkResult[] } | null> {
  const plan = await takePlan(ctx.kv, planKey(q.platform, q.confirm), q.user.id);
  if (!plan) return null;
  const results: BulkResult[] = [];
  for (const i of plan.items) {
    const reply = await ctx.onTap(tapOf(i.key, plan.action, i.ref, q.user));
    results.push({
      ...i,
      result: bulkResultOf(reply.outcome),
      outcome: reply.outcome,
      text: reply.text,
    });
  }
  return { action: plan.action, label: plan.label, results };
}

/** The plan at `key` when it is `user`'s, taken out of the store: only one caller gets it. */
async function takePlan(kv: KeyValue, key: string, user: string): Promise<BulkPlan | null> {
  const raw = await kv.get(key);
  const plan = raw ? (JSON.parse(raw) as BulkPlan) : undefined;
  if (!raw || !plan || plan.user !== user) return null;
  return (await kv.compareAndDelete(key, raw)) ? plan : null;
}

/** What a chat's bulk button stands for: whose list, in which chat, which action on which cases. */
export interface BulkOffer {
  address: string;
  user: string;
  mine: boolean;
  /** The page's cursor ('' for the first), for Cancel to show the list again. */
  cursor: string;
  action: string;
  keys: string[];
}

const OFFER = { prefix: 'hitlb', space: 'bulkoffer' } as const;

/** Keeps a bulk button's offer in the store; its payload is `hitlb:<token>`. */
export const bulkOfferPayload = (kv: KeyValue, offer: BulkOffer): Promise<string> =>
  buttonPayload(kv, OFFER, offer);

/** The offer of a bulk button, or null when it is not one, lapsed, or is pressed by someone else. */
export const bulkOfferOf = (
  kv: KeyValue,
  data: string | undefined,
  user: string,
): Promise<BulkOffer | null> => buttonStateOf<BulkOffer>(kv, OFFER, data, user);

/** The payload of a confirm step's Confirm button (`hitlc:<token>`), and the token back from it. */
export const bulkConfirmPayload = (confirm: string) => `hitlc:${confirm}`;
export function bulkConfirmOf(data: string | undefined): string | null {
  const m = /^hitlc:([A-Za-z0-9_-]{43})$/.exec(data ?? '');
  return m ? m[1]! : null;
}

/** The confirm step in plain lines: the cases that get the action, then those left out with why. */
export function bulkConfirmLines(words: AdapterBulkStrings, p: BulkPreview): string[] {
  if (!p.chosen.length) return [words.nothing, ...skippedLines(words, p)];
  return [
    words.confirmHeader(p.label, p.chosen.length),
    ...p.chosen.map((c, n) => `${n + 1}. ${c.prompt.replace(/\s+/g, ' ').trim()}`),
    ...skippedLines(words, p),
  ];
}

function skippedLines(words: AdapterBulkStrings, p: BulkPreview): string[] {
  if (!p.skipped.length) return [];
  return [
    words.leftOut,
    ...p.skipped.map((s) => `• ${words.skipped(s.prompt ?? words.unlisted, s.reason)}`),
  ];
}

/** The results in plain lines: each case's outcome in the relay's words. */
export function bulkResultLines(
  words: AdapterBulkStrings,
  done: { label: string; results: BulkResult[] },
): string[] {
  return [
    words.resultsHeader(done.label, done.results.length),
    ...done.results.map((r) => words.result(r.prompt, r.result, r.text)),
  ];
}
