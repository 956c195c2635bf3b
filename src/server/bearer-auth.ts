/**
 * The API key rule: `Authorization: Bearer <key>` with RELAY_API_KEY or one of RELAY_API_KEYS
 * (each compared in constant time, all of them every time) when a key is set. One check for the
 * app's middleware and for the gateway's pass-through below it (gateway-front.ts).
 */
import { timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import type { NamedApiKey } from '../config/api-keys.ts';
import { ApiError } from './api-error.ts';
import './api-key-name.ts';

/** The key an Authorization header carries: its name (null for RELAY_API_KEY), or undefined. */
export type ApiKeyCheck = (
  authorization: string | undefined,
) => { name: string | null } | undefined;

/** The check of `apiKey` and the named keys; without `apiKey` every request passes (name null). */
export function apiKeyCheck(
  apiKey: string | undefined,
  named: readonly NamedApiKey[],
): ApiKeyCheck {
  const keys = [
    { name: null, key: Buffer.from(apiKey ?? '') },
    ...named.map((k) => ({ name: k.name, key: Buffer.from(k.key) })),
  ];
  const open = { name: null };
  return (authorization) => {
    if (!apiKey) return open;
    const given = Buffer.from(/^Bearer (.+)$/.exec(authorization ?? '')?.[1] ?? '');
    let match: { name: string | null } | undefined;
    for (const k of keys)
      if (k.key.length === given.length && timingSafeEqual(k.key, given)) match ??= k;
    return match && { name: match.name };
  };
}

/**
 * The middleware: refuses a request without a valid key (401), and records the named key's name
 * for the handlers (`apiKeyName`: null for RELAY_API_KEY). Not hono/bearer-auth: it accepts only
 * token68 characters, so a key with any other (the config takes any 16+ characters) could never
 * be sent, and it answers a malformed header with 400 where this API documents 401
 * (test/server/api-error.test.ts shows both).
 */
export function bearerAuth(apiKey: string | undefined, named: readonly NamedApiKey[]) {
  const check = apiKeyCheck(apiKey, named);
  return async (c: Context, next: () => Promise<void>) => {
    if (!apiKey) return next();
    const match = check(c.req.header('authorization'));
    if (!match)
      throw new ApiError(401, 'unauthorized', 'send Authorization: Bearer <RELAY_API_KEY>');
    c.set('apiKeyName', match.name);
    return next();
  };
}
