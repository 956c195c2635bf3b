/**
 * RELAY_API_KEYS: named keys for the relay's API, one per client ("claude-desktop=<key>,
 * ci=<key>"), so that what a client did is recorded under its name (a gateway's held call says
 * who called). They are in addition to RELAY_API_KEY, the relay's own key (server mode, the CLI),
 * which stays required. Errors name the entry by its place and name, never by its key.
 */
import { ValidationError } from '../errors.ts';
import { listOf } from './trust-proxy.ts';

/** A client's key and the name it is recorded under. */
export interface NamedApiKey {
  name: string;
  key: string;
}

const NAME = /^[A-Za-z0-9_.-]{1,40}$/;
/** As RELAY_API_KEY: short keys are guessable. */
const KEY_MIN_CHARS = 16;

/** RELAY_API_KEYS' entries, checked against each other and against RELAY_API_KEY. */
export function namedApiKeysOf(
  raw: string | undefined,
  relayKey: string | undefined,
): NamedApiKey[] {
  if (raw === undefined || !raw.trim()) return [];
  const refuse = (message: string): never => {
    throw new ValidationError('invalid_config', 'invalid configuration', [
      { path: 'RELAY_API_KEYS', message },
    ]);
  };
  if (!relayKey)
    refuse("needs RELAY_API_KEY too (the relay's own key, for the CLI and server mode)");
  const out: NamedApiKey[] = [];
  for (const [i, entry] of listOf(raw).entries()) {
    const at = entry.indexOf('=');
    const name = at > 0 ? entry.slice(0, at).trim() : '';
    const key = at > 0 ? entry.slice(at + 1).trim() : '';
    const place = `entry ${i + 1}${NAME.test(name) ? ` ("${name}")` : ''}`;
    if (!NAME.test(name)) refuse(`${place} must be name=key, the name 1-40 of A-Z a-z 0-9 _ . -`);
    if (key.length < KEY_MIN_CHARS)
      refuse(`${place}: the key must be at least ${KEY_MIN_CHARS} characters`);
    if (out.some((k) => k.name === name)) refuse(`${place}: the name is given twice`);
    if (key === relayKey || out.some((k) => k.key === key))
      refuse(`${place}: the key is used twice (each client gets its own)`);
    out.push({ name, key });
  }
  return out;
}
