/** The review page itself: the case, its context per type, the answer form and progress reporting. */
import { formFields } from './answers.ts';
import { escapeHtml, layout } from './page.ts';
import type { ServiceProfile } from './profile.ts';
import { actionsFor } from './review-types.ts';
import type { DemoCase } from './types.ts';
import type { FormField } from './validation.ts';

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

// Reports form progress (spec 10.3.4) whenever the count of filled fields or the step changes.
const PROGRESS_SCRIPT = `(() => {
const form = document.getElementById('review-form'); if (!form) return;
let last = '';
form.addEventListener('input', (e) => {
  const fields = [...form.querySelectorAll('[data-field]')];
  const names = [...new Set(fields.map((f) => f.name))];
  const filled = names.filter((n) => fields.some((f) => f.name === n &&
    (f.type === 'checkbox' ? f.checked : String(f.value).trim() !== ''))).length;
  const body = JSON.stringify({ current_step: Number(e.target.dataset.step || 1),
    total_steps: Number(form.dataset.steps || 1), completed_fields: filled, total_fields: names.length });
  if (body === last) return; last = body;
  fetch(form.dataset.progress, { method: 'POST', headers: { 'content-type': 'application/json' }, body })
    .catch(() => {});
});
// Picks marked data-confirm (the pressed button, a checked option) cannot be undone: ask first.
form.addEventListener('submit', (e) => {
  const picks = [e.submitter, ...form.querySelectorAll('input:checked')].filter((x) => x && x.dataset && x.dataset.confirm);
  if (picks.length && !confirm('This cannot be undone: ' + picks.map((x) => x.dataset.confirm).join(', ') + '. Continue?')) e.preventDefault();
});
})();`;

/** URLs the page posts to (token included). */
export interface PageUrls {
  respond: string;
  cancel: string;
  progress: string;
}

/** The whole review page for a case. */
export function renderReviewPage(
  kase: DemoCase,
  urls: PageUrls,
  nonce: string,
  profile?: ServiceProfile,
): string {
  const head = `<span class="badge">${escapeHtml(kase.type)} review</span>
<h1>${escapeHtml(kase.prompt)}</h1><p>${escapeHtml(kase.message)}</p>`;
  const closed = closedBanner(kase);
  const body = profile ? (editable: boolean) => profile.reviewHtml(kase, editable) : undefined;
  if (closed)
    return layout(
      kase.prompt,
      head + closed + (body ?? ((e) => contextHtml(kase, e)))(false),
      nonce,
    );
  const steps = Array.isArray((kase.context.form as { steps?: unknown[] })?.steps)
    ? (kase.context.form as { steps: unknown[] }).steps.length
    : 1;
  const buttons = actionsFor(kase.type)
    .map(
      (a) =>
        `<button type="submit" name="action" value="${escapeHtml(a)}" class="${STYLES[a] ?? ''}">${escapeHtml(LABELS[a] ?? a)}</button>`,
    )
    .join('');
  const form = `<form id="review-form" method="post" action="${escapeHtml(urls.respond)}"
data-progress="${escapeHtml(urls.progress)}" data-steps="${steps}">
${body ? body(true) : contextHtml(kase, true)}
<label for="responded_by_name">Your name (optional)</label>
<input id="responded_by_name" name="responded_by_name" autocomplete="name">
${body ? '' : `<div class="actions">${buttons}</div>`}</form>
<form method="post" action="${escapeHtml(urls.cancel)}" class="box">
<label for="reason">Not for you, or not needed any more?</label>
<input id="reason" name="reason" placeholder="Reason (optional)">
<div class="actions"><button type="submit">Cancel this review</button></div></form>
<p class="hint">Expires ${escapeHtml(kase.expires_at)}; if nobody answers, the default is
<strong>${escapeHtml(kase.default_action)}</strong>.</p>`;
  return layout(kase.prompt, head + form, nonce, PROGRESS_SCRIPT);
}

function closedBanner(kase: DemoCase): string | undefined {
  if (kase.status === 'completed') {
    const shown = { action: kase.result?.action, data: publicData(kase) };
    return `<div class="box ok">Already answered at ${escapeHtml(kase.completed_at)}:
<pre>${escapeHtml(JSON.stringify(shown, null, 2))}</pre>${
      kase.next_case_id
        ? `<p>A follow-up round was started: <code>${escapeHtml(kase.next_case_id)}</code>.</p>`
        : ''
    }</div>`;
  }
  if (kase.status === 'expired') {
    return `<div class="box warn">This review expired at ${escapeHtml(kase.expired_at)}. The default
action <strong>${escapeHtml(kase.default_action)}</strong> applies.</div>`;
  }
  if (kase.status === 'cancelled') {
    return `<div class="box warn">This review was cancelled at ${escapeHtml(kase.cancelled_at)}:
${escapeHtml(kase.reason)}</div>`;
  }
  return undefined;
}

/** The answer's data with sensitive values hidden, for showing the page again after an answer. */
function publicData(kase: DemoCase): Record<string, unknown> {
  const data = { ...(kase.result?.data ?? {}) };
  for (const f of formFields(kase)) if (f.sensitive && f.key in data) data[f.key] = '••••••';
  return data;
}

function contextHtml(kase: DemoCase, editable: boolean): string {
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

function inputForm(kase: DemoCase): string {
  const form = kase.context.form as {
    fields?: FormField[];
    steps?: Array<{ title: string; description?: string; fields: FormField[] }>;
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

function fieldHtml(f: FormField, step: number): string {
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
