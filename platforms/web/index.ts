/**
 * The web chat: a real browser page at /chat?room=NAME and a JSON API under /web/api/ so tests,
 * scripts and the demo can read messages and tap buttons. Messages live in the relay's key-value
 * store, so they survive restarts like every other platform's messages do.
 */
import { randomBytes } from 'node:crypto';
import type {
  AdapterContext,
  HttpRoute,
  InboundResponse,
  MessageRef,
  PlatformAdapter,
} from '../../src/adapter.ts';
import { PlatformError } from '../../src/errors.ts';
import type { Card } from '../../src/render/card.ts';
import { answerOf } from './ask-controls.ts';
import { chatPage, FAVICON_SVG } from './page.ts';
import { publicMessage, renderWebMessage, renderWebNotice, type WebMessage } from './render.ts';
import { sessionCookie, signedIn, signInPage, tokenFrom } from './signin.ts';

/** Room names: short, URL-safe. */
export const WEB_ROOM = /^[A-Za-z0-9_-]{1,64}$/;
/** Action names as button payloads carry them (`hitl:<key>:<action>`). */
const WEB_ACTION = /^[a-z_]{1,32}$/;

/** Options of the web chat. */
export interface WebChatOptions {
  /** WEB_CHAT_TOKEN: when set, people sign in with it (a session cookie), scripts send it as Bearer. */
  token?: string | undefined;
  /** Show the "New demo case" buttons (the demo service is mounted and /v1/cases needs no key). */
  demo?: boolean;
}

/**
 * How long the web chat keeps a message after its last post or edit. The web chat is a window on
 * cases, not their record (that is the case store with its own retention), so old rooms fade.
 */
export const WEB_MESSAGE_TTL_MS = 30 * 86_400_000;
/** Most messages a room shows (the newest); older ones stay reachable through the case API. */
export const WEB_ROOM_MAX_MESSAGES = 500;
/** Slots read per room listing (keys sort as text, so all live slots are read, then the newest kept). */
const ROOM_LIST_LIMIT = 10_000;

