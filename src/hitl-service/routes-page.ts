/** `GET /review/:id?token=`: the human's review page (spec 7); opening it marks the case opened. */
import type { Hono } from 'hono';
import type { ServiceDeps } from './context.ts';
import { newNonce, pageCsp, renderErrorPage } from './page.ts';
import { renderReviewPage } from './page-review.ts';
import { tokenMatches } from './tokens.ts';

const PAGE_HEADERS = {
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'cache-control': 'no-store',
};

/** Registers the review page route. */
export function registerPageRoutes(app: Hono, deps: ServiceDeps): void {
  app.get('/review/:id', async (c) => {
    const stored = await deps.lifecycle.refresh(c.req.param('id'));
    if (!stored) return c.html(renderErrorPage(404, 'There is no such review.'), 404, PAGE_HEADERS);
    const token = c.req.query('token');
    // Only the review hash: the agent's submit token must not open the human's page.
    if (!tokenMatches(token, stored.reviewHash)) {
      return c.html(renderErrorPage(401, 'The link is incomplete or wrong.'), 401, PAGE_HEADERS);
    }
    const opened = await deps.lifecycle.open(stored.kase.case_id);
    const kase = opened.ok ? opened.kase : (opened.kase ?? stored.kase);
    const base = deps.base(c);
    const id = encodeURIComponent(kase.case_id);
    const q = `?token=${encodeURIComponent(token ?? '')}`;
    const nonce = newNonce();
    const html = renderReviewPage(
      kase,
      {
        respond: `${base}/api/reviews/${id}/respond${q}`,
        cancel: `${base}/api/reviews/${id}/cancel${q}`,
        progress: `${base}/api/reviews/${id}/progress${q}`,
      },
      nonce,
      deps.profile,
    );
    return c.html(html, 200, { ...PAGE_HEADERS, 'content-security-policy': pageCsp(nonce) });
  });
}
