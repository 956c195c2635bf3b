/** Card text helpers: shortening, values as short text, context keys as labels. Plain text; pure. */
import { type Strings, t } from '../render/templates.ts';

/** `s` on one line, at most `max` characters (an ellipsis when cut). */
export function shorten(s: string, max: number): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = Array.from(flat)
    .slice(0, max - 1)
    .join('');
  return `${cut}…`;
}

/** A value as a short text: scalars, lists of scalars or of labelled items, objects by their title. */
export function scalar(v: unknown, s: Strings): string | null {
  if (typeof v === 'string') return v;
  if (typeof v === 'number') return String(v);
  if (typeof v === 'boolean') return t(s, v ? 'context.yes' : 'context.no');
  if (Array.isArray(v)) {
    if (v.every((x) => ['string', 'number'].includes(typeof x))) return v.join(', ');
    // Lists of options or items: show their labels.
    const labels = v.map((x) => titleOf(x));
    return labels.every((l) => l !== undefined) ? labels.join('; ') : null;
  }
  return titleOf(v) ?? null;
}

export const SECRET_KEY = /token|secret|password/i;

/**
 * A one-line summary of an object value (e.g. an escalation's `error` or `current_state`) that has
 * no title: its scalar fields as "Key value" pairs, nested objects and lists of objects left out,
 * bounded. Plain text: each adapter escapes for its own markup.
 */
export function objectSummary(v: unknown, s: Strings): string | null {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return null;
  const parts: string[] = [];
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    if (SECRET_KEY.test(k)) continue;
    const text = typeof x === 'object' && x !== null && !Array.isArray(x) ? null : scalar(x, s);
    if (text === null || text === '') continue;
    parts.push(`${humanKey(k)} ${shorten(text, 120)}`);
    if (parts.length === 6) break;
  }
  return parts.length ? parts.join('; ') : null;
}

/** The human name of an object (an option, an artifact, an error), when it has one. */
export function titleOf(v: unknown): string | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  for (const k of ['label', 'title', 'name', 'summary', 'message', 'description'])
    if (typeof o[k] === 'string' && o[k]) return o[k] as string;
  return undefined;
}

/** Words that read better in capitals. */
const UPPER = new Set(['id', 'url', 'sha', 'api', 'eur', 'usd', 'gbp', 'ui', 'ip', 'sla']);

/** A context key as a label: "total_matches" -> "Total matches", "commit_sha" -> "Commit SHA". */
export function humanKey(key: string): string {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/[_\s.-]+/)
    .filter(Boolean)
    .map((w) => (UPPER.has(w.toLowerCase()) ? w.toUpperCase() : w.toLowerCase()));
  const text = words.join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}
