/** The demo's review page controls: each review type's context and answer fields, and its buttons. */
import { formFields } from '../hitl-service/answers.ts';
import { escapeHtml } from '../hitl-service/page.ts';
import { actionsFor } from '../hitl-service/review-types.ts';
import type { ReviewCase } from '../hitl-service/types.ts';
import type { ReviewFormField } from '../hitl-service/validation.ts';

const LABELS: Record<string, string> = {
  approve: 'Approve',
  edit: 'Request changes',
  reject: 'Reject',
  select: 'Select',
  submit: 'Submit',
  confirm: 'Confirm',
  cancel: 'Cancel action',
  retry: 'Retry',
  skip: 'Skip',
  abort: 'Abort',
};

const STYLES: Record<string, string> = {
  approve: 'primary',
  confirm: 'primary',
  select: 'primary',
  submit: 'primary',
  retry: 'primary',
  reject: 'danger',
  abort: 'danger',
};

/** The buttons of the demo's review page: one per action of the case's type. */
export function reviewButtons(kase: ReviewCase): string {
  return actionsFor(kase.type)
    .map(
      (a) =>
        `<button type="submit" name="action" value="${escapeHtml(a)}" class="${STYLES[a] ?? ''}">${escapeHtml(LABELS[a] ?? a)}</button>`,
    )
    .join('');
}

/** The case's context per review type, with the answer fields when `editable`. */
export function contextHtml(kase: ReviewCase, editable: boolean): string {
  const ctx = kase.context;
  switch (kase.type) {
    case 'approval':
      return approvalHtml(ctx, editable);
    case 'selection':
      return selectionHtml(ctx, editable);
    case 'confirmation': {
      const items = (Array.isArray(ctx.items) ? ctx.items : []) as Array<Record<string, unknown>>;
      const warn = ctx.irreversible
        ? `<div class="box warn"><strong>This cannot be undone.</strong> ${escapeHtml(ctx.impact)}</div>`
        : '';
      return `${warn}<div class="box">${items
        .map(
          (i) =>
            `<label class="check"><input type="checkbox" name="confirmed_items" value="${escapeHtml(i.id)}" checked${
              editable ? '' : ' disabled'
            }> ${escapeHtml(i.label)}</label>`,
        )
        .join('')}</div>${editable ? noteField() : ''}`;
    }
    case 'escalation': {
      const e = (ctx.error ?? {}) as Record<string, unknown>;
      return `<div class="box err"><strong>${escapeHtml(e.code)}</strong>: ${escapeHtml(e.message)}
<p class="hint">Step ${escapeHtml(e.step)}, attempt ${escapeHtml(e.attempt)}</p></div>
<p class="hint">${escapeHtml(ctx.options_hint)}</p>${
        editable
          ? `<label for="reason-field">Reason</label><textarea id="reason-field" name="reason" data-field rows="2"></textarea>`
          : ''
      }`;
    }
    case 'input':
      return editable ? inputForm(kase) : '';
    default:
      return `<pre>${escapeHtml(JSON.stringify(ctx, null, 2))}</pre>${editable ? noteField() : ''}`;
  }
}

/** An approval's artifact, the previous round's feedback and the feedback fields. */
function approvalHtml(ctx: Record<string, unknown>, editable: boolean): string {
  const a = (ctx.artifact ?? {}) as Record<string, unknown>;
  const changes = Array.isArray(a.changes) ? a.changes : [];
  const prev = ctx.previous_feedback
    ? `<div class="box warn">Feedback from the previous round:
<pre>${escapeHtml(JSON.stringify(ctx.previous_feedback, null, 2))}</pre></div>`
    : '';
  return `${prev}<div class="box"><strong>${escapeHtml(a.title)}</strong>
<p>${escapeHtml(a.summary)}</p><ul>${changes.map((c) => `<li>${escapeHtml(c)}</li>`).join('')}</ul>
<p class="hint">Risk: ${escapeHtml(a.risk)} · round ${escapeHtml(ctx.round ?? 1)}</p></div>${
    editable
      ? `<label for="feedback">Feedback</label><textarea id="feedback" name="feedback" data-field rows="3"></textarea>
<label for="revised">Requested changes (for "Request changes")</label>
<textarea id="revised" name="revised" data-field rows="3"></textarea>`
      : ''
  }`;
}

