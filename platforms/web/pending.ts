/**
 * `/pending` in the web chat: `GET /web/api/rooms/:room/pending?user=<id>[&mine=1][&cursor=...]`
 * lists the room's open cases this person may decide, a page at a time (the page draws it; each
 * item links to its card by message id). The web chat has one shared sign-in (WEB_CHAT_TOKEN),
 * so the person is the one the page says, as for its taps.
 */
import type { AdapterContext, InboundRequest, InboundResponse } from '../../src/adapter.ts';
import { json, WEB_ROOM } from './parse.ts';
import { repostPath } from './pending-repost.ts';

const USER = /^.{1,128}$/s;
const CURSOR = /^[A-Za-z0-9_-]{1,200}$/;

/** One page of the room's pending cases for `user`. */
export async function listPending(
  req: InboundRequest,
  deps: { ctx(): AdapterContext | undefined },
): Promise<InboundResponse> {
  const room = req.params.room ?? '';
  if (!WEB_ROOM.test(room))
    return json(400, { error: 'invalid_room', message: 'room must be 1-64 of A-Z a-z 0-9 _ -' });
  const user = req.query.get('user') ?? '';
  if (!USER.test(user))
    return json(400, { error: 'invalid_user', message: 'user (1-128 characters) is required' });
  const cursor = req.query.get('cursor') ?? undefined;
  if (cursor !== undefined && !CURSOR.test(cursor))
    return json(400, { error: 'invalid_cursor', message: 'cursor must be the `next` of a page' });
  const ctx = deps.ctx();
  if (!ctx?.pending)
    return json(503, { error: 'not_started', message: 'the web chat is not running; try again' });
  const page = await ctx.pending({
    platform: 'web',
    address: room,
    user: { id: user },
    mine: req.query.get('mine') === '1',
    cursor,
  });
  return {
    status: 200,
    headers: { 'cache-control': 'no-store' },
    body: {
      items: page.items.map(({ bulk: _, ...i }) => ({
        ...i,
        message: i.card?.id ?? null,
        card: undefined,
        repost: repostPath(room, i.key),
      })),
      next: page.next,
    },
  };
}
