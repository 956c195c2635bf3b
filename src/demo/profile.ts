/**
 * The demo's profile of the HITL service: the five standard review types with sample context, a
 * review page per type, the checks a browser answer gets (required fields, numbers, options) and an
 * approval's `edit` starting the next round. Inline submits are taken as sent, as a plain service
 * would.
 */
import { formFields } from '../hitl-service/answers.ts';
import type { CaseSpec } from '../hitl-service/create.ts';
import type { ServiceProfile } from '../hitl-service/profile.ts';
import type { ReviewCase } from '../hitl-service/types.ts';
import { formAnswer } from './form-answer.ts';
import { contextHtml, reviewButtons } from './review-page.ts';
import { defaultContext, defaultMessage } from './samples.ts';

/** The demo profile. */
export const demoProfile: ServiceProfile = {
  checkAnswer(kase, action, data, mode) {
    const details = mode === 'browser_submit' ? checkData(kase, action, data) : [];
    return details.length > 0 ? { ok: false, details } : { ok: true, data };
  },
  formAnswer,
  reviewHtml: contextHtml,
  reviewButtons,
  followUp(kase, result) {
    return kase.type === 'approval' && result.action === 'edit'
      ? followUpSpec(kase, result.data)
      : undefined;
  },
};

/** The next round of an approval answered with `edit` (spec 10.1): same settings, linked back. */
function followUpSpec(previous: ReviewCase, feedback: Record<string, unknown>): CaseSpec {
  const round = typeof previous.context.round === 'number' ? previous.context.round + 1 : 2;
  const lifetime = (Date.parse(previous.expires_at) - Date.parse(previous.created_at)) / 1000;
  const spec: CaseSpec = {
    type: previous.type,
    inline: previous.inline,
    prompt: `Review the revised version (round ${round}): ${previous.prompt}`.slice(0, 500),
    message: defaultMessage(previous.type),
    expiresInSeconds: Math.max(1, Math.round(lifetime)),
    previous_case_id: previous.case_id,
    callback_url: previous.callback_url,
    context: {
      ...defaultContext(previous.type),
      ...previous.context,
      round,
      previous_feedback: feedback,
    },
  };
  if (previous.inline_actions) spec.inline_actions = previous.inline_actions;
  const mode = previous.verification_policy?.mode;
  if (mode === 'required' || mode === 'step_up' || mode === 'optional') spec.verification = mode;
  return spec;
}

/** Problems with the data of a browser answer (required fields, numbers, options, selection). */
function checkData(
  kase: ReviewCase,
  action: string,
  data: Record<string, unknown>,
): Array<{ path: string; message: string }> {
  const issues: Array<{ path: string; message: string }> = [];
  if (kase.type === 'selection' && action === 'select') {
    const selected = data.selected;
    if (!Array.isArray(selected) || selected.length === 0) {
      issues.push({ path: 'data.selected', message: 'select at least one option' });
    }
  }
  if (kase.type !== 'input') return issues;
  for (const field of formFields(kase)) {
    const value = data[field.key];
    const empty = value === undefined || value === null || value === '';
    if (empty) {
      if (field.required) issues.push({ path: `data.${field.key}`, message: 'required' });
      continue;
    }
    const v = field.validation;
    if ((field.type === 'number' || field.type === 'range') && typeof value !== 'number') {
      issues.push({ path: `data.${field.key}`, message: 'must be a number' });
    } else if (typeof value === 'number' && v) {
      if (v.min !== undefined && value < v.min)
        issues.push({ path: `data.${field.key}`, message: `at least ${v.min}` });
      if (v.max !== undefined && value > v.max)
        issues.push({ path: `data.${field.key}`, message: `at most ${v.max}` });
    }
    if (field.type === 'select' && field.options && !field.options.some((o) => o.value === value)) {
      issues.push({ path: `data.${field.key}`, message: 'not one of the options' });
    }
  }
  return issues;
}
