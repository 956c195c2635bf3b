/**
 * What a final card says was answered, in the person's words: option labels (never keys), a form
 * field's label and a select's option label, the edited text or arguments shortened (Details has
 * the rest), and the service's `reason` when it gave one. Plain text; pure.
 */
import type { AskContent, FieldValue } from '../asks/content.ts';
import { withoutSensitive } from '../asks/sensitive.ts';
import type { CardField } from '../render/card.ts';
import { formFields } from '../render/form-summary.ts';
import { type Strings, t } from '../render/templates.ts';
import type { StoredCase } from '../store/types.ts';
import { humanKey, SECRET_KEY, scalar, shorten, titleOf } from './card-text.ts';

/** At most this many answer fields on a final card, each value at most this long. */
const MAX_ANSWER_FIELDS = 5;
const MAX_ANSWER_VALUE = 80;
const MAX_LINE = 400;
/** An edited text or a free-text answer is shown up to this many characters; Details has the rest. */
const MAX_TEXT = 300;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The id an option or item is selected by: `id`, `key` or `value`. */
function idOf(o: unknown): unknown {
  if (!isObject(o)) return undefined;
  return o.id ?? o.key ?? o.value;
}

/** The selection's options: `context.options`, else `context.items` (the reference services'). */
function selectable(ctx: Json): unknown[] {
  const list = Array.isArray(ctx.options) && ctx.options.length ? ctx.options : ctx.items;
  return Array.isArray(list) ? list : [];
}

/** A form field's value as people read it: a select's option label, else the value as text. */
function fieldText(f: Json, v: unknown, s: Strings): string | null {
  if (Array.isArray(f.options)) {
    const label = (x: unknown) => {
      const o = (f.options as unknown[]).find((y) => idOf(y) === x || y === x);
      return titleOf(o) ?? (typeof o === 'string' ? o : String(x));
    };
    if (Array.isArray(v)) return v.map(label).join(', ');
    if (typeof v === 'string' || typeof v === 'number') return label(v);
  }
  return scalar(v, s);
}

/** "Reason: …" when the answer carries the responder's reason or note. */
function reasonLine(data: Json, s: Strings): string | null {
  const note = [data.reason, data.note, data.comment].find(
    (x): x is string => typeof x === 'string' && x.trim() !== '',
  );
  return note ? shorten(t(s, 'answer.reason', { reason: note }), MAX_LINE) : null;
}

/** A service case's selection, by its options' labels. */
function selectedLine(ctx: Json, selected: unknown[], s: Strings): string {
  const options = selectable(ctx);
  const names = selected.slice(0, MAX_ANSWER_FIELDS).map((id) => {
    const o = options.find((x) => idOf(x) === id);
    return shorten(titleOf(o) ?? String(id), MAX_ANSWER_VALUE);
  });
  const more = selected.length - names.length;
  return shorten(
    t(s, 'answer.selected', { items: names.join('; '), more: more > 0 ? more : '' }),
    MAX_LINE,
  );
}

/** A service case's form answer: the declared, non-sensitive fields by label (sensitive ones counted). */
function enteredLine(ctx: Json, data: Json, s: Strings): string | null {
  const parts: string[] = [];
  let hidden = 0;
  for (const f of formFields(ctx.form)) {
    const key = typeof f.key === 'string' ? f.key : typeof f.name === 'string' ? f.name : '';
    if (!key || !(key in data)) continue;
    // A sensitive field is counted, never named: its label may say too much already.
    if (f.sensitive === true || SECRET_KEY.test(key)) {
      hidden++;
      continue;
    }
    const value = fieldText(f, data[key], s);
    if (value === null || value === '' || parts.length === MAX_ANSWER_FIELDS) continue;
    const label = typeof f.label === 'string' ? f.label : humanKey(key);
    parts.push(`${shorten(label, 40)}: ${shorten(value, MAX_ANSWER_VALUE)}`);
  }
  if (!parts.length && !hidden) return null;
  return shorten(
    t(s, 'answer.entered', { fields: parts.join('; '), hidden: hidden || '' }),
    MAX_LINE,
  );
}

/**
 * What was selected or entered on a service's case, for the final card: option labels for a
 * selection (from `context.options` or `context.items`); for an input, the values of the form's
 * declared fields that are not sensitive (a sensitive one is counted). Data the form does not
 * declare is not shown: its sensitivity is unknown. The service's reason last.
 */
export function answerLine(c: StoredCase, s: Strings): string | null {
  const result = c.doc.result;
  if (c.status !== 'completed' || !result?.data) return null;
  const data = result.data as Json;
  const ctx = (c.doc.hitl.context ?? {}) as Json;
  const selected = data.selected ?? data.selection;
  const list = Array.isArray(selected) ? selected : typeof selected === 'string' ? [selected] : [];
  const main = list.length ? selectedLine(ctx, list, s) : enteredLine(ctx, data, s);
  const lines = [main, reasonLine(data, s)].filter((l): l is string => l !== null);
  return lines.length ? lines.join('\n') : null;
}

