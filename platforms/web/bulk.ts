/**
 * Bulk decisions from the web inbox, in two steps. `POST /web/api/inbox/bulk` with `action` and
 * `keys` is the preview: it names exactly which cases would get which action (and which are left
 * out, with why) and gives a confirm token; nothing is sent. The same route with that `confirm`
 * token (single use, this person only, a few minutes) submits each case through the same tap
 * path as a press on its card (allowlist, policy, quorum, per-case checks), one after another,
 * and answers each case's own outcome: one refusal does not stop the others.
 */
import { createHash, randomBytes } from 'node:crypto';
import type {
  AdapterContext,
  InboundRequest,
  InboundResponse,
  InboxItem,
} from '../../src/adapter.ts';
import { json, readTapBody, WEB_ACTION, type WebTapBody, webTap } from './parse.ts';
import type { WebMessage } from './render.ts';
import type { WebRooms } from './rooms.ts';

/** Cases one bulk decision may name at most. */
export const BULK_MAX = 50;
const TOKEN_TTL_MS = 5 * 60_000;
const KEY = /^[A-Za-z0-9_-]{1,64}$/;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** What a confirm token stands for (kept in the adapter's key-value space, never sent back). */
interface BulkPlan {
  user: string;
  action: string;
  items: { key: string; room: string; message: string }[];
}

/** Why a row may not be in a bulk decision with `action` (undefined: any of its bulk actions), or null. */
export function bulkReason(
  item: InboxItem,
  m: WebMessage | undefined,
  action?: string,
): string | null {
  if (item.bulk_refusal) return item.bulk_refusal;
  if (!m || m.final) return 'already decided';
  if (m.ask) return 'needs an answer typed on its card';
  const acts = m.actions.filter((a) => !action || a.action === action);
  if (!acts.length) return `has no ${action} button`;
  if (acts.every((a) => a.confirm)) return 'cannot be undone: confirm it on its own card';
  return null;
}

/** The actions of a row that a bulk decision may take (reversible ones only), none when it may not. */
export function bulkActions(item: InboxItem, m: WebMessage | undefined): string[] {
  if (bulkReason(item, m) !== null || !m) return [];
  return m.actions.filter((a) => !a.confirm).map((a) => a.action);
}

const planKey = (token: string) =>
  `web:bulk:${createHash('sha256').update(token).digest('base64url')}`;

/** What a bulk decision reads and uses. */
export interface BulkDeps {
  rooms: WebRooms;
  ctx(): AdapterContext | undefined;
}

interface BulkBody {
  tap: WebTapBody;
  action?: string;
  keys?: string[];
  confirm?: string;
}

/** The body read and checked (JSON only, as every POST of the web chat), or the 4xx. */
function bodyOf(req: InboundRequest): BulkBody | InboundResponse {
  if (!/^application\/json\s*(;|$)/i.test(req.headers['content-type'] ?? ''))
    return json(415, {
      error: 'unsupported_media_type',
      message: 'send Content-Type: application/json',
    });
  const read = readTapBody(req);
  if ('status' in read) return read;
  // A bulk decision takes no typed answer: cases that need one are not in it.
  const tap = { user: read.user, answer: {} };
  const b = JSON.parse(req.rawBody.toString('utf8')) as Record<string, unknown>;
  if (b.confirm !== undefined)
    return typeof b.confirm === 'string' && TOKEN.test(b.confirm)
      ? { tap, confirm: b.confirm }
      : json(400, { error: 'invalid_confirm', message: 'confirm must be the token of a preview' });
  if (typeof b.action !== 'string' || !WEB_ACTION.test(b.action))
    return json(400, { error: 'invalid_action', message: 'action must be 1-32 of a-z and _' });
  const keys = b.keys;
  if (
    !Array.isArray(keys) ||
    !keys.length ||
    !keys.every((k) => typeof k === 'string' && KEY.test(k))
  )
    return json(400, { error: 'invalid_keys', message: 'keys must be a list of case keys' });
  if (keys.length > BULK_MAX)
    return json(413, {
      error: 'too_many',
      message: `at most ${BULK_MAX} cases in one bulk decision`,
    });
  return { tap, action: b.action, keys: [...new Set(keys as string[])] };
}

/** The preview: which cases get `action`, which are left out and why; a token to confirm with. */
async function preview(
  ctx: AdapterContext,
  d: BulkDeps,
  b: BulkBody & { action: string; keys: string[] },
) {
  const user = b.tap.user;
  const found = (await ctx.inbox!({ platform: 'web', user, mine: false, keys: b.keys })).items;
  const chosen: { key: string; prompt: string; room: string; message: string; label: string }[] =
    [];
  const skipped: { key: string; prompt: string | null; reason: string }[] = [];
  for (const key of b.keys) {
    const item = found.find((i) => i.key === key);
    const m = item?.card ? await d.rooms.load(item.card.id) : undefined;
    const label = m?.actions.find((a) => a.action === b.action)?.label ?? b.action;
    const at =
      item && m ? { key, prompt: item.prompt, room: m.room!, message: m.id, label } : undefined;
    let reason = item
      ? bulkReason(item, m, b.action)
      : 'not in your inbox (decided, or not yours to decide)';
    if (!reason && at && ctx.mayAnswer)
      reason =
        (await ctx.mayAnswer(webTap(key, b.action, at.room, at.message, b.tap)))?.text ?? null;
    if (reason || !at)
      skipped.push({ key, prompt: item?.prompt ?? null, reason: reason ?? 'no card' });
    else chosen.push(at);
  }
  const confirm = chosen.length ? randomBytes(32).toString('base64url') : null;
  if (confirm) {
    const items = chosen.map(({ key, room, message }) => ({ key, room, message }));
    const plan: BulkPlan = { user: user.id, action: b.action, items };
    await ctx.kv.set(planKey(confirm), JSON.stringify(plan), TOKEN_TTL_MS);
  }
  const label = chosen[0]?.label ?? b.action;
  const list = chosen.map((c) => `${c.prompt} (web:${c.room})`).join('; ');
  const text = `${label}: ${chosen.length} case${chosen.length === 1 ? '' : 's'}${list ? ` — ${list}` : ''}`;
  return json(200, {
    action: b.action,
    count: chosen.length,
    text,
    items: chosen,
    skipped,
    confirm,
  });
}

/** How a tap's outcome reads in a bulk answer: only `submitted` is a confirmed decision. */
function resultOf(outcome: string): 'confirmed' | 'unconfirmed' | 'refused' {
  if (outcome === 'submitted') return 'confirmed';
  return ['unconfirmed', 'submit_unknown', 'submit_not_recorded', 'vote_recorded'].includes(outcome)
    ? 'unconfirmed'
    : 'refused';
}

/** The confirmed decision: each case of the plan through the tap path, each with its own outcome. */
async function submit(ctx: AdapterContext, b: BulkBody & { confirm: string }) {
  const key = planKey(b.confirm);
  const raw = await ctx.kv.get(key);
  const plan = raw ? (JSON.parse(raw) as BulkPlan) : undefined;
  // Single use across replicas: only the request that deletes the plan submits it.
  if (!raw || !plan || plan.user !== b.tap.user.id || !(await ctx.kv.compareAndDelete(key, raw)))
    return json(409, {
      error: 'confirm_expired',
      message: 'that confirmation is used, expired or not yours; preview again',
    });
  const results = [];
  for (const i of plan.items) {
    const reply = await ctx.onTap(webTap(i.key, plan.action, i.room, i.message, b.tap));
    results.push({
      ...i,
      result: resultOf(reply.outcome),
      outcome: reply.outcome,
      text: reply.text,
    });
  }
  return json(200, { action: plan.action, results });
}

/** `POST /web/api/inbox/bulk`: a preview (action, keys) or its confirmation (confirm). */
export async function bulkDecide(req: InboundRequest, d: BulkDeps): Promise<InboundResponse> {
  const b = bodyOf(req);
  if ('status' in b) return b;
  const ctx = d.ctx();
  if (!ctx?.inbox)
    return json(503, { error: 'not_started', message: 'the web chat is not running; try again' });
  if (b.confirm) return submit(ctx, { ...b, confirm: b.confirm });
  return preview(ctx, d, { ...b, action: b.action!, keys: b.keys! });
}
