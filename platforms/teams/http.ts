/**
 * Who may send an activity to POST /api/messages, and how a refusal is answered: a Bot Framework
 * JWT (botbuilder checks it), or, in the unauthenticated test mode, a serviceUrl on this machine.
 * A refusal says only "unauthorized" (or "cannot check now"): nothing internal, never the token.
 */
import { isIP } from 'node:net';
import { scrub } from '../../src/log.ts';
import { isLoopback, isLoopbackName } from '../../src/net/url-policy.ts';

/**
 * Why the unauthenticated test mode refuses an activity's serviceUrl, or null. Nobody vouches for
 * such an activity, and the relay sends to its serviceUrl (the welcome, the `hitl id` answer, and
 * every post of a stored reference): only this machine is accepted, where the fake connector or
 * the Bot Framework Emulator runs. Stricter than the service URL policy on purpose: a public URL
 * would make the relay an open sender for whoever reaches /api/messages.
 */
export function testModeServiceUrlRefusal(serviceUrl: string): string | null {
  let url: URL;
  try {
    url = new URL(serviceUrl);
  } catch {
    return 'serviceUrl is not a URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'serviceUrl must be http(s)';
  if (url.username || url.password) return 'serviceUrl must not carry credentials';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const local = isIP(host) ? isLoopback(host) : isLoopbackName(host);
  return local
    ? null
    : 'serviceUrl must be a loopback address in the unauthenticated test mode (TEAMS_ALLOW_UNAUTHENTICATED=1)';
}

/** Why an inbound request failed authentication: refused (401) or not checkable now (503). */
export interface AuthFailure {
  kind: 'refused' | 'unavailable';
  /** For the log: short, scrubbed, without the token. */
  reason: string;
}

/**
 * Sorts what botbuilder's authenticateRequest threw. The signing keys not being readable (their
 * download failed) is ours to fix and answered 503, so Teams tries again. Anything else means the
 * request is not authenticated and is refused: botbuilder's AuthenticationError 401/403, and
 * jsonwebtoken's own errors for a forged or broken token ("invalid signature", "jwt malformed"),
 * which botbuilder lets through and CloudAdapter answered with 500 and the error text.
 */
export function classifyAuthFailure(err: unknown, authorization: string): AuthFailure {
  const e = err as { name?: unknown; message?: unknown; statusCode?: unknown };
  const name = typeof e?.name === 'string' ? e.name : 'Error';
  let message = typeof e?.message === 'string' ? e.message : String(err);
  const token = authorization.replace(/^Bearer\s+/i, '').trim();
  if (token) message = message.split(token).join('[token]');
  const reason = `${name}: ${scrub(message)}`.slice(0, 200);
  // botbuilder's AuthenticationError carries a statusCode (its name stays "Error"): 500 when the
  // keys' download was answered with an error; node-fetch's FetchError when it got no answer.
  const keysUnreadable =
    name === 'FetchError' || (typeof e.statusCode === 'number' && e.statusCode >= 500);
  if (keysUnreadable) return { kind: 'unavailable', reason };
  return { kind: 'refused', reason };
}
