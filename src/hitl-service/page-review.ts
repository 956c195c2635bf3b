/** The review page itself: the case, the profile's answer controls, cancelling and progress reporting. */
import { formFields } from './answers.ts';
import { bindingMessage } from './binding.ts';
import { escapeHtml, layout } from './page.ts';
import type { ServiceProfile } from './profile.ts';
import type { ReviewCase } from './types.ts';

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

/** The whole review page for a case: the profile's controls in the service's shell. */
export function renderReviewPage(
  kase: ReviewCase,
  urls: PageUrls,
  nonce: string,
  profile: ServiceProfile,
): string {
  const head = `<span class="badge">${escapeHtml(kase.type)} review</span>
<h1>${escapeHtml(kase.prompt)}</h1><p>${escapeHtml(kase.message)}</p>`;
  const closed = closedBanner(kase, profile) ?? boundBanner(kase);
  if (closed) return layout(kase.prompt, head + closed + profile.reviewHtml(kase, false), nonce);
  const steps = Array.isArray((kase.context.form as { steps?: unknown[] })?.steps)
    ? (kase.context.form as { steps: unknown[] }).steps.length
    : 1;
  const buttons = profile.reviewButtons?.(kase);
  const form = `<form id="review-form" method="post" action="${escapeHtml(urls.respond)}"
data-progress="${escapeHtml(urls.progress)}" data-steps="${steps}">
${profile.reviewHtml(kase, true)}
<label for="responded_by_name">Your name (optional)</label>
<input id="responded_by_name" name="responded_by_name" autocomplete="name">
${buttons === undefined ? '' : `<div class="actions">${buttons}</div>`}</form>
<form method="post" action="${escapeHtml(urls.cancel)}" class="box">
<label for="reason">Not for you, or not needed any more?</label>
<input id="reason" name="reason" placeholder="Reason (optional)">
<div class="actions"><button type="submit">Cancel this review</button></div></form>
<p class="hint">Expires ${escapeHtml(kase.expires_at)}; if nobody answers, the default is
<strong>${escapeHtml(kase.default_action)}</strong>.</p>`;
  return layout(kase.prompt, head + form, nonce, PROGRESS_SCRIPT);
}

/** An open case bound to an approval policy: shown, never answered here. */
function boundBanner(kase: ReviewCase): string | undefined {
  const message = bindingMessage(kase);
  return message ? `<div class="box warn">${escapeHtml(message)}</div>` : undefined;
}

function closedBanner(kase: ReviewCase, profile: ServiceProfile): string | undefined {
  if (kase.status === 'completed') {
    const data = kase.result?.data ?? {};
    const shown = {
      action: kase.result?.action,
      data: profile.publicAnswer ? profile.publicAnswer(kase, data) : publicData(kase),
    };
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
function publicData(kase: ReviewCase): Record<string, unknown> {
  const data = { ...(kase.result?.data ?? {}) };
  for (const f of formFields(kase)) if (f.sensitive && f.key in data) data[f.key] = '••••••';
  return data;
}
