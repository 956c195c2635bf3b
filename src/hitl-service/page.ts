/** HTML shell of the review pages: escaping, layout, CSP nonce, and the done / error pages. */
import { randomBytes } from 'node:crypto';
import type { ReviewCreated } from './types.ts';

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(value: unknown): string {
  return String(value ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** A fresh nonce for the page's one style block and one script. */
export function newNonce(): string {
  return randomBytes(16).toString('base64');
}

/** The Content-Security-Policy for a page using `nonce`. */
export function pageCsp(nonce: string): string {
  return [
    "default-src 'none'",
    `style-src 'nonce-${nonce}'`,
    `script-src 'nonce-${nonce}'`,
    "connect-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const STYLE = `
body{font:16px/1.5 system-ui,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1rem;color:#1d2330}
h1{font-size:1.35rem;margin:.2rem 0 .8rem}.badge{display:inline-block;font-size:.75rem;text-transform:uppercase;
letter-spacing:.05em;background:#e8ecf5;border-radius:4px;padding:.1rem .45rem}.box{border:1px solid #d5dae4;
border-radius:8px;padding:.8rem 1rem;margin:1rem 0}.warn{background:#fff4e5;border-color:#f0b46b}
.err{background:#fdecec;border-color:#e49a9a}.ok{background:#eaf7ee;border-color:#8fcca0}
label{display:block;margin:.6rem 0 .2rem;font-weight:600}input,select,textarea{font:inherit;padding:.35rem;
width:100%;box-sizing:border-box}input[type=checkbox]{width:auto}.check{font-weight:400}
.actions{display:flex;gap:.5rem;flex-wrap:wrap;margin-top:1rem}button{font:inherit;padding:.45rem 1rem;
border-radius:6px;border:1px solid #8290a8;background:#f4f6fa;cursor:pointer}button.primary{background:#2d5bd7;
color:#fff;border-color:#2d5bd7}button.danger{background:#c23b3b;color:#fff;border-color:#c23b3b}
.hint{color:#5b6475;font-size:.85rem}pre{background:#f4f6fa;padding:.6rem;overflow:auto;font-size:.8rem}
fieldset{border:1px solid #d5dae4;border-radius:8px;margin:1rem 0}`;

/** The full HTML document around `body`. */
export function layout(title: string, body: string, nonce: string, script = ''): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer"><title>${escapeHtml(title)}</title>
<style nonce="${nonce}">${STYLE}</style></head>
<body>${body}${script ? `<script nonce="${nonce}">${script}</script>` : ''}</body></html>`;
}

/** The page after a successful form post; for an edit it shows the next round's 202 body. */
export function renderDonePage(
  title: string,
  body: Record<string, unknown>,
  next: ReviewCreated | undefined,
): string {
  const nonce = newNonce();
  let html = `<h1>${escapeHtml(title)}</h1><div class="box ok">Case <code>${escapeHtml(body.case_id)}</code>
is now <strong>${escapeHtml(body.status)}</strong>.</div>`;
  if (next) {
    const url = String(next.hitl.review_url);
    html += `<div class="box"><p>Your edits start a new round of review:
<code>${escapeHtml(next.hitl.case_id)}</code>.</p><p><a href="${escapeHtml(url)}">Open the next round</a></p>
<p class="hint">The service's 202 answer for the new case (what an agent would receive):</p>
<pre>${escapeHtml(JSON.stringify(next, null, 2))}</pre></div>`;
  }
  return layout(title, html, nonce);
}

/** A plain error page. */
export function renderErrorPage(status: number, message: string): string {
  const nonce = newNonce();
  const titles: Record<number, string> = {
    400: 'That did not work',
    401: 'This link is not valid',
    404: 'Review not found',
    409: 'Already answered',
    410: 'This review has expired',
    429: 'Too many attempts',
  };
  const title = titles[status] ?? 'Something went wrong';
  return layout(
    title,
    `<h1>${escapeHtml(title)}</h1><div class="box err">${escapeHtml(message)}</div>`,
    nonce,
  );
}