/** A text answer shortened for the card; said so when Details has the rest. */
function longText(text: string, s: Strings): string {
  const short = shorten(text, MAX_TEXT);
  return short === text.replace(/\s+/g, ' ').trim() ? short : `${short} ${t(s, 'answer.more')}`;
}

/** A typed value as people read it. */
function valueText(v: FieldValue | undefined, s: Strings): string {
  if (v === undefined) return '';
  return shorten(scalar(v, s) ?? String(v), MAX_ANSWER_VALUE);
}

/**
 * Fields as label / value rows with their "Label: value" line (what it was before when it changed):
 * the lines for every platform, the rows for one that draws a table (Slack).
 */
function fieldRows(
  fields: Array<{ key: string; label: string; value?: unknown }>,
  values: Record<string, FieldValue>,
  s: Strings,
): CardField[] {
  return fields
    .filter((f) => f.key in values)
    .map((f) => {
      const now = valueText(values[f.key], s);
      const was = Array.isArray(f.value) ? undefined : (f.value as FieldValue | undefined);
      const changed = was !== undefined && was !== values[f.key] && valueText(was, s) !== '';
      const view = { label: f.label, value: now, was: changed ? valueText(was, s) : '' };
      return {
        label: f.label,
        value: changed ? t(s, 'answer.was', view) : now,
        line: shorten(t(s, changed ? 'answer.changed' : 'context.line', view), MAX_LINE),
      };
    });
}

const lines = (rows: CardField[]) => rows.map((r) => r.line);

const labelOf = (list: Array<{ key: string; label: string }>, key: string) =>
  list.find((o) => o.key === key)?.label ?? key;

/** The answer lines of an ask's final card, in the person's words. */
function askLines(c: AskContent, d: Json, s: Strings): string[] {
  const line = (path: string, view: Json) => [shorten(t(s, path, view), MAX_LINE)];
  switch (c.type) {
    case 'approval': {
      const choice = line('answer.choice', { label: labelOf(c.choices, String(d.decision)) });
      if (c.sub_type === 'binary') return choice;
      const values = isObject(d.values) ? (d.values as Record<string, FieldValue>) : {};
      return [...choice, ...lines(fieldRows(c.modifiable, values, s))];
    }
    case 'decision': {
      if (c.sub_type === 'rank') {
        const order = (Array.isArray(d.ranking) ? d.ranking : []).map(
          (k, i) => `${i + 1}. ${labelOf(c.options, String(k))}`,
        );
        return line('answer.ranking', { items: order.join(' · ') });
      }
      const keys = Array.isArray(d.selected) ? d.selected : [d.selected];
      const labels = keys.map((k) => labelOf(c.options, String(k)));
      return line('answer.chosen', { items: labels.join(', ') });
    }
    case 'context': {
      if (c.sub_type === 'freetext')
        return line('context.line', { label: c.input.label, value: longText(String(d.value), s) });
      if (c.sub_type === 'confirm')
        return line(d.confirmed === false ? 'answer.declined' : 'answer.confirmed', {
          statement: c.statement ? longText(c.statement, s) : '',
        });
      // A sensitive value (a password) stands hidden: a chat keeps its cards, and so may others.
      const shown = withoutSensitive(c, d).values;
      return lines(fieldRows(c.fields, isObject(shown) ? (shown as never) : {}, s));
    }
    case 'edit': {
      if (c.sub_type === 'content') {
        const text = String(d.content ?? '');
        return line(text === c.draft ? 'answer.text_as_drafted' : 'answer.text_edited', {
          text: longText(text, s),
        });
      }
      const args = isObject(d.args) ? (d.args as Record<string, FieldValue>) : {};
      const tool = c.tool_name ? line('answer.tool', { tool: c.tool_name }) : [];
      return [...tool, ...lines(fieldRows(c.args, args, s))];
    }
  }
}

/** The answer of a completed ask, as lines for its final card (empty while it is not answered). */
export function askAnswerLines(c: StoredCase, content: AskContent, s: Strings): string[] {
  const data = c.doc.result?.data;
  if (c.status !== 'completed' || !isObject(data)) return [];
  const reason = reasonLine(data, s);
  return [...askLines(content, data, s), ...(reason ? [reason] : [])];
}

/**
 * The typed fields of a completed ask's answer (approval.modify's values, a form's fields, a tool's
 * arguments) as rows, each also one of askAnswerLines' lines; none for the other kinds.
 */
export function askAnswerFields(c: StoredCase, content: AskContent, s: Strings): CardField[] {
  const d = c.doc.result?.data;
  if (c.status !== 'completed' || !isObject(d)) return [];
  const values = (v: unknown) => (isObject(v) ? (v as Record<string, FieldValue>) : {});
  if (content.type === 'approval' && content.sub_type === 'modify')
    return fieldRows(content.modifiable, values(d.values), s);
  if (content.type === 'context' && content.sub_type === 'form')
    return fieldRows(content.fields, values(withoutSensitive(content, d).values), s);
  if (content.type === 'edit' && content.sub_type === 'tool_args')
    return fieldRows(content.args, values(d.args), s);
  return [];
}
