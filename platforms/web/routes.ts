/** The web chat's HTTP routes: the page, sign-in, the room listing (a long-poll) and taps. */
import type {
  AdapterContext,
  HttpRoute,
  InboundRequest,
  InboundResponse,
} from '../../src/adapter.ts';
import { stringsOf } from '../../src/adapter-kit.ts';
import { bulkDecide } from './bulk.ts';
import { listInbox } from './inbox.ts';
import { inboxPage } from './inbox-page.ts';
import { chatPage, FAVICON_SVG } from './page.ts';
import { json, readTapBody, WEB_ACTION, WEB_ROOM, webTap } from './parse.ts';
import { listPending } from './pending.ts';
import { repostPending } from './pending-repost.ts';
import { pwaRoutes } from './pwa.ts';
import { publicMessage, renderWebMessage } from './render.ts';
import type { WebRooms } from './rooms.ts';
import { returnPath, sessionCookie, signedIn, signInPage, tokenFrom } from './signin.ts';
import { type RoomWaits, WEB_WAIT_MAX_SECONDS } from './waits.ts';

/** What the routes share with the adapter. */
export interface WebRouteDeps {
  rooms: WebRooms;
  waits: RoomWaits;
  token: string | undefined;
  demo: boolean;
  ctx(): AdapterContext | undefined;
}

const html = (status: number, body: string, headers: Record<string, string> = {}) => ({
  status,
  headers: { 'content-type': 'text/html; charset=utf-8', ...headers },
  body,
});
const roomOf = (raw: string | null | undefined) =>
  WEB_ROOM.test(raw ?? '') ? (raw as string) : 'lobby';
const invalidRoom = () =>
  json(400, { error: 'invalid_room', message: 'room must be 1-64 of A-Z a-z 0-9 _ -' });
/** The web chat's JSON API without a session: say how to get one. */
export const unauthorized = () =>
  json(401, {
    error: 'unauthorized',
    message:
      'sign in at /chat with the WEB_CHAT_TOKEN, or send Authorization: Bearer <WEB_CHAT_TOKEN>',
  });

/** The form's sign-in: on to its `next` page (a safe relative path only) or the room's chat. */
async function signIn(req: InboundRequest, token: string | undefined): Promise<InboundResponse> {
  const form = new URLSearchParams(req.rawBody.toString('utf8'));
  const room = roomOf(form.get('room'));
  const next = returnPath(form.get('next'));
  const location = next ?? `/chat?room=${room}`;
  if (!token) return { status: 303, headers: { location } };
  const given = tokenFrom(req);
  if (!signedIn({ ...req, headers: { authorization: `Bearer ${given}` } }, token))
    return html(
      401,
      signInPage(room, 'That token is not right. Ask whoever runs the relay.', next),
    );
  return { status: 303, headers: { location, 'set-cookie': sessionCookie(req, token) } };
}

/** The inbox page as a path with its query (the filters), where its sign-in goes back to. */
const inboxPath = (req: InboundRequest) => `/inbox${req.query.size ? `?${req.query}` : ''}`;

/** `?wait=<seconds>`: how long an unchanged room may be waited for (0: answer at once). */
function waitSeconds(req: InboundRequest): number | null {
  const raw = req.query.get('wait');
  if (raw === null || raw === '') return 0;
  const n = Number(raw);
  return Number.isFinite(n) && n >= 0 ? Math.min(n, WEB_WAIT_MAX_SECONDS) : null;
}

/**
 * Who is waiting, for the per-client bound: the client's address as the server tells it (the peer,
 * or behind a proxy named in TRUST_PROXY the client it forwarded for). A forwarding header from
 * anyone else is not believed, so forging one buys no more waits.
 */
function clientOf(req: InboundRequest): string {
  return req.clientAddress ?? req.remoteAddress ?? 'unknown';
}

/**
 * The room's messages, or 304 when the page already has this version. With `?wait=N` an unchanged
 * room is answered when it changes (woken by the change signal, never by re-reading on a timer),
 * or 304 after N seconds; the page then asks again.
 */
