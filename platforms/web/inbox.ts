/**
 * The web inbox's API: `GET /web/api/inbox?user=<id>[&room=][&service=][&type=][&policy=][&cursor=][&wait=N]`
 * lists this person's open cases across every room, newest first, each with the buttons of its card
 * in its room (a press goes to that card's tap route, the same pipeline as a press on the card).
 * With `?wait=N` and `If-None-Match` an unchanged inbox is answered when any room changes (the
 * rooms' change signals, never a timer re-reading the store), or 304 after N seconds.
 */
import { createHash } from 'node:crypto';
import type { AdapterContext, InboundRequest, InboundResponse } from '../../src/adapter.ts';
import { bulkReason } from '../../src/adapter-bulk.ts';
import { stringsOf } from '../../src/adapter-kit.ts';
import { json, WEB_ROOM } from './parse.ts';
import type { WebRooms } from './rooms.ts';
import { INBOX_TOPIC, type RoomWaits, WEB_WAIT_MAX_SECONDS } from './waits.ts';

const USER = /^.{1,128}$/s;
const CURSOR = /^[A-Za-z0-9_-]{1,200}$/;
const FILTER = /^[A-Za-z0-9_.:[\]-]{1,128}$/;
/** A policy's name as configured (any key of `policies`), or "X+case" for one laid over at intake. */
const POLICY = /^[^\p{Cc}]{1,100}$/u;

/** What the inbox route reads. */
export interface InboxRouteDeps {
  rooms: WebRooms;
  waits: RoomWaits;
  ctx(): AdapterContext | undefined;
}

interface InboxArgs {
  user: string;
  room: string | undefined;
  service: string | undefined;
  type: string | undefined;
  /** A policy name; null: `policy=none`, cases without a policy. */
  policy: string | null | undefined;
  cursor: string | undefined;
  wait: number;
}

/** The query read and checked, or the 400 that names what is wrong. */
function argsOf(req: InboundRequest): InboxArgs | InboundResponse {
  const q = (k: string) => req.query.get(k) || undefined;
  const user = q('user') ?? '';
  if (!USER.test(user))
    return json(400, { error: 'invalid_user', message: 'user (1-128 characters) is required' });
  const room = q('room');
  if (room !== undefined && !WEB_ROOM.test(room))
    return json(400, { error: 'invalid_room', message: 'room must be 1-64 of A-Z a-z 0-9 _ -' });
  const cursor = q('cursor');
  if (cursor !== undefined && !CURSOR.test(cursor))
    return json(400, { error: 'invalid_cursor', message: 'cursor must be the `next` of a page' });
  const [service, type, policy] = [q('service'), q('type'), q('policy')];
  if (
    [service, type].some((f) => f !== undefined && !FILTER.test(f)) ||
    (policy !== undefined && !POLICY.test(policy))
  )
    return json(400, { error: 'invalid_filter', message: 'service, type and policy are names' });
  const wait = Number(q('wait') ?? 0);
  if (!Number.isFinite(wait) || wait < 0)
    return json(400, { error: 'invalid_wait', message: `wait must be 0-${WEB_WAIT_MAX_SECONDS}` });
  const p = policy === 'none' ? null : policy;
  return {
    user,
    room,
    service,
    type,
    policy: p,
    cursor,
    wait: Math.min(wait, WEB_WAIT_MAX_SECONDS),
  };
}

/** One page of the inbox, each case with its card's room, message id and buttons. */
async function read(ctx: AdapterContext, a: InboxArgs, rooms: WebRooms) {
  const page = await ctx.inbox!({
    platform: 'web',
    address: a.room,
    user: { id: a.user },
    mine: false,
    cursor: a.cursor,
    service: a.service,
    type: a.type,
    policy: a.policy,
  });
  const rows = await Promise.all(
    page.items.map(async (item) => {
      const { card, chats, bulk_refusal: _, ...i } = item;
      const m = card ? await rooms.load(card.id) : undefined;
      const reason = bulkReason(stringsOf(ctx).pending.bulk.reasons, item);
      return {
        ...i,
        bulk: { actions: reason ? [] : item.bulk.actions.map((a) => a.action), reason },
        room: card?.address ?? chats[0]!,
        rooms: chats,
        message: card?.id ?? null,
        actions: (m && !m.final && !m.ask ? m.actions : []).map(({ action, label, style }) => ({
          action,
          label,
          style,
        })),
      };
    }),
  );
  return { items: rows, next: page.next };
}

/** The inbox page's data, or 304 while it is unchanged (waited for with `?wait=N`). */
export async function listInbox(
  req: InboundRequest,
  deps: InboxRouteDeps,
  client: string,
): Promise<InboundResponse> {
  const a = argsOf(req);
  if ('status' in a) return a;
  const ctx = deps.ctx();
  if (!ctx?.inbox)
    return json(503, { error: 'not_started', message: 'the web chat is not running; try again' });
  const wait = a.wait > 0 ? deps.waits.open(INBOX_TOPIC, client, req.signal, INBOX_TOPIC) : null;
  if (a.wait > 0 && !wait)
    return {
      status: 429,
      headers: { 'retry-after': '5' },
      body: { error: 'too_many_waits', message: 'too many open waits from this client; try again' },
    };
  try {
    const until = Date.now() + a.wait * 1000;
    for (;;) {
      const body = await read(ctx, a, deps.rooms);
      const etag = `"${createHash('sha256').update(JSON.stringify(body)).digest('base64url').slice(0, 22)}"`;
      const headers = { etag, 'cache-control': 'no-store' };
      if (req.headers['if-none-match'] !== etag) return { status: 200, headers, body };
      if (!wait || (await wait.next(until)) !== 'changed') return { status: 304, headers };
    }
  } finally {
    wait?.close();
  }
}
