/**
 * Bulk decisions from the web inbox, in two steps. `POST /web/api/inbox/bulk` with `action` and
 * `keys` is the preview: it names exactly which cases would get which action (and which are left
 * out, with why) and gives a confirm token; nothing is sent. The same route with that `confirm`
 * token (single use, this person only, a few minutes) submits each case through the same tap
 * path as a press on its card. Both steps are the shared path of src/adapter-bulk.ts, the one
 * every chat's `/pending` list uses too; this file reads and answers the web's JSON.
 */
import type { AdapterContext, InboundRequest, InboundResponse } from '../../src/adapter.ts';
import { BULK_MAX, BULK_TOKEN, bulkPreview, bulkSubmit } from '../../src/adapter-bulk.ts';
import { json, readTapBody, WEB_ACTION, type WebTapBody } from './parse.ts';

export { BULK_MAX };

const KEY = /^[A-Za-z0-9_-]{1,64}$/;

/** What a bulk decision reads and uses. */
export interface BulkDeps {
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
    return typeof b.confirm === 'string' && BULK_TOKEN.test(b.confirm)
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
async function preview(ctx: AdapterContext, b: BulkBody & { action: string; keys: string[] }) {
  const p = await bulkPreview(ctx, {
    platform: 'web',
    user: b.tap.user,
    action: b.action,
    keys: b.keys,
  });
  const items = p.chosen.map((c) => ({
    key: c.key,
    prompt: c.prompt,
    room: c.ref.address,
    message: c.ref.id,
    label: c.label,
  }));
  const list = items.map((c) => `${c.prompt} (web:${c.room})`).join('; ');
  const n = items.length;
  const text = `${p.label}: ${n} case${n === 1 ? '' : 's'}${list ? ` — ${list}` : ''}`;
  return json(200, {
    action: b.action,
    count: n,
    text,
    items,
    skipped: p.skipped,
    confirm: p.confirm,
  });
}

/** The confirmed decision: each case of the plan through the tap path, each with its own outcome. */
async function submit(ctx: AdapterContext, b: BulkBody & { confirm: string }) {
  const done = await bulkSubmit(ctx, { platform: 'web', confirm: b.confirm, user: b.tap.user });
  if (!done)
    return json(409, {
      error: 'confirm_expired',
      message: 'that confirmation is used, expired or not yours; preview again',
    });
  const results = done.results.map(({ key, ref, result, outcome, text }) => ({
    key,
    room: ref.address,
    message: ref.id,
    result,
    outcome,
    text,
  }));
  return json(200, { action: done.action, results });
}

/** `POST /web/api/inbox/bulk`: a preview (action, keys) or its confirmation (confirm). */
export async function bulkDecide(req: InboundRequest, d: BulkDeps): Promise<InboundResponse> {
  const b = bodyOf(req);
  if ('status' in b) return b;
  const ctx = d.ctx();
  if (!ctx?.inbox)
    return json(503, { error: 'not_started', message: 'the web chat is not running; try again' });
  if (b.confirm) return submit(ctx, { ...b, confirm: b.confirm });
  return preview(ctx, { ...b, action: b.action!, keys: b.keys! });
}
