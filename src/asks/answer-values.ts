/**
 * The value-level checks of answers (answer.ts): lists of option keys, and the field values of
 * forms, modifiable fields and tool args against their types, required flags and read-only args.
 * Pure: no I/O.
 */
import type { ValidationIssue } from '../errors.ts';
import { type ContentOf, type FieldType, type FieldValue, valueProblem } from './content.ts';

export type Issues = ValidationIssue[];
export const issue = (path: string, message: string): ValidationIssue => ({ path, message });

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A list of distinct option keys. */
export function keyList(
  v: unknown,
  keys: string[],
  path: string,
  issues: Issues,
): string[] | undefined {
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) {
    issues.push(issue(path, 'must be a list of option keys'));
    return undefined;
  }
  const list = v as string[];
  const unknown = list.filter((k) => !keys.includes(k));
  if (unknown.length) {
    issues.push(issue(path, `not options: ${unknown.join(', ')}`));
    return undefined;
  }
  if (new Set(list).size !== list.length) {
    issues.push(issue(path, 'each option at most once'));
    return undefined;
  }
  return list;
}

function valuesObject(
  v: unknown,
  keys: string[],
  path: string,
  issues: Issues,
): Record<string, unknown> | undefined {
  if (v === undefined || v === null) return {};
  if (!isRecord(v)) {
    issues.push(issue(path, 'must be an object of field values'));
    return undefined;
  }
  const unknown = Object.keys(v).filter((k) => !keys.includes(k));
  for (const k of unknown) issues.push(issue(`${path}.${k}`, 'no such field'));
  return unknown.length ? undefined : v;
}

function typed(
  type: FieldType,
  value: unknown,
  path: string,
  issues: Issues,
  options?: string[],
): value is FieldValue {
  const why = valueProblem(type, value, options);
  if (why) issues.push(issue(path, why));
  return !why;
}

/** approval.modify: only the values that differ from the content's (DROPDOWN: the picked value). */
export function modifiedValues(
  c: ContentOf<'approval.modify'>,
  raw: unknown,
  issues: Issues,
): Record<string, FieldValue> | undefined {
  const given = valuesObject(
    raw,
    c.modifiable.map((f) => f.key),
    'data.values',
    issues,
  );
  if (!given) return undefined;
  const out: Record<string, FieldValue> = {};
  for (const f of c.modifiable) {
    const v = given[f.key];
    if (v === undefined || v === null) continue;
    const options = f.type === 'DROPDOWN' ? (f.value as string[]) : undefined;
    if (!typed(f.type, v, `data.values.${f.key}`, issues, options)) continue;
    if (f.type === 'DROPDOWN' || v !== f.value) out[f.key] = v;
  }
  return issues.length ? undefined : out;
}

/** context.form: every required field present, every value of its type; empty optional ones left out. */
export function formValues(
  c: ContentOf<'context.form'>,
  raw: unknown,
  issues: Issues,
): Record<string, FieldValue> | undefined {
  if (raw === undefined || raw === null) {
    if (c.fields.some((f) => f.required)) {
      for (const f of c.fields.filter((x) => x.required))
        issues.push(issue(`data.values.${f.key}`, `required: ${f.label}`));
      return undefined;
    }
  }
  const given = valuesObject(
    raw,
    c.fields.map((f) => f.key),
    'data.values',
    issues,
  );
  if (!given) return undefined;
  const out: Record<string, FieldValue> = {};
  for (const f of c.fields) {
    const v = given[f.key];
    if (v === undefined || v === null || (typeof v === 'string' && v.trim() === '')) {
      if (f.required) issues.push(issue(`data.values.${f.key}`, `required: ${f.label}`));
      continue;
    }
    if (typed(f.type, v, `data.values.${f.key}`, issues, f.options)) out[f.key] = v;
  }
  return issues.length ? undefined : out;
}

/** edit.tool_args: all args; editable ones may change (same type), read-only ones must not. */
export function toolArgs(
  c: ContentOf<'edit.tool_args'>,
  raw: unknown,
  issues: Issues,
): Record<string, FieldValue> | undefined {
  const given = valuesObject(
    raw,
    c.args.map((a) => a.key),
    'data.args',
    issues,
  );
  if (!given) return undefined;
  const out: Record<string, FieldValue> = {};
  for (const a of c.args) {
    const v = given[a.key];
    if (v === undefined) {
      out[a.key] = a.value as FieldValue;
      continue;
    }
    if (!a.editable) {
      if (v !== a.value)
        issues.push(issue(`data.args.${a.key}`, `read-only: must stay ${JSON.stringify(a.value)}`));
      else out[a.key] = v as FieldValue;
      continue;
    }
    if (typed(a.type, v, `data.args.${a.key}`, issues)) out[a.key] = v;
  }
  return issues.length ? undefined : out;
}
