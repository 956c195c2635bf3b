/** Reading the demo review page's form posts into protocol answers, shaped per review type. */
import { formFields } from '../hitl-service/answers.ts';
import type { BrowserAnswerInput, FormParams, ReviewCase } from '../hitl-service/types.ts';

function one(params: FormParams, key: string): string | undefined {
  const v = params[key];
  const s = Array.isArray(v) ? v[0] : v;
  return s === undefined || s.trim() === '' ? undefined : s;
}

function all(params: FormParams, key: string): string[] {
  const v = params[key];
  return v === undefined ? [] : Array.isArray(v) ? v : [v];
}

/** The answer a review page form carries, with data shaped per review type (spec section 10). */
export function formAnswer(kase: ReviewCase, params: FormParams): BrowserAnswerInput {
  const data: Record<string, unknown> = {};
  const put = (key: string, value: unknown) => {
    if (value !== undefined) data[key] = value;
  };
  switch (kase.type) {
    case 'approval': {
      put('feedback', one(params, 'feedback'));
      const revised = one(params, 'revised');
      if (revised) data.edits = { revised };
      break;
    }
    case 'selection':
      data.selected = all(params, 'selected');
      put('note', one(params, 'note'));
      break;
    case 'confirmation':
      data.confirmed_items = all(params, 'confirmed_items');
      put('note', one(params, 'note'));
      break;
    case 'escalation':
      put('reason', one(params, 'reason'));
      break;
    case 'input':
      for (const field of formFields(kase)) {
        if (field.type === 'boolean') data[field.key] = one(params, field.key) !== undefined;
        else if (field.type === 'multiselect') data[field.key] = all(params, field.key);
        else if (field.type === 'number' || field.type === 'range') {
          const raw = one(params, field.key);
          put(field.key, raw === undefined ? undefined : Number(raw));
        } else put(field.key, one(params, field.key));
      }
      break;
    default:
      put('note', one(params, 'note'));
  }
  const answer: BrowserAnswerInput = { action: one(params, 'action') ?? '', data };
  const name = one(params, 'responded_by_name');
  const email = one(params, 'responded_by_email');
  if (name || email) answer.responded_by = { ...(name && { name }), ...(email && { email }) };
  return answer;
}
