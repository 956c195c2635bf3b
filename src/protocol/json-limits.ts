/**
 * Depth and size limits for JSON from outside (a 202 body, a poll answer, an SSE event, a
 * callback). Deep nesting breaks recursive code far from where it came in (structuredClone,
 * JSON.stringify, a renderer): it is refused where it enters, walked without recursion.
 */
import type { ValidationIssue } from '../errors.ts';

/** The limits (documented in SECURITY.md). */
export const JSON_LIMITS = {
  /** Nesting of objects and arrays. */
  maxDepth: 32,
  /** Values (objects, arrays and scalars) in one document. */
  maxValues: 100_000,
};

/**
 * The first place `value` breaks the limits, with its JSON path (under `root`), or null. Walks
 * with an explicit stack, so any depth is safe to inspect.
 */
export function jsonLimitIssue(
  value: unknown,
  root = '',
  limits: { maxDepth: number; maxValues: number } = JSON_LIMITS,
): ValidationIssue | null {
  const stack: Array<{ v: unknown; path: string; depth: number }> = [
    { v: value, path: root, depth: 0 },
  ];
  let values = 0;
  while (stack.length) {
    const { v, path, depth } = stack.pop()!;
    if (++values > limits.maxValues)
      return { path: root || '(root)', message: `has more than ${limits.maxValues} values` };
    if (typeof v !== 'object' || v === null) continue;
    if (depth >= limits.maxDepth)
      return { path: path || '(root)', message: `is nested deeper than ${limits.maxDepth} levels` };
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--)
        stack.push({ v: v[i], path: `${path}[${i}]`, depth: depth + 1 });
    } else {
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [k, x] = entries[i]!;
        const key = /^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k.slice(0, 64));
        stack.push({
          v: x,
          path: key.startsWith('"') ? `${path}[${key}]` : path ? `${path}.${key}` : key,
          depth: depth + 1,
        });
      }
    }
  }
  return null;
}
