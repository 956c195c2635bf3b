import type { z } from 'zod';
import type { ValidationIssue } from '../errors.ts';
import { REVIEW_TYPES } from './types.ts';

/**
 * Turns zod issues into `{path, message}` with JSON-path style paths ("hitl.poll_url",
 * "hitl.inline_actions[1]"), and the library's default wording into words for people: what to send
 * ("must be a string", "is required (a JSON object)"), never "Invalid input: expected ..., received
 * ..." or a regular expression. A schema's own message ("must be an absolute http(s) URL") is kept.
 */
export function toIssues(error: z.ZodError, prefix = ''): ValidationIssue[] {
  return error.issues.flatMap((issue): ValidationIssue[] => {
    if (issue.code === 'unrecognized_keys')
      return issue.keys.map((key) => ({
        path: joinPath(prefix, [...issue.path, key]),
        message: 'is not a field here: remove it (or check its spelling)',
      }));
    return [{ path: joinPath(prefix, issue.path), message: humanMessage(issue) }];
  });
}

/** Fields whose rule reads best as one sentence, whatever zod's check was. */
const FIELD_RULES: Record<string, string> = {
  type: `must be one of ${REVIEW_TYPES.join(', ')}, or a custom type starting with "x-"`,
};

/** zod's default messages start like this; a schema's own messages ("must ...", "is ...") do not. */
const DEFAULT_MESSAGE = /^(Invalid|Too (small|big)|Unrecognized key|Expected)/;

const A_TYPE: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  object: 'a JSON object',
  array: 'a list (a JSON array)',
  record: 'a JSON object',
  null: 'null',
  date: 'a date',
  bigint: 'a whole number',
};

const UNIT: Record<string, [one: string, many: string]> = {
  string: ['character', 'characters'],
  array: ['item', 'items'],
  set: ['item', 'items'],
  file: ['byte', 'bytes'],
};

function count(n: number | bigint, origin: string): string {
  const unit = UNIT[origin];
  return unit ? `${n} ${Number(n) === 1 ? unit[0] : unit[1]}` : String(n);
}

const FORMATS: Record<string, string> = {
  datetime: 'must be a date and time in ISO 8601 with a time zone, e.g. 2026-11-30T10:15:00Z',
  date: 'must be a date like 2026-11-30',
  url: 'must be an absolute URL',
  email: 'must be an email address',
  uuid: 'must be a UUID',
};

/** The message of one issue, in words. */
function humanMessage(issue: z.core.$ZodIssue): string {
  if (!DEFAULT_MESSAGE.test(issue.message)) return issue.message;
  // Only a top-level field of the object being parsed (hitl.type, not a form field's type).
  const field = issue.path.length === 1 ? issue.path[0] : undefined;
  const rule = typeof field === 'string' ? FIELD_RULES[field] : undefined;
  switch (issue.code) {
    case 'invalid_type': {
      const want = A_TYPE[issue.expected] ?? issue.expected;
      if (/received undefined$/.test(issue.message)) return `is required (${want})`;
      return rule ?? `must be ${want}`;
    }
    case 'too_small': {
      const origin = String(issue.origin);
      if (origin === 'string' && Number(issue.minimum) === 1) return 'must not be empty';
      if (origin === 'array' && Number(issue.minimum) === 1) return 'must list at least one item';
      return `must be at least ${count(issue.minimum, origin)}${UNIT[origin] ? ' long' : ''}`;
    }
    case 'too_big': {
      const origin = String(issue.origin);
      return `must be at most ${count(issue.maximum, origin)}${UNIT[origin] ? ' long' : ''}`;
    }
    case 'invalid_value':
      return issue.values.length === 1
        ? `must be ${JSON.stringify(issue.values[0])}`
        : `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'invalid_format':
      return rule ?? FORMATS[issue.format] ?? `must be a valid ${issue.format}`;
    case 'invalid_union':
      return rule ?? 'has a form that is not accepted here: check the field in the HITL spec';
    case 'invalid_key':
      return 'has a key that is not accepted: keys must be short strings';
    case 'invalid_element':
      return 'has an item that is not accepted';
    case 'not_multiple_of':
      return `must be a multiple of ${issue.divisor}`;
    default:
      return rule ?? 'is not accepted here: check the field in the HITL spec';
  }
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
