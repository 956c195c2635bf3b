/** Adapters' HTTP routes on the relay's server, with the peer's and the client's address. */
import type { Hono } from 'hono';
import type { HttpRoute, InboundResponse } from '../adapter.ts';
import { clientAddress, parseTrustedProxies, type TrustedProxies } from '../net/trusted-proxy.ts';

/** Serves an adapter's route: the raw body is read once (size-limited above) and handed over. */
export function mountRoute(
  app: Hono,
  route: HttpRoute,
  proxies: TrustedProxies = parseTrustedProxies(''),
): void {
  app.on(route.method, route.path, async (c) => {
    const headers: Record<string, string> = {};
    c.req.raw.headers.forEach((v, k) => {
      headers[k.toLowerCase()] = v;
    });
    const res = await route.handle({
      method: c.req.method,
      path: c.req.path,
      query: new URL(c.req.url).searchParams,
      headers,
      rawBody: Buffer.from(await c.req.arrayBuffer()),
      params: c.req.param() as Record<string, string>,
      ...peerOf(c.env, headers, proxies),
      signal: c.req.raw.signal,
    });
    return toResponse(res);
  });
}

/**
 * The peer's address from @hono/node-server's bindings (absent elsewhere), and the client's: the
 * peer's, or behind a trusted proxy the client it forwarded for.
 */
function peerOf(
  env: unknown,
  headers: Record<string, string>,
  proxies: TrustedProxies,
): { remoteAddress?: string; clientAddress?: string } {
  const address = (env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)
    ?.incoming?.socket?.remoteAddress;
  const client = clientAddress(address, headers, proxies);
  return {
    ...(address && { remoteAddress: address }),
    ...(client && { clientAddress: client }),
  };
}

function toResponse(res: InboundResponse): Response {
  const headers = new Headers(res.headers ?? {});
  let body: BodyInit | null = null;
  if (typeof res.body === 'string') body = res.body;
  else if (Buffer.isBuffer(res.body)) body = new Uint8Array(res.body);
  else if (res.body !== undefined) {
    body = JSON.stringify(res.body);
    if (!headers.has('content-type'))
      headers.set('content-type', 'application/json; charset=utf-8');
  }
  return new Response(body, { status: res.status, headers });
}
