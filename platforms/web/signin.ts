/**
 * Sign-in for the web chat when WEB_CHAT_TOKEN is set: a person pastes the token once into the
 * sign-in form and gets an HttpOnly session cookie (an HMAC of the token, never the token itself);
 * scripts send `Authorization: Bearer <WEB_CHAT_TOKEN>`. Without a token the chat is open (the
 * local default, on loopback only).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { InboundRequest } from '../../src/adapter.ts';

/** The session cookie's name. */
export const SESSION_COOKIE = 'hitl_web_session';
/** A session lasts this long; then the person signs in again. */
const SESSION_SECONDS = 7 * 24 * 3600;

/** The cookie value a token signs in to (stable across replicas: they share the token). */
export function sessionValue(token: string): string {
  return createHmac('sha256', token).update('hitl-relay web chat session v1').digest('base64url');
}

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function cookie(req: InboundRequest, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim();
  }
  return undefined;
}

/** Whether the request may use the web chat: no token configured, a valid session, or the Bearer token. */
export function signedIn(req: InboundRequest, token: string | undefined): boolean {
  if (!token) return true;
  const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
  if (bearer && same(bearer, token)) return true;
  const session = cookie(req, SESSION_COOKIE);
  return !!session && same(session, sessionValue(token));
}

/** The token a sign-in form (or JSON body) carries. */
export function tokenFrom(req: InboundRequest): string {
  const raw = req.rawBody.toString('utf8');
  if (/^application\/json/i.test(req.headers['content-type'] ?? '')) {
    try {
      const body = JSON.parse(raw) as { token?: unknown };
      return typeof body?.token === 'string' ? body.token : '';
    } catch {
      return '';
    }
  }
  return new URLSearchParams(raw).get('token') ?? '';
}

/** The Set-Cookie header of a new session (Secure when the request came over HTTPS). */
export function sessionCookie(req: InboundRequest, token: string): string {
  const https = req.headers['x-forwarded-proto'] === 'https';
  return `${SESSION_COOKIE}=${sessionValue(token)}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${SESSION_SECONDS}${https ? '; Secure' : ''}`;
}

/**
 * Where a sign-in goes on to: `next` when it is one of the web chat's own pages as a same-origin
 * relative path (`/chat` or `/inbox`, with a query), else undefined. Absolute URLs, `//host`,
 * backslashes, whitespace and control characters are refused, so the form is no open redirect.
 */
export function returnPath(next: string | null | undefined): string | undefined {
  if (!next || next.length > 512 || !/^\/(chat|inbox)(\?[^\s\\#]*)?$/.test(next)) return undefined;
  const base = 'http://relay.invalid';
  const url = new URL(next, base);
  return url.origin === base && url.pathname === next.split('?')[0] ? next : undefined;
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The sign-in page. */
export function signInPage(room: string, error?: string, next?: string): string {
  const back = returnPath(next);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Sign in: hitl-relay web chat</title><link rel="icon" href="/favicon.ico" type="image/svg+xml">
<style>body{font:15px/1.45 system-ui,sans-serif;background:#f4f5f7;margin:0}main{max-width:420px;margin:12vh auto;background:#fff;padding:24px;border-radius:8px;box-shadow:0 1px 2px #0002}input{width:100%;padding:6px;margin:8px 0;box-sizing:border-box}button{padding:6px 14px}.error{color:#b91c1c}</style></head>
<body><main><h1>hitl-relay web chat</h1>
<p>This relay's web chat needs its access token (<code>WEB_CHAT_TOKEN</code>, from whoever runs the relay).</p>
${error ? `<p class="error">${escapeHtml(error)}</p>` : ''}
<form method="post" action="/chat/signin"><input type="hidden" name="room" value="${escapeHtml(room)}">${back ? `<input type="hidden" name="next" value="${escapeHtml(back)}">` : ''}
<label>Access token <input name="token" type="password" autocomplete="current-password" required autofocus></label>
<button type="submit">Sign in</button></form></main></body></html>`;
}
