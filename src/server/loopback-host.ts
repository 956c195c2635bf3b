/**
 * The local default's DNS-rebinding guard: without an API key the relay answers only requests
 * whose Host names loopback (or PUBLIC_URL's host), so a web page cannot reach it by a name.
 */
import { isIP } from 'node:net';
import type { Context } from 'hono';
import { isLoopback, isLoopbackName } from '../net/url-policy.ts';
import { ApiError } from './api-error.ts';

/** The local default: no API key, listening on loopback (the Host rule and the MCP checks apply). */
export function isLocalOnly(config: { apiKey?: string | undefined; host: string }): boolean {
  const h = config.host;
  return !config.apiKey && (isIP(h) ? isLoopback(h) : isLoopbackName(h));
}

/** Whether a Host header (as sent) is served without an API key (see above). */
export function loopbackHostServed(host: string | undefined, extra: string | undefined): boolean {
  const raw = (host ?? '').toLowerCase();
  const name = raw.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
  // No Host at all is an in-process call (an embedder's app.fetch), never a browser.
  return (
    raw === '' || name === extra || isLoopbackName(name) || (isIP(name) !== 0 && isLoopback(name))
  );
}

/** Refuses requests whose Host header is not a loopback name, a loopback address or PUBLIC_URL's host. */
export function loopbackHostOnly(publicUrl: string | undefined) {
  const extra = publicUrl ? new URL(publicUrl).hostname.toLowerCase() : undefined;
  return async (c: Context, next: () => Promise<void>) => {
    const raw = (c.req.header('host') ?? '').toLowerCase();
    if (loopbackHostServed(raw, extra)) return next();
    throw new ApiError(
      403,
      'forbidden_host',
      `Host "${raw.slice(0, 80)}" is not served: without RELAY_API_KEY the relay answers only to loopback names (set PUBLIC_URL for another)`,
    );
  };
}
