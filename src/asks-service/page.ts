/**
 * The review page of an ask (served by the HITL service under the asks profile): native HTML
 * controls per kind, posted as a form, read back into a typed answer. Works without JavaScript.
 */

import { type AskAnswer, actionFor } from '../asks/answer.ts';
import type { AskContent, FieldType, FormField } from '../asks/content.ts';
import { protocolOf } from '../asks/protocol.ts';
import { escapeHtml } from '../hitl-service/page.ts';

/** A parsed form: each key's values in order. */
export type Params = Record<string, string | string[]>;

const e = escapeHtml;

function first(p: Params, key: string): string | undefined {
  const v = p[key];
  return Array.isArray(v) ? v[0] : v;
}

function all(p: Params, key: string): string[] {
  const v = p[key];
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}

function hint(text: string | undefined, irreversible = false): string {
  const parts = [irreversible ? 'cannot be undone' : '', text ?? ''].filter(Boolean);
  return parts.length ? ` <span class="hint">(${e(parts.join(': '))})</span>` : '';
}

function input(name: string, type: FieldType, value: unknown, o: FieldOpts = {}): string {
  const id = `f_${name.replace(/[^A-Za-z0-9_-]/g, '_')}`;
  const req = o.required ? ' required' : '';
  const ro = o.readOnly ? ' disabled' : '';
  const label = `<label for="${id}">${e(o.label)}${o.required ? ' *' : ''}</label>`;
  if (type === 'BOOLEAN')
    return `<label class="check"><input type="checkbox" id="${id}" name="${e(name)}" value="true" data-field${
      value === true ? ' checked' : ''
    }${ro}> ${e(o.label)}</label>`;
  if (type === 'DROPDOWN') {
    const opts = (o.options ?? []).map((v) => `<option value="${e(v)}">${e(v)}</option>`).join('');
    return `${label}<select id="${id}" name="${e(name)}" data-field${req}${ro}><option value="">Choose…</option>${opts}</select>`;
  }
  const html = o.sensitive
    ? 'password" autocomplete="off'
    : type === 'NUMBER'
      ? 'number" step="any'
      : type === 'DATE'
        ? 'date'
        : 'text';
  const shown = value === undefined || value === null ? '' : ` value="${e(value)}"`;
  const ph = o.placeholder ? ` placeholder="${e(o.placeholder)}"` : '';
  return `${label}<input type="${html}" id="${id}" name="${e(name)}" data-field${shown}${ph}${req}${ro}>`;
}

interface FieldOpts {
  label?: string;
  required?: boolean;
  readOnly?: boolean;
  placeholder?: string | undefined;
  options?: string[] | undefined;
  /** Typed hidden, never filled in again. */
  sensitive?: boolean;
}

function button(name: string, value: string, label: string, style = '', confirm = ''): string {
  const ask = confirm ? ` data-confirm="${e(confirm)}"` : '';
  return `<button type="submit" name="${name}" value="${e(value)}" class="${style}"${ask}>${e(label)}</button>`;
}

/** The data-confirm text of an irreversible choice or option (the page asks before posting it). */
function confirmText(o: {
  label: string;
  irreversible: boolean;
  impact_hint?: string | undefined;
}) {
  return o.irreversible ? `${o.label}${o.impact_hint ? ` (${o.impact_hint})` : ''}` : '';
}

/** Of one family. */
type Family<T extends AskContent['type']> = Extract<AskContent, { type: T }>;

/** The submit button of a kind answered by one protocol action. */
function submitButton(c: AskContent, label = 'Submit'): string {
  return `<div class="actions">${button('action', protocolOf(c).actions[0] ?? 'submit', label, 'primary')}</div>`;
}

/** The controls and buttons for an open ask (`editable`), or a read-only view of its content. */
export function askReviewHtml(c: AskContent, editable: boolean): string {
  switch (c.type) {
    case 'approval':
      return approvalHtml(c, editable);
    case 'decision':
      return decisionHtml(c, editable);
    case 'context':
      return contextHtml(c, editable);
    case 'edit':
      return editHtml(c, editable);
  }
}

function approvalHtml(c: Family<'approval'>, editable: boolean): string {
  const fields =
    c.sub_type === 'modify'
      ? c.modifiable
          .map((f) =>
            input(`v.${f.key}`, f.type, f.type === 'DROPDOWN' ? undefined : f.value, {
              label: f.label,
              readOnly: !editable,
              options: f.type === 'DROPDOWN' ? (f.value as string[]) : undefined,
            }),
          )
          .join('')
      : '';
  const buttons = c.choices
    .map(
      (ch) =>
        `${button('decision', ch.key, ch.label, ch.key === 'reject' ? 'danger' : 'primary', confirmText(ch))}${hint(ch.impact_hint ?? undefined, ch.irreversible)}`,
    )
    .join('');
  return `${fields}${editable ? `<div class="actions">${buttons}</div>` : ''}`;
}

function decisionHtml(c: Family<'decision'>, editable: boolean): string {
  const submit = (label?: string) => submitButton(c, label);
  if (c.sub_type === 'rank') {
    const n = c.options.length;
    const rows = c.options
      .map((o, i) => {
        const sel = Array.from(
          { length: n },
          (_, r) => `<option value="${r + 1}"${r === i ? ' selected' : ''}>${r + 1}</option>`,
        ).join('');
        return `<label class="check"><select name="rank.${e(o.key)}"${editable ? '' : ' disabled'}>${sel}</select> ${e(o.label)}${hint(o.description ?? undefined)}</label>`;
      })
      .join('');
    return `<div class="box"><p class="hint">1 = first. Give every option its own place.</p>${rows}</div>${editable ? submit('Submit ranking') : ''}`;
  }
  const type = c.sub_type === 'single' ? 'radio' : 'checkbox';
  const bounds =
    c.sub_type === 'multi'
      ? `<p class="hint">Select at least ${c.min_select}${c.max_select !== null ? `, at most ${c.max_select}` : ''}.</p>`
      : '';
  const rows = c.options
    .map(
      (o) =>
        `<label class="check"><input type="${type}" name="selected" value="${e(o.key)}" data-field${o.irreversible ? ` data-confirm="${e(confirmText(o))}"` : ''}${editable ? '' : ' disabled'}> ${e(o.label)}${hint(o.description ?? undefined)}${hint(o.impact_hint ?? undefined, o.irreversible)}</label>`,
    )
    .join('');
  return `<div class="box">${bounds}${rows}</div>${editable ? submit('Submit') : ''}`;
}

