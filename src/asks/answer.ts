/**
 * Answers to the ten kinds: their typed shapes (result.data), validation against the content
 * (required fields, types, selection bounds, complete ranking, dropdown values, read-only args),
 * and the protocol action each answer is submitted with. Pure: no I/O.
 */
import type { ValidationIssue } from '../errors.ts';
import {
  formValues,
  type Issues,
  isRecord,
  issue,
  keyList,
  modifiedValues,
  toolArgs,
} from './answer-values.ts';
import {
  type AskContent,
  type AskKind,
  type ContentOf,
  type FieldValue,
  kindOf,
} from './content.ts';
import { protocolOf } from './protocol.ts';

export type { FieldValue } from './content.ts';

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

/** Reads one kind's answer from the data given, pushing what is wrong to `issues`. */
type Reader = (
  content: AskContent,
  action: string,
  d: Record<string, unknown>,
  issues: Issues,
) => AskAnswer | undefined;

function approvalAnswer(
  content: AskContent,
  action: string,
  d: Record<string, unknown>,
  issues: Issues,
): AskAnswer | undefined {
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

const singleAnswer: Reader = (content, _action, d, issues) => {
  const keys = (content as ContentOf<'decision.single'>).options.map((o) => o.key);
  if (typeof d.selected !== 'string' || !keys.includes(d.selected)) {
    issues.push(issue('data.selected', `pick one of: ${keys.join(', ')}`));
    return undefined;
  }
  return { selected: d.selected };
};

const multiAnswer: Reader = (content, _action, d, issues) => {
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
};

const rankAnswer: Reader = (content, _action, d, issues) => {
  const keys = (content as ContentOf<'decision.rank'>).options.map((o) => o.key);
  const ranking = keyList(d.ranking, keys, 'data.ranking', issues);
  if (!ranking) return undefined;
  const missing = keys.filter((k) => !ranking.includes(k));
  if (missing.length) {
    issues.push(issue('data.ranking', `rank every option; missing: ${missing.join(', ')}`));
    return undefined;
  }
  return { ranking };
};

/** A required text (freetext's value, the edited draft) within `max` characters. */
function requiredText(
  v: unknown,
  path: string,
  empty: string,
  max: number,
  issues: Issues,
): string | undefined {
  if (typeof v !== 'string' || v.trim() === '') {
    issues.push(issue(path, empty));
    return undefined;
  }
  if (v.length > max) {
    issues.push(issue(path, `at most ${max} characters`));
    return undefined;
  }
  return v;
}

const freetextAnswer: Reader = (_c, _a, d, issues) => {
  const value = requiredText(d.value, 'data.value', 'required: type an answer', 4_000, issues);
  return value === undefined ? undefined : { value };
};

const confirmAnswer: Reader = (_c, action, d, issues) => {
  const confirmed = action === 'confirm';
  if (d.confirmed !== undefined && d.confirmed !== confirmed) {
    issues.push(issue('data.confirmed', `must be ${confirmed} for "${action}"`));
    return undefined;
  }
  return { confirmed };
};

const contentAnswer: Reader = (_c, _a, d, issues) => {
  const empty = 'required: the (edited) text must not be empty';
  const content = requiredText(d.content, 'data.content', empty, 20_000, issues);
  return content === undefined ? undefined : { content };
};

const READERS: Record<AskKind, Reader> = {
  'approval.binary': approvalAnswer,
  'approval.modify': approvalAnswer,
  'decision.single': singleAnswer,
  'decision.multi': multiAnswer,
  'decision.rank': rankAnswer,
  'context.freetext': freetextAnswer,
  'context.form': (c, _a, d, issues) => {
    const values = formValues(c as ContentOf<'context.form'>, d.values, issues);
    return values ? { values } : undefined;
  },
  'context.confirm': confirmAnswer,
  'edit.content': contentAnswer,
  'edit.tool_args': (c, _a, d, issues) => {
    const args = toolArgs(c as ContentOf<'edit.tool_args'>, d.args, issues);
    return args ? { args } : undefined;
  },
};

function answerData(
  content: AskContent,
  action: string,
  d: Record<string, unknown>,
  issues: Issues,
): AskAnswer | undefined {
  return READERS[kindOf(content)](content, action, d, issues);
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
