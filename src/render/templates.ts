/** The words people read, from templates/<locale>.json, rendered with mustache as plain text. */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Mustache from 'mustache';

const DIR = fileURLToPath(new URL('../../templates/', import.meta.url));

/** A locale's strings: nested objects of mustache templates. */
export type Strings = { [key: string]: string | Strings };

const cache = new Map<string, Strings>();

/** Loads a locale (falling back to English for a missing file or key). */
export function loadStrings(locale: string): Strings {
  const hit = cache.get(locale);
  if (hit) return hit;
  const en = JSON.parse(readFileSync(`${DIR}en.json`, 'utf8')) as Strings;
  const file = `${DIR}${locale.replace(/[^a-zA-Z_-]/g, '')}.json`;
  const merged =
    locale !== 'en' && existsSync(file) ? merge(en, JSON.parse(readFileSync(file, 'utf8'))) : en;
  cache.set(locale, merged);
  return merged;
}

function merge(base: Strings, over: Strings): Strings {
  const out: Strings = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = base[k];
    out[k] = typeof v === 'object' && typeof b === 'object' ? merge(b, v) : v;
  }
  return out;
}

/** Renders the template at `path` ("status.pending") with `view`; output is plain text, unescaped. */
export function t(strings: Strings, path: string, view: Record<string, unknown> = {}): string {
  let node: string | Strings | undefined = strings;
  for (const part of path.split('.')) node = typeof node === 'object' ? node[part] : undefined;
  if (typeof node !== 'string') return path;
  // Plain text: each adapter escapes for its own markup, so mustache must not HTML-escape here.
  return Mustache.render(node, view, {}, { escape: (s: unknown) => String(s) });
}