async function listRoom(req: InboundRequest, deps: WebRouteDeps): Promise<InboundResponse> {
  if (!signedIn(req, deps.token)) return unauthorized();
  const room = req.params.room ?? '';
  if (!WEB_ROOM.test(room)) return invalidRoom();
  const seconds = waitSeconds(req);
  if (seconds === null)
    return json(400, {
      error: 'invalid_wait',
      message: `wait must be 0-${WEB_WAIT_MAX_SECONDS} seconds`,
    });
  const wait = seconds > 0 ? deps.waits.open(room, clientOf(req), req.signal) : null;
  if (seconds > 0 && !wait)
    return {
      status: 429,
      headers: { 'retry-after': '5' },
      body: {
        error: 'too_many_waits',
        message: 'too many open waits from this client; try again in a moment',
      },
    };
  try {
    const until = Date.now() + seconds * 1000;
    for (;;) {
      const etag = `"${await deps.rooms.version(room)}"`;
      if (req.headers['if-none-match'] !== etag) {
        const messages = await deps.rooms.messages(room);
        return { status: 200, headers: { etag }, body: messages.map(publicMessage) };
      }
      if (!wait || (await wait.next(until)) !== 'changed')
        return { status: 304, headers: { etag } };
    }
  } finally {
    wait?.close();
  }
}

/** A tap on a message's button: handed to the relay, answered with its outcome and the message. */
async function tapMessage(req: InboundRequest, deps: WebRouteDeps): Promise<InboundResponse> {
  if (!signedIn(req, deps.token)) return unauthorized();
  const { room = '', id = '', action = '' } = req.params;
  if (!WEB_ROOM.test(room)) return invalidRoom();
  if (!WEB_ACTION.test(action))
    return json(400, { error: 'invalid_action', message: 'action must be 1-32 of a-z and _' });
  const body = readTapBody(req);
  if ('status' in body) return body;
  const m = await deps.rooms.load(id);
  if (!m?.key || m.room !== room)
    return json(404, { error: 'not_found', message: 'no such message in this room' });
  const ctx = deps.ctx();
  if (!ctx)
    return json(503, {
      error: 'not_started',
      message: 'the web chat is not running (the relay is starting or stopping); try again',
    });
  const reply = await ctx.onTap(webTap(m.key, action, room, id, body));
  // The reply's card is the case as the tap left it. The room's stored message is edited in the
  // background, behind the case's other card edits (a slow platform holds them all), so it may
  // still show the card from before the tap.
  const now = reply.card
    ? renderWebMessage(m.id, reply.card, m.reply_to)
    : ((await deps.rooms.load(id)) ?? m);
  return json(reply.outcome === 'invalid_answer' ? 422 : 200, {
    outcome: reply.outcome,
    text: reply.text,
    ...(reply.issues ? { issues: reply.issues } : {}),
    message: publicMessage(now),
  });
}

/** Every route of the web chat. */
export function webRoutes(deps: WebRouteDeps): HttpRoute[] {
  return [
    {
      method: 'GET',
      path: '/chat',
      handle: async (req) =>
        signedIn(req, deps.token)
          ? html(200, chatPage({ demo: deps.demo, words: stringsOf(deps.ctx()).asks }))
          : html(401, signInPage(roomOf(req.query.get('room')))),
    },
    { method: 'POST', path: '/chat/signin', handle: (req) => signIn(req, deps.token) },
    {
      method: 'GET',
      path: '/favicon.ico',
      handle: async () => ({
        status: 200,
        headers: { 'content-type': 'image/svg+xml', 'cache-control': 'public, max-age=86400' },
        body: FAVICON_SVG,
      }),
    },
    ...pwaRoutes(),
    { method: 'GET', path: '/web/api/rooms/:room/messages', handle: (req) => listRoom(req, deps) },
    {
      method: 'GET',
      path: '/inbox',
      handle: async (req) =>
        signedIn(req, deps.token)
          ? html(200, inboxPage())
          : html(401, signInPage(roomOf(req.query.get('room')), undefined, inboxPath(req))),
    },
    {
      method: 'GET',
      path: '/web/api/inbox',
      handle: async (req) =>
        signedIn(req, deps.token) ? listInbox(req, deps, clientOf(req)) : unauthorized(),
    },
    {
      method: 'POST',
      path: '/web/api/inbox/bulk',
      handle: async (req) => (signedIn(req, deps.token) ? bulkDecide(req, deps) : unauthorized()),
    },
    {
      method: 'GET',
      path: '/web/api/rooms/:room/pending',
      handle: async (req) => (signedIn(req, deps.token) ? listPending(req, deps) : unauthorized()),
    },
    {
      method: 'POST',
      path: '/web/api/rooms/:room/pending/:key/repost',
      handle: async (req) =>
        signedIn(req, deps.token) ? repostPending(req, deps) : unauthorized(),
    },
    {
      method: 'POST',
      path: '/web/api/rooms/:room/messages/:id/actions/:action',
      handle: (req) => tapMessage(req, deps),
    },
  ];
}
