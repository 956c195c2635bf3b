/**
 * The web chat's Web Push API: the VAPID public key a page subscribes with, and a person's
 * subscriptions (add, list, remove). Bodies are JSON of at most 4 KiB; every field is checked and a
 * wrong one is a 400 that names it.
 */
import type { HttpRoute, InboundRequest, InboundResponse } from '../../src/adapter.ts';
import { json, WEB_ROOM } from './parse.ts';
import type { WebPusher } from './push.ts';
import type { PushSubscriptionRecord } from './push-store.ts';

const BODY_MAX = 4096;
const USER = /^.{1,128}$/s;
const B64URL = /^[A-Za-z0-9_-]+=*$/;

type Gate = (req: InboundRequest) => InboundResponse | null;

const bad = (error: string, message: string) => json(400, { error, message });

/** The endpoint: https, or http on loopback (tests; the URL policy decides what is reached). */
function endpointRefusal(raw: unknown): string | null {
  if (typeof raw !== 'string' || raw.length > 2048)
    return 'endpoint must be a URL of at most 2048 characters';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'endpoint must be a URL';
  }
  const loopback = /^(127\.\d+\.\d+\.\d+|\[::1\]|localhost)$/.test(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback))
    return 'endpoint must be an https URL (a push service)';
  return url.username || url.password ? 'endpoint must not carry credentials' : null;
}

function keyBytes(raw: unknown): Buffer | null {
  return typeof raw === 'string' && raw.length <= 128 && B64URL.test(raw)
    ? Buffer.from(raw, 'base64url')
    : null;
}

/** The body read and checked into a subscription, or the 4xx that says what is wrong. */
function readSubscription(
  req: InboundRequest,
): Omit<PushSubscriptionRecord, 'id' | 'created'> | InboundResponse {
  if (req.rawBody.length > BODY_MAX)
    return json(413, { error: 'too_large', message: `body must be at most ${BODY_MAX} bytes` });
  if (!/^application\/json\s*(;|$)/i.test(req.headers['content-type'] ?? ''))
    return json(415, {
      error: 'unsupported_media_type',
      message: 'send Content-Type: application/json',
    });
  let body: {
    user?: unknown;
    subscription?: { endpoint?: unknown; keys?: { p256dh?: unknown; auth?: unknown } };
    rooms?: unknown;
  };
  try {
    body = JSON.parse(req.rawBody.toString('utf8')) ?? {};
  } catch {
    return bad(
      'invalid_json',
      'body must be JSON: {"user":"...","subscription":{...},"rooms":[...]}',
    );
  }
  if (typeof body !== 'object') return bad('invalid_json', 'body must be a JSON object');
  if (typeof body.user !== 'string' || !USER.test(body.user))
    return bad('invalid_user', 'user (1-128 characters) is required');
  const sub = body.subscription;
  const why = endpointRefusal(sub?.endpoint);
  if (why) return bad('invalid_endpoint', why);
  const p256dh = keyBytes(sub?.keys?.p256dh);
  if (p256dh?.length !== 65 || p256dh[0] !== 4)
    return bad(
      'invalid_keys',
      'keys.p256dh must be an uncompressed P-256 public key (65 bytes, base64url)',
    );
  const auth = keyBytes(sub?.keys?.auth);
  if (auth?.length !== 16) return bad('invalid_keys', 'keys.auth must be 16 bytes, base64url');
  const rooms = body.rooms ?? [];
  if (
    !Array.isArray(rooms) ||
    rooms.length > 50 ||
    !rooms.every((r) => typeof r === 'string' && WEB_ROOM.test(r))
  )
    return bad('invalid_rooms', 'rooms must be at most 50 room names (1-64 of A-Z a-z 0-9 _ -)');
  return {
    user: body.user,
    endpoint: sub!.endpoint as string,
    keys: { p256dh: p256dh.toString('base64url'), auth: auth.toString('base64url') },
    rooms: [...new Set(rooms as string[])],
  };
}

/** What a listing shows of a subscription: never its keys; the endpoint's origin only. */
const view = (s: PushSubscriptionRecord) => ({
  id: s.id,
  service: new URL(s.endpoint).origin,
  rooms: s.rooms,
  created: s.created,
});

function userOf(req: InboundRequest): string | InboundResponse {
  const user = req.query.get('user') ?? '';
  return USER.test(user) ? user : bad('invalid_user', 'user (1-128 characters) is required');
}

/** The push routes, each behind the web chat's sign-in (`gate`). */
export function pushRoutes(pusher: () => WebPusher | undefined, gate: Gate): HttpRoute[] {
  const guarded =
    (handle: (req: InboundRequest, p: WebPusher) => Promise<InboundResponse>) =>
    async (req: InboundRequest): Promise<InboundResponse> => {
      const refused = gate(req);
      if (refused) return refused;
      const p = pusher();
      if (!p)
        return json(404, { error: 'push_off', message: 'Web Push is not enabled on this relay' });
      return handle(req, p);
    };
  return [
    {
      method: 'GET',
      path: '/web/api/push/key',
      handle: guarded(async (_req, p) => json(200, { publicKey: (await p.vapid()).publicKey })),
    },
    {
      method: 'GET',
      path: '/web/api/push/subscriptions',
      handle: guarded(async (req, p) => {
        const user = userOf(req);
        if (typeof user !== 'string') return user;
        return json(200, { items: (await p.subscriptions.list(user)).map(view) });
      }),
    },
    {
      method: 'POST',
      path: '/web/api/push/subscriptions',
      handle: guarded(async (req, p) => {
        const sub = readSubscription(req);
        if ('status' in sub) return sub;
        const saved = await p.subscriptions.add(sub);
        if (!saved)
          return json(409, {
            error: 'too_many',
            message: 'this person has 10 subscriptions; remove one first',
          });
        return json(201, view(saved));
      }),
    },
    {
      method: 'POST',
      path: '/web/api/push/subscriptions/:id/remove',
      handle: guarded(async (req, p) => {
        const user = userOf(req);
        if (typeof user !== 'string') return user;
        const gone = await p.subscriptions.remove(user, req.params.id ?? '');
        return gone
          ? { status: 204 }
          : json(404, { error: 'not_found', message: 'no such subscription of this person' });
      }),
    },
  ];
}
