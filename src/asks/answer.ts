/**
 * Answers to the ten kinds: their typed shapes (result.data), validation against the content
 * (required fields, types, selection bounds, complete ranking, dropdown values, read-only args),
 * and the protocol action each answer is submitted with. Pure: no I/O.
 */
import type { ValidationIssue } from '../errors.ts';
import {
  type AskContent,
  type AskKind,
  type ContentOf,
  type FieldType,
  kindOf,
  valueProblem,
} from './content.ts';
import { protocolOf } from './protocol.ts';

/** A typed value of a form field, modifiable field or tool arg. */
export type FieldValue = string | number | boolean;

/** result.data per kind (the hgateway response TypedDicts). */
export interface AnswerByKind {
  'approval.binary': { decision: string };
  /** `values` only when something was edited. */
  'approval.modify': { decision: string; values?: Record<string, FieldValue> };
  'decision.single': { selected: string };
  'decision.multi': { selected: string[] };
  'decision.rank': { ranking: string[] };
  'context.freetext': { value: string };
  'context.form': { values: Record<string, FieldValue> };
  /** `false` only when the person declined with the confirmation type's `cancel`. */
  'context.confirm': { confirmed: boolean };
  'edit.content': { content: string };
  /** Every arg, edited or not. */
  'edit.tool_args': { args: Record<string, FieldValue> };
}

/** The answer of a content type (`C` is a validated content or an input shape with its `type`/`sub_type`). */
export type AnswerOf<C extends { type: string; sub_type: string }> =
  `${C['type']}.${C['sub_type']}` extends infer K extends AskKind ? AnswerByKind[K] : never;

/** Any answer. */
export type AskAnswer = AnswerByKind[AskKind];

/** A checked answer: the protocol action and the typed data, or what is wrong. */
export type CheckedAnswer =
  | { ok: true; action: string; data: AskAnswer }
  | { ok: false; issues: ValidationIssue[] };

type Issues = ValidationIssue[];
const issue = (path: string, message: string): ValidationIssue => ({ path, message });

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Data keys a kind's answer takes (anything else is refused, so typos do not pass silently). */
const ANSWER_KEYS: Record<AskKind, readonly string[]> = {
  'approval.binary': ['decision'],
  'approval.modify': ['decision', 'values'],
  'decision.single': ['selected'],
  'decision.multi': ['selected'],
  'decision.rank': ['ranking'],
  'context.freetext': ['value'],
  'context.form': ['values'],
  'context.confirm': ['confirmed'],
  'edit.content': ['content'],
  'edit.tool_args': ['args'],
};

/**
 * Checks an answer (`action` as submitted, `data` as given) against the content and returns the
 * typed result.data. An approval or confirmation tapped as a plain button (data `{}`) takes its
 * decision from the action, so chat buttons without inputs answer those kinds too.
 */
export function checkAnswer(content: AskContent, action: string, data: unknown): CheckedAnswer {
  const kind = kindOf(content);
  const p = protocolOf(content);
  if (!p.actions.includes(action))
    return {
      ok: false,
      issues: [
        issue('action', `"${action}" is not an answer here; one of ${p.actions.join(', ')}`),
      ],
    };
  if (data !== undefined && data !== null && !isRecord(data))
    return { ok: false, issues: [issue('data', 'must be an object')] };
  const d = (data ?? {}) as Record<string, unknown>;
  const extra = Object.keys(d).filter((k) => !ANSWER_KEYS[kind].includes(k));
  if (extra.length)
    return {
      ok: false,
      issues: extra.map((k) =>
        issue(`data.${k}`, `not part of a ${kind} answer (${ANSWER_KEYS[kind].join(', ')})`),
      ),
    };
  const issues: Issues = [];
  const out = answerData(content, action, d, issues);
  if (issues.length || !out) return { ok: false, issues };
  // The action must agree with the data (an approve button cannot carry a reject decision).
  const expected = actionFor(content, out);
  if (expected !== action)
    return {
      ok: false,
      issues: [issue('action', `this answer is submitted as "${expected}", not "${action}"`)],
    };
  return { ok: true, action, data: out };
}

/** The protocol action an answer is submitted with (see protocol.ts for the type mapping). */
export function actionFor(content: AskContent, answer: AskAnswer): string {
  const p = protocolOf(content);
  switch (content.type) {
    case 'approval':
      return p.type === 'approval' ? (answer as { decision: string }).decision : 'submit';
    case 'context':
      if (content.sub_type === 'confirm')
        return (answer as { confirmed: boolean }).confirmed ? 'confirm' : 'cancel';
      return 'submit';
    case 'decision':
      return p.type === 'selection' ? 'select' : 'submit';
    default:
      return 'submit';
  }
}

