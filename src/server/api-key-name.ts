/**
 * The name of the API key a request came with (RELAY_API_KEYS), set by the app's bearer check:
 * null for RELAY_API_KEY itself and for a relay without keys. Handlers record it (a gateway's held
 * call says which client called); it is a name, never the key.
 */
import type { Context } from 'hono';

declare module 'hono' {
  interface ContextVariableMap {
    apiKeyName: string | null;
  }
}

/** The request's key name, or null (RELAY_API_KEY, or no key at all). */
export function apiKeyNameOf(c: Context): string | null {
  return c.get('apiKeyName') ?? null;
}
