import type { z } from 'zod';
import type { ValidationIssue } from '../errors.ts';

/** Turns zod issues into `{path, message}` with JSON-path style paths ("hitl.poll_url", "hitl.inline_actions[1]"). */
export function toIssues(error: z.ZodError, prefix = ''): ValidationIssue[] {
  return error.issues.map((issue) => ({
    path: joinPath(prefix, issue.path),
    message: issue.message,
  }));
}

/** Joins a path prefix and zod path segments. */
export function joinPath(prefix: string, segments: readonly PropertyKey[]): string {
  let out = prefix;
  for (const seg of segments) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out ? `.${String(seg)}` : String(seg);
  }
  return out;
}