function answerData(
  content: AskContent,
  action: string,
  d: Record<string, unknown>,
  issues: Issues,
): AskAnswer | undefined {
  switch (`${content.type}.${content.sub_type}` as AskKind) {
    case 'approval.binary':
    case 'approval.modify': {
      const c = content as ContentOf<'approval.modify'>;
      const keys = c.choices.map((x) => x.key);
      // A plain approve/reject button carries no data: the action is the decision.
      const decision = d.decision ?? (keys.includes(action) ? action : undefined);
      if (typeof decision !== 'string' || !keys.includes(decision)) {
        issues.push(issue('data.decision', `must be one of: ${keys.join(', ')}`));
        return undefined;
      }
      if (content.sub_type === 'binary') return { decision };
      const values = modifiedValues(c, d.values, issues);
      return values && Object.keys(values).length ? { decision, values } : { decision };
    }
    case 'decision.single': {
      const keys = (content as ContentOf<'decision.single'>).options.map((o) => o.key);
      if (typeof d.selected !== 'string' || !keys.includes(d.selected)) {
        issues.push(issue('data.selected', `pick one of: ${keys.join(', ')}`));
        return undefined;
      }
      return { selected: d.selected };
    }
    case 'decision.multi': {
      const c = content as ContentOf<'decision.multi'>;
      const keys = c.options.map((o) => o.key);
      const sel = keyList(d.selected, keys, 'data.selected', issues);
      if (!sel) return undefined;
      if (sel.length < c.min_select)
        issues.push(issue('data.selected', `select at least ${c.min_select}`));
      if (c.max_select !== null && sel.length > c.max_select)
        issues.push(issue('data.selected', `select at most ${c.max_select}`));
      // Kept in the content's order, so the same choice always reads the same.
      return issues.length ? undefined : { selected: keys.filter((k) => sel.includes(k)) };
    }
    case 'decision.rank': {
      const keys = (content as ContentOf<'decision.rank'>).options.map((o) => o.key);
      const ranking = keyList(d.ranking, keys, 'data.ranking', issues);
      if (!ranking) return undefined;
      const missing = keys.filter((k) => !ranking.includes(k));
      if (missing.length) {
        issues.push(issue('data.ranking', `rank every option; missing: ${missing.join(', ')}`));
        return undefined;
      }
      return { ranking };
    }
    case 'context.freetext': {
      if (typeof d.value !== 'string' || d.value.trim() === '') {
        issues.push(issue('data.value', 'required: type an answer'));
        return undefined;
      }
      if (d.value.length > 4_000) {
        issues.push(issue('data.value', 'at most 4000 characters'));
        return undefined;
      }
      return { value: d.value };
    }
    case 'context.form': {
      const values = formValues(content as ContentOf<'context.form'>, d.values, issues);
      return values ? { values } : undefined;
    }
    case 'context.confirm': {
      const confirmed = action === 'confirm';
      if (d.confirmed !== undefined && d.confirmed !== confirmed) {
        issues.push(issue('data.confirmed', `must be ${confirmed} for "${action}"`));
        return undefined;
      }
      return { confirmed };
    }
    case 'edit.content': {
      if (typeof d.content !== 'string' || d.content.trim() === '') {
        issues.push(issue('data.content', 'required: the (edited) text must not be empty'));
        return undefined;
      }
      if (d.content.length > 20_000) {
        issues.push(issue('data.content', 'at most 20000 characters'));
        return undefined;
      }
      return { content: d.content };
    }
    case 'edit.tool_args': {
      const args = toolArgs(content as ContentOf<'edit.tool_args'>, d.args, issues);
      return args ? { args } : undefined;
    }
  }
}

/** A list of distinct option keys. */
function keyList(v: unknown, keys: string[], path: string, issues: Issues): string[] | undefined {
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
function modifiedValues(
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
function formValues(
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
function toolArgs(
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

/** The irreversible choice or options an answer picks (they want a confirming step first). */
export function irreversiblePicks(
  content: AskContent,
  answer: AskAnswer,
): Array<{ label: string; impact_hint?: string | undefined }> {
  if (content.type === 'approval') {
    const d = (answer as { decision: string }).decision;
    return content.choices.filter((c) => c.key === d && c.irreversible);
  }
  if (content.type === 'decision') {
    const a = answer as { selected?: string | string[]; ranking?: string[] };
    // A ranking decides no single option, so only picks need confirming.
    const picked =
      a.selected === undefined ? [] : Array.isArray(a.selected) ? a.selected : [a.selected];
    return content.options.filter((o) => picked.includes(o.key) && o.irreversible);
  }
  return [];
}

/** Whether a plain button for `action` picks an irreversible choice (approval buttons only). */
export function buttonIrreversible(content: AskContent, action: string): boolean {
  return (
    content.type === 'approval' && content.choices.some((c) => c.key === action && c.irreversible)
  );
}