/** A selection's options as checkboxes (or radios). */
function selectionHtml(ctx: Record<string, unknown>, editable: boolean): string {
  const options = (Array.isArray(ctx.options) ? ctx.options : []) as Array<Record<string, unknown>>;
  const type = ctx.multiple === false ? 'radio' : 'checkbox';
  return `<div class="box">${options
    .map(
      (o) =>
        `<label class="check"><input type="${type}" name="selected" data-field value="${escapeHtml(o.id)}"${
          editable ? '' : ' disabled'
        }> ${escapeHtml(o.label)} <span class="hint">${escapeHtml(o.detail)}</span></label>`,
    )
    .join('')}</div>${editable ? noteField() : ''}`;
}

function noteField(): string {
  return `<label for="note">Note (optional)</label><textarea id="note" name="note" data-field rows="2"></textarea>`;
}

function inputForm(kase: ReviewCase): string {
  const form = kase.context.form as {
    fields?: ReviewFormField[];
    steps?: Array<{ title: string; description?: string; fields: ReviewFormField[] }>;
  };
  if (form?.steps) {
    return form.steps
      .map(
        (s, i) =>
          `<fieldset><legend>${escapeHtml(s.title)}</legend>${
            s.description ? `<p class="hint">${escapeHtml(s.description)}</p>` : ''
          }${s.fields.map((f) => fieldHtml(f, i + 1)).join('')}</fieldset>`,
      )
      .join('');
  }
  return formFields(kase)
    .map((f) => fieldHtml(f, 1))
    .join('');
}

function fieldHtml(f: ReviewFormField, step: number): string {
  const id = `f_${f.key}`;
  const common = `id="${id}" name="${escapeHtml(f.key)}" data-field data-step="${step}"${f.required ? ' required' : ''}`;
  const label = `<label for="${id}">${escapeHtml(f.label)}${f.required ? ' *' : ''}${f.sensitive ? ' <span class="hint">(hidden while typing, never logged)</span>' : ''}</label>`;
  const hint = f.hint ? `<div class="hint">${escapeHtml(f.hint)}</div>` : '';
  const v = f.validation ?? {};
  const value = f.default !== undefined && !f.sensitive ? ` value="${escapeHtml(f.default)}"` : '';
  let control: string;
  if (f.type === 'textarea') control = `<textarea ${common} rows="3"></textarea>`;
  else if (f.type === 'boolean') {
    return `<label class="check"><input type="checkbox" ${common}> ${escapeHtml(f.label)}</label>${hint}`;
  } else if (f.type === 'select' || f.type === 'multiselect') {
    const opts = (f.options ?? [])
      .map((o) => `<option value="${escapeHtml(o.value)}">${escapeHtml(o.label)}</option>`)
      .join('');
    const empty = f.type === 'select' ? '<option value="">Choose…</option>' : '';
    control = `<select ${common}${f.type === 'multiselect' ? ' multiple' : ''}>${empty}${opts}</select>`;
  } else {
    const known = ['text', 'number', 'date', 'email', 'url', 'range'];
    // Sensitive fields are masked like passwords (spec 10.3.1); unknown x- types fall back to text.
    const type = f.sensitive ? 'password' : known.includes(f.type) ? f.type : 'text';
    const attrs = [
      f.placeholder ? ` placeholder="${escapeHtml(f.placeholder)}"` : '',
      v.min !== undefined ? ` min="${escapeHtml(v.min)}"` : '',
      v.max !== undefined ? ` max="${escapeHtml(v.max)}"` : '',
      v.minLength !== undefined ? ` minlength="${escapeHtml(v.minLength)}"` : '',
      v.maxLength !== undefined ? ` maxlength="${escapeHtml(v.maxLength)}"` : '',
      f.sensitive ? ' autocomplete="off"' : '',
      f.sensitive && (f.type === 'number' || f.type === 'range') ? ' inputmode="decimal"' : '',
    ].join('');
    control = `<input type="${type}" ${common}${attrs}${value}>`;
  }
  return label + control + hint;
}
