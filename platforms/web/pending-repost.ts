/**
 * `/pending`'s "Re-post" in the web chat: `POST /web/api/rooms/:room/pending/:key/repost` with
 * `{"user":{"id":"..."}}` posts the case's card again at the bottom of the room (each list item
 * names this path as `repost`). The relay checks the person, the case and the rate limit
 * (src/cases/card-repost.ts); the old card then says it moved.
 */
import type { AdapterContext, InboundRequest, InboundResponse } from '../../src/adapter.ts';
import type { RepostOutcome } from '../../src/adapter-repost.ts';
import { json, readTapBody, WEB_ROOM } from './parse.ts';

const KEY = /^[A-Za-z0-9_-]{1,64}$/;

/** The HTTP status of each outcome. */
const STATUS: Record<RepostOutcome, number> = {
  reposted: 201,
  forbidden: 403,
  closed: 409,
  busy: 409,
  rate_limited: 429,
  unknown_case: 404,
  failed: 502,
};

/** The path a list item's "Re-post" is pressed at. */
export function repostPath(room: string, key: string): string {
  return `/web/api/rooms/${room}/pending/${key}/repost`;
}

/** A press of "Re-post" on a `/pending` item: the card posted again, or why not. */
export async function repostPending(
  req: InboundRequest,
  deps: { ctx(): AdapterContext | undefined },
): Promise<InboundResponse> {
  const { room = '', key = '' } = req.params;
  if (!WEB_ROOM.test(room))
    return json(400, { error: 'invalid_room', message: 'room must be 1-64 of A-Z a-z 0-9 _ -' });
  if (!KEY.test(key))
    return json(400, { error: 'invalid_key', message: 'key must be the `key` of a pending item' });
  const body = readTapBody(req);
  if ('status' in body) return body;
  const ctx = deps.ctx();
  if (!ctx?.repost)
    return json(503, { error: 'not_started', message: 'the web chat is not running; try again' });
  const reply = await ctx.repost.press({ platform: 'web', address: room, key, user: body.user });
  return json(STATUS[reply.outcome], {
    outcome: reply.outcome,
    text: reply.text,
    message: reply.card?.id ?? null,
  });
}