function contextHtml(c: Family<'context'>, editable: boolean): string {
  const submit = (label?: string) => submitButton(c, label);
  if (c.sub_type === 'freetext')
    return `<label for="f_value">${e(c.input.label)}</label><textarea id="f_value" name="value" rows="4" data-field${
      c.input.placeholder ? ` placeholder="${e(c.input.placeholder)}"` : ''
    }${editable ? ' required' : ' disabled'}></textarea>${editable ? submit() : ''}`;
  if (c.sub_type === 'form')
    return `${c.fields.map((f) => formField(f, editable)).join('')}${editable ? submit() : ''}`;
  return `<div class="box warn">${e(c.statement)}</div>${
    editable
      ? `<div class="actions">${button('action', 'confirm', 'Confirm', 'primary')}${button('action', 'cancel', 'Decline')}</div>`
      : ''
  }`;
}

function editHtml(c: Family<'edit'>, editable: boolean): string {
  const submit = (label?: string) => submitButton(c, label);
  if (c.sub_type === 'content')
    return `<label for="f_content">Draft</label><textarea id="f_content" name="content" rows="12" data-field${editable ? ' required' : ' disabled'}>${e(c.draft)}</textarea>${editable ? submit('Submit text') : ''}`;
  const args = c.args
    .map((a) =>
      input(`a.${a.key}`, a.type, a.value, {
        label: `${a.label}${a.editable ? '' : ' (read-only)'}`,
        readOnly: !editable || !a.editable,
      }),
    )
    .join('');
  return `<p>Tool: <code>${e(c.tool_name)}</code></p>${args}${editable ? submit('Submit arguments') : ''}`;
}

function formField(f: FormField, editable: boolean): string {
  return input(`f.${f.key}`, f.type, undefined, {
    label: f.label,
    required: f.required,
    readOnly: !editable,
    placeholder: f.placeholder,
    options: f.options,
    sensitive: f.sensitive === true,
  });
}

/** A form string as a typed value; a value that does not convert is kept as given, for the checks to name. */
function typedValue(type: FieldType, raw: string | undefined, checked: boolean): unknown {
  if (type === 'BOOLEAN') return checked;
  if (raw === undefined || raw.trim() === '') return undefined;
  if (type === 'NUMBER') {
    const n = Number(raw);
    return Number.isFinite(n) ? n : raw;
  }
  return raw;
}

/** The protocol action and data a review page post carries (checked afterwards like any answer). */
export function askFormAnswer(
  c: AskContent,
  p: Params,
): { action: string; data: Record<string, unknown> } {
  const action = first(p, 'action') ?? '';
  switch (c.type) {
    case 'approval':
      return approvalAnswer(c, p);
    case 'decision':
      return { action, data: decisionData(c, p) };
    case 'context': {
      if (c.sub_type === 'freetext') return { action, data: { value: first(p, 'value') ?? '' } };
      if (c.sub_type === 'confirm') return { action, data: {} };
      const values: Record<string, unknown> = {};
      for (const f of c.fields) {
        const v = typedValue(f.type, first(p, `f.${f.key}`), first(p, `f.${f.key}`) === 'true');
        if (v !== undefined) values[f.key] = v;
      }
      return { action, data: { values } };
    }
    case 'edit': {
      if (c.sub_type === 'content') return { action, data: { content: first(p, 'content') ?? '' } };
      const args: Record<string, unknown> = {};
      for (const a of c.args) {
        if (!a.editable) continue;
        const v = typedValue(a.type, first(p, `a.${a.key}`), first(p, `a.${a.key}`) === 'true');
        if (v !== undefined) args[a.key] = v;
      }
      return { action, data: { args } };
    }
  }
}

function approvalAnswer(c: Family<'approval'>, p: Params) {
  const decision = first(p, 'decision') ?? '';
  const data: Record<string, unknown> = { decision };
  if (c.sub_type === 'modify') {
    const values: Record<string, unknown> = {};
    for (const f of c.modifiable) {
      const v = typedValue(f.type, first(p, `v.${f.key}`), first(p, `v.${f.key}`) === 'true');
      if (v !== undefined) values[f.key] = v;
    }
    data.values = values;
  }
  return { action: actionFor(c, { decision } as AskAnswer), data };
}

function decisionData(c: Family<'decision'>, p: Params): Record<string, unknown> {
  if (c.sub_type === 'rank') {
    const places = c.options.map((o) => ({
      key: o.key,
      at: Number(first(p, `rank.${o.key}`)),
    }));
    const used = new Set(places.map((x) => x.at));
    // Two options on one place leave a place empty: the ranking is incomplete, and says so.
    const ranking =
      used.size === places.length
        ? places.sort((a, b) => a.at - b.at).map((x) => x.key)
        : [...new Map(places.map((x) => [x.at, x.key])).values()];
    return { ranking };
  }
  if (c.sub_type === 'single') {
    const s = first(p, 'selected');
    return s === undefined ? {} : { selected: s };
  }
  return { selected: all(p, 'selected') };
}
