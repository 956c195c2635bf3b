/** Reading the review page's form posts, and masking sensitive values in what is recorded. */
import { formFields } from './answers.ts';
import type { FormParams, ReviewCase } from './types.ts';

/** A parsed form: each key's values in order. */
export type { FormParams } from './types.ts';

/** URLSearchParams as a plain object (repeated keys become arrays). */
export function formParams(text: string): FormParams {
  const out: FormParams = {};
  for (const [key, value] of new URLSearchParams(text)) {
    const prev = out[key];
    out[key] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
  }
  return out;
}

/** A copy of a recorded body with the values of `sensitive` form fields replaced (spec 10.3.1). */
export function maskSensitive(kase: ReviewCase, body: unknown): unknown {
  const keys = formFields(kase)
    .filter((f) => f.sensitive)
    .map((f) => f.key);
  if (keys.length === 0 || !body || typeof body !== 'object') return body;
  const copy: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  const data = copy.data;
  if (data && typeof data === 'object' && !Array.isArray(data)) {
    const masked: Record<string, unknown> = { ...(data as Record<string, unknown>) };
    for (const k of keys) if (k in masked) masked[k] = '[sensitive]';
    copy.data = masked;
  }
  for (const k of keys) if (k in copy) copy[k] = '[sensitive]';
  return copy;
}