/** Creates the web chat adapter. */
export function createWebAdapter(options: WebChatOptions = {}): PlatformAdapter {
  let ctx: AdapterContext | undefined;
  const { token } = options;
  const demoButtons = options.demo ?? true;

  const kv = () => {
    if (!ctx) throw new PlatformError('web', 'kv', 'remote', 'the web chat is not started');
    return ctx.kv;
  };
  const load = async (id: string): Promise<WebMessage | undefined> => {
    const raw = await kv().get(`web:msg:${id}`);
    return raw ? JSON.parse(raw) : undefined;
  };
  /** Each write keeps a message (and its room's entries) for WEB_MESSAGE_TTL_MS from then. */
  const save = (m: WebMessage) =>
    kv().set(`web:msg:${m.id}`, JSON.stringify(m), WEB_MESSAGE_TTL_MS);
  /**
   * A room's version changes with every post, edit and notice in it (on any replica: it lives in
   * the shared key-value store), so a page that already has the room's messages is answered 304
   * after one read instead of reading every message again each second.
   */
  const versionKey = (room: string) => `web:room:${room}:v`;
  const bump = (room: string) =>
    kv().set(versionKey(room), randomBytes(6).toString('base64url'), WEB_MESSAGE_TTL_MS);
  const slot = (room: string, i: number) => `web:room:${room}:${i}`;
  const countKey = (room: string) => `web:room:${room}:n`;
  /**
   * Appends a message id to its room in O(1): each position is claimed with setIfAbsent, so
   * concurrent posts (from any replica) never lose each other; the count is only a starting hint.
   */
  const append = async (room: string, m: WebMessage) => {
    let i = Number((await kv().get(countKey(room))) ?? 0);
    while (!(await kv().setIfAbsent(slot(room, i), m.id, WEB_MESSAGE_TTL_MS))) i++;
    // A slot whose message was never saved (a crash here) lists nothing: load() finds no message.
    await save({ ...m, slot: i });
    await kv().set(countKey(room), String(i + 1), WEB_MESSAGE_TTL_MS);
  };
  /** The room's message ids in posting order: one listing of its live slots. */
  const roomIds = async (room: string): Promise<string[]> => {
    const prefix = `web:room:${room}:`;
    return (await kv().list(prefix, ROOM_LIST_LIMIT))
      .map((e) => ({ i: Number(e.key.slice(prefix.length)), id: e.value }))
      .filter((e) => Number.isInteger(e.i)) // not the :n and :v entries
      .sort((a, b) => a.i - b.i)
      .slice(-WEB_ROOM_MAX_MESSAGES)
      .map((e) => e.id);
  };

  const json = (status: number, body: object): InboundResponse => ({ status, body });
  const html = (status: number, body: string, headers: Record<string, string> = {}) => ({
    status,
    headers: { 'content-type': 'text/html; charset=utf-8', ...headers },
    body,
  });
  const roomOf = (raw: string | null | undefined) =>
    WEB_ROOM.test(raw ?? '') ? (raw as string) : 'lobby';
  /** The web chat's JSON API without a session: say how to get one. */
  const unauthorized = () =>
    json(401, {
      error: 'unauthorized',
      message:
        'sign in at /chat with the WEB_CHAT_TOKEN, or send Authorization: Bearer <WEB_CHAT_TOKEN>',
    });

  const routes: HttpRoute[] = [
    {
      method: 'GET',
      path: '/chat',
      handle: async (req) =>
        signedIn(req, token)
          ? html(200, chatPage({ demo: demoButtons }))
          : html(401, signInPage(roomOf(req.query.get('room')))),
    },
    {
      method: 'POST',
      path: '/chat/signin',
      async handle(req): Promise<InboundResponse> {
        const room = roomOf(new URLSearchParams(req.rawBody.toString('utf8')).get('room'));
        if (!token) return { status: 303, headers: { location: `/chat?room=${room}` } };
        const given = tokenFrom(req);
        if (!signedIn({ ...req, headers: { authorization: `Bearer ${given}` } }, token))
          return html(
            401,
            signInPage(room, 'That token is not right. Ask whoever runs the relay.'),
          );
        return {
          status: 303,
          headers: { location: `/chat?room=${room}`, 'set-cookie': sessionCookie(req, token) },
        };
      },
    },
    {
      method: 'GET',
      path: '/favicon.ico',
      handle: async () => ({
        status: 200,
        headers: { 'content-type': 'image/svg+xml', 'cache-control': 'public, max-age=86400' },
        body: FAVICON_SVG,
      }),
    },
    {
      method: 'GET',
      path: '/web/api/rooms/:room/messages',
      async handle(req) {
        if (!signedIn(req, token)) return unauthorized();
        const room = req.params.room ?? '';
        if (!WEB_ROOM.test(room))
          return json(400, {
            error: 'invalid_room',
            message: 'room must be 1-64 of A-Z a-z 0-9 _ -',
          });
        let version = await kv().get(versionKey(room));
        if (version === undefined) {
          await bump(room);
          version = (await kv().get(versionKey(room))) ?? '';
        }
        const etag = `"${version}"`;
        if (req.headers['if-none-match'] === etag) return { status: 304, headers: { etag } };
        const ids = await roomIds(room);
        const messages = (await Promise.all(ids.map(load))).filter((m): m is WebMessage => !!m);
        return { status: 200, headers: { etag }, body: messages.map(publicMessage) };
      },
    },
    {
      method: 'POST',
      path: '/web/api/rooms/:room/messages/:id/actions/:action',
      async handle(req) {
        if (!signedIn(req, token)) return unauthorized();
        const { room = '', id = '', action = '' } = req.params;
        if (
          req.rawBody.length > 0 &&
          !/^application\/json\s*(;|$)/i.test(req.headers['content-type'] ?? '')
        )
          return json(415, {
            error: 'unsupported_media_type',
            message: 'send Content-Type: application/json with {"user":{"id":"...","name":"..."}}',
          });
        if (!WEB_ROOM.test(room))
          return json(400, {
            error: 'invalid_room',
            message: 'room must be 1-64 of A-Z a-z 0-9 _ -',
          });
        if (!WEB_ACTION.test(action))
          return json(400, {
            error: 'invalid_action',
            message: 'action must be 1-32 of a-z and _',
          });
        let user: { id?: unknown; name?: unknown } | undefined;
        let answer: ReturnType<typeof answerOf> = {};
        try {
          const body: unknown = JSON.parse(req.rawBody.toString('utf8') || '{}');
          // A JSON null or scalar has no user; it gets the invalid_user answer below, not a crash.
          user =
            typeof body === 'object' && body !== null
              ? (body as { user?: typeof user }).user
              : undefined;
          answer = answerOf(body);
        } catch {
          return json(400, {
            error: 'invalid_json',
            message: 'body must be JSON: {"user":{"id":"...","name":"..."}}',
          });
        }
        if (!user || typeof user.id !== 'string' || !user.id || user.id.length > 128)
          return json(400, {
            error: 'invalid_user',
            message: 'user.id (string, 1-128 characters) is required',
          });
        if (user.name !== undefined && (typeof user.name !== 'string' || user.name.length > 128))
          return json(400, {
            error: 'invalid_user',
            message: 'user.name must be a string of at most 128 characters',
          });
        const m = await load(id);
        if (!m?.key || m.room !== room)
          return json(404, { error: 'not_found', message: 'no such message in this room' });
        if (!ctx)
          return json(503, {
            error: 'not_started',
            message: 'the web chat is not running (the relay is starting or stopping); try again',
          });
        const reply = await ctx.onTap({
          platform: 'web',
          key: m.key,
          action,
          user: { id: user.id, ...(typeof user.name === 'string' ? { name: user.name } : {}) },
          ref: { platform: 'web', address: room, id },
          ...answer,
        });
        const now = (await load(id)) ?? m;
        return json(reply.outcome === 'invalid_answer' ? 422 : 200, {
          outcome: reply.outcome,
          text: reply.text,
          ...(reply.issues ? { issues: reply.issues } : {}),
          message: publicMessage(now),
        });
      },
    },
  ];

  return {
    platform: 'web',
    routes,
    async start(c) {
      ctx = c;
    },
    async stop() {
      ctx = undefined;
    },
    async checkAddress(room) {
      return WEB_ROOM.test(room) ? null : 'a web room name is 1-64 of A-Z a-z 0-9 _ -';
    },
    async post(room: string, card: Card, options): Promise<MessageRef> {
      if (!WEB_ROOM.test(room))
        throw new PlatformError(
          'web',
          'post',
          'bad_request',
          'room must be 1-64 of A-Z a-z 0-9 _ -',
        );
      const id = randomBytes(8).toString('base64url');
      await append(room, { ...renderWebMessage(id, card, options?.replyTo?.id ?? null), room });
      await bump(room);
      return { platform: 'web', address: room, id };
    },
    async update(ref: MessageRef, card: Card): Promise<void> {
      const m = await load(ref.id);
      if (!m) throw new PlatformError('web', 'update', 'not_found', 'message not found');
      await save({
        ...renderWebMessage(ref.id, card, m.reply_to),
        room: ref.address,
        slot: m.slot,
      });
      // The edit keeps the message's place in its room as long as the message itself (a message
      // stored before slots expired has no slot number, and its slot never expires).
      if (m.slot !== undefined)
        await kv().compareAndSet(slot(ref.address, m.slot), ref.id, ref.id, WEB_MESSAGE_TTL_MS);
      await bump(ref.address);
    },
    async notify(ref, text, link) {
      const id = randomBytes(8).toString('base64url');
      await append(ref.address, { ...renderWebNotice(id, text, link, ref.id), room: ref.address });
      await bump(ref.address);
    },
  };
}
