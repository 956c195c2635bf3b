/**
 * Sensitive answers of an ask: the values of form fields marked `sensitive` (a password, a token).
 * They are never shown back (the review page, receipts) and named only by their path.
 */
import type { AskContent } from './content.ts';

/** What stands for a hidden value where an answer is shown back. */
export const HIDDEN = '••••••';

/** The keys of the sensitive fields of an ask (only forms have them). */
function sensitiveKeys(c: AskContent): string[] {
  return c.type === 'context' && c.sub_type === 'form'
    ? c.fields.filter((f) => f.sensitive === true).map((f) => f.key)
    : [];
}

/** The answer's values of sensitive fields: the paths of those given (`values.password`). */
export function sensitivePaths(c: AskContent, data: Record<string, unknown>): string[] {
  const values = data.values as Record<string, unknown> | undefined;
  if (!values || typeof values !== 'object') return [];
  return sensitiveKeys(c)
    .filter((k) => k in values)
    .map((k) => `values.${k}`);
}

/** The answer with its sensitive values replaced by HIDDEN. */
export function withoutSensitive(
  c: AskContent,
  data: Record<string, unknown>,
): Record<string, unknown> {
  const keys = sensitiveKeys(c);
  const values = data.values as Record<string, unknown> | undefined;
  if (!keys.length || !values || typeof values !== 'object') return data;
  const shown = { ...values };
  for (const k of keys) if (k in shown) shown[k] = HIDDEN;
  return { ...data, values: shown };
}
