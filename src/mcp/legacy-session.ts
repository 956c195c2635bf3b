/**
 * A session id for 2025-era clients, so their cancels are told apart. /mcp and the MCP gateway
 * serve 2025 traffic statelessly (a fresh server per POST), and a 2025 client cancels with a
 * `notifications/cancelled` naming only its JSON-RPC id; two clients that both have a call at id
 * 3 (every fresh SDK client counts from the same start) made that cancel ambiguous (cancels.ts),
 * so it was dropped and the ask stayed open. The 2025 Streamable HTTP transport lets a server
 * assign an `Mcp-Session-Id` at initialization, which the client then sends on every request: the
 * relay gives one (random, nothing kept), and a cancel is matched within the client's session
 * (and, at the gateway, its API key's name). No request is refused for lacking it (any replica
 * serves any request; a client that drops it falls back to the id alone). The id is a correlation
 * tag, not a credential, and is never logged.
 */
import { randomBytes } from 'node:crypto';

/** The header of the 2025 Streamable HTTP transport. */
const HEADER = 'mcp-session-id';
/** What the gateway accepts as a session id: visible ASCII, bounded (the spec's own rule). */
const SESSION_ID = /^[\x21-\x7e]{1,128}$/;

/** The session id a request carries, when it is one the gateway could have given. */
export function sessionOf(headers: Headers): string | undefined {
  const v = headers.get(HEADER);
  return v && SESSION_ID.test(v) ? v : undefined;
}

/** True for a 2025 `initialize` request (a single JSON-RPC message, not a batch). */
export function isInitialize(body: unknown): boolean {
  return (
    typeof body === 'object' &&
    body !== null &&
    !Array.isArray(body) &&
    (body as { method?: unknown }).method === 'initialize'
  );
}

/** The `initialize` answer with a new session id; other answers as they are. */
export function withSession(response: Response, body: unknown): Response {
  if (!response.ok || !isInitialize(body) || response.headers.has(HEADER)) return response;
  const headers = new Headers(response.headers);
  headers.set(HEADER, randomBytes(18).toString('base64url'));
  return new Response(response.body, {
    status: response.status,
    statusText: response.statusText,
    headers,
  });
}

/** The scope a 2025 client's call and its cancel are matched in: its key's name and session. */
export const cancelScope = (keyName: string | null, session: string | undefined): string =>
  `${keyName ?? ''}\n${session ?? ''}`;
