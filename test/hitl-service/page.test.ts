import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createCase,
  type DemoServer,
  type Json,
  openSse,
  poll,
  schemaErrors,
  startDemoServer,
} from '../demo/helpers.ts';

let server: DemoServer;
beforeAll(async () => {
  server = await startDemoServer();
});
afterAll(() => server.close());

const tokenOf = (hitl: Json) => new URL(hitl.review_url).searchParams.get('token')!;

/** Posts the review page's form the way a browser does. */
async function postForm(hitl: Json, path: string, fields: Array<[string, string]>) {
  return fetch(`${server.base}/api/reviews/${hitl.case_id}/${path}?token=${tokenOf(hitl)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
}

describe('GET /review/:id (the review page)', () => {
  it('renders escaped HTML under a strict CSP and marks the case opened', async () => {
    const evil = `<script>alert("x")</script> & 'quotes'`;
    const { hitl } = await createCase(server.base, 'approval', true, {
      prompt: evil,
      context: {
        artifact: { title: '<img src=x onerror=alert(1)>', summary: 's', changes: ['<b>'] },
      },
    });
    const sse = await openSse(hitl.events_url);
    const res = await fetch(hitl.review_url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    const html = await res.text();
    expect(html).not.toContain('<script>alert');
    expect(html).not.toContain('<img src=x');
    expect(html).toContain(
      '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &#39;quotes&#39;',
    );
    expect(html).toContain('&lt;b&gt;');
    for (const action of ['approve', 'edit', 'reject']) expect(html).toContain(`value="${action}"`);
    expect(html).toContain(`/api/reviews/${hitl.case_id}/respond?token=${tokenOf(hitl)}`);
    expect(html).not.toContain(hitl.submit_token);
    // The one inline script carries the CSP nonce and is valid JavaScript.
    const nonce = /script-src 'nonce-([^']+)'/.exec(
      res.headers.get('content-security-policy')!,
    )![1];
    const open = `<script nonce="${nonce}">`;
    const script = html.slice(html.indexOf(open) + open.length, html.indexOf('</script>'));
    expect(html).toContain(open);
    expect(() => new Function(script)).not.toThrow();
    expect((await poll(hitl.poll_url)).json!.status).toBe('opened');
    await sse.waitFor(1);
    expect(sse.events[0]!.event).toBe('review.opened');
    sse.abort();
  });

  it('renders the input form with the sensitive field masked', async () => {
    const { hitl } = await createCase(server.base, 'input', false);
    const html = await (await fetch(hitl.review_url)).text();
    expect(html).toMatch(/<input type="password" id="f_salary_expectation"[^>]*autocomplete="off"/);
    expect(html).toMatch(/<input type="text" id="f_full_name"[^>]*required/);
    expect(html).toMatch(/<select id="f_work_authorization"/);
    expect(html).toMatch(/<input type="checkbox" id="f_willing_to_relocate"/);
  });

  it('answers 401 for a wrong token and 404 for an unknown case', async () => {
    const { hitl } = await createCase(server.base, 'confirmation', false);
    expect((await fetch(`${server.base}/review/${hitl.case_id}?token=nope`)).status).toBe(401);
    expect((await fetch(`${server.base}/review/${hitl.case_id}`)).status).toBe(401);
    expect((await fetch(`${server.base}/review/review_nope?token=x`)).status).toBe(404);
    expect((await poll(hitl.poll_url)).json!.status).toBe('pending');
  });
});

describe('the review page’s forms', () => {
  it('submits a selection with several options and shows a confirmation page', async () => {
    const { hitl } = await createCase(server.base, 'selection', false);
    const res = await postForm(hitl, 'respond', [
      ['selected', 'job-1'],
      ['selected', 'job-3'],
      ['note', 'Remote only'],
      ['responded_by_name', 'Sam'],
      ['action', 'select'],
    ]);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('Thank you');
    const polled = (await poll(hitl.poll_url)).json!;
    expect(polled.result).toEqual({
      action: 'select',
      data: { selected: ['job-1', 'job-3'], note: 'Remote only' },
    });
    expect(polled.responded_by).toEqual({ name: 'Sam' });
    expect(polled.submission_context).toEqual({
      mode: 'browser_submit',
      submitted_via: 'review_page',
    });
    // Visiting again shows the recorded answer, not the form.
    const again = await (await fetch(hitl.review_url)).text();
    expect(again).toContain('Already answered');
    expect(again).not.toContain('id="review-form"');
  });

  it('types input values from the form and hides sensitive ones when shown again', async () => {
    const { hitl } = await createCase(server.base, 'input', false);
    const res = await postForm(hitl, 'respond', [
      ['full_name', 'Kim Lee'],
      ['salary_expectation', '105000'],
      ['work_authorization', 'blue_card'],
      ['willing_to_relocate', 'on'],
      ['action', 'submit'],
    ]);
    expect(res.status).toBe(200);
    expect((await poll(hitl.poll_url)).json!.result.data).toEqual({
      full_name: 'Kim Lee',
      salary_expectation: 105000,
      work_authorization: 'blue_card',
      willing_to_relocate: true,
    });
    const again = await (await fetch(hitl.review_url)).text();
    expect(again).not.toContain('105000');
  });

  it('shows an error page for an incomplete form and keeps the case open', async () => {
    const { hitl } = await createCase(server.base, 'input', false);
    const res = await postForm(hitl, 'respond', [['action', 'submit']]);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect((await poll(hitl.poll_url)).json!.status).toBe('pending');
  });

  it('an edit starts the next round and the confirmation page shows its 202 body', {
    tags: ['corpus'],
  }, async () => {
    const { hitl } = await createCase(server.base, 'approval', true);
    const res = await postForm(hitl, 'respond', [
      ['feedback', 'Roll out to 2 pods first'],
      ['revised', 'canary: 2 pods'],
      ['action', 'edit'],
    ]);
    expect(res.status).toBe(200);
    const html = await res.text();
    const first = (await poll(hitl.poll_url)).json!;
    expect(first.result).toEqual({
      action: 'edit',
      data: { feedback: 'Roll out to 2 pods first', edits: { revised: 'canary: 2 pods' } },
    });
    const nextId = first.next_case_id as string;
    expect(nextId).toMatch(/^review_/);
    const pre = /<pre>([\s\S]*?)<\/pre>/.exec(html)![1]!;
    const decoded = pre
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
    const next = JSON.parse(decoded) as Json;
    expect(next.hitl.case_id).toBe(nextId);
    expect(next.hitl.previous_case_id).toBe(hitl.case_id);
    expect(schemaErrors('hitl-object.schema.json', next.hitl)).toEqual([]);
    const nextPage = await (await fetch(next.hitl.review_url)).text();
    expect(nextPage).toContain('Feedback from the previous round');
    expect(nextPage).toContain('round 2');
  });

  it('cancels from the page with a reason', async () => {
    const { hitl } = await createCase(server.base, 'escalation', false);
    const res = await postForm(hitl, 'cancel', [['reason', 'Fixed by hand']]);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('cancelled');
    expect((await poll(hitl.poll_url)).json).toMatchObject({
      status: 'cancelled',
      reason: 'Fixed by hand',
    });
    const twice = await postForm(hitl, 'cancel', []);
    expect(twice.status).toBe(409);
  });

  it('reports progress as in_progress with the numbers given', async () => {
    const { hitl } = await createCase(server.base, 'input', false);
    const url = `${server.base}/api/reviews/${hitl.case_id}/progress?token=${tokenOf(hitl)}`;
    const report = (body: unknown) =>
      fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const progress = { current_step: 1, total_steps: 1, completed_fields: 2, total_fields: 5 };
    const res = await report(progress);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'in_progress', case_id: hitl.case_id });
    const polled = (await poll(hitl.poll_url)).json!;
    expect(polled).toMatchObject({ status: 'in_progress', progress });
    expect(polled.opened_at).toBeTruthy();
    expect((await report({ current_step: 0 })).status).toBe(400);
  });
});
