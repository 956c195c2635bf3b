/**
 * What the relay's Details link (/r/…) answers once the case's review_url was dropped from the
 * store (store/retention.ts): 410 Gone with this page, never a redirect or a generic 404.
 */
import type { StoredCase } from '../store/types.ts';

const esc = (v: string) =>
  v.replace(
    /[&<>"']/g,
    (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch] ?? ch,
  );

/** How the case ended, in words: "completed (approve)", "expired", "cancelled". */
export function outcomeOf(c: StoredCase): string {
  const action = c.doc.result?.action;
  return action ? `${c.status} (${action})` : c.status;
}

/** The 410 page: when the link was retired, how the case ended, and where to look instead. */
export function retiredPage(c: StoredCase, retiredAt: string): string {
  const text = `This review link was retired on ${retiredAt}: the case ended ${outcomeOf(c)}; see the case view (GET /v1/cases/${c.id}).`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="robots" content="noindex">
<title>Review link retired</title></head>
<body><h1>Review link retired</h1><p>${esc(text)}</p></body></html>
`;
}
