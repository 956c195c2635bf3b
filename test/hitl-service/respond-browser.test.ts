import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createCase,
  type DemoServer,
  inlineSubmit,
  type Json,
  manualClock,
  poll,
  startDemoServer,
  submitBody,
} from '../demo/helpers.ts';

const clock = manualClock();
let server: DemoServer;
beforeAll(async () => {
  server = await startDemoServer({ now: clock.now });
});
afterAll(() => server.close());

const reviewToken = (hitl: Json) => new URL(hitl.review_url).searchParams.get('token')!;

describe('review-token path (the browser) and token separation', () => {
  it('answers with ?token=<review token> as JSON, with all of the type’s actions', async () => {
    const { hitl } = await createCase(server.base, 'approval', true);
    const res = await fetch(
      `${server.base}/api/reviews/${hitl.case_id}/respond?token=${reviewToken(hitl)}`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          action: 'reject',
          data: { feedback: 'Not today' },
          responded_by: { name: 'Kim' },
        }),
      },
    );
    expect(res.status).toBe(200);
    const polled = (await poll(hitl.poll_url)).json!;
    expect(polled.result).toEqual({ action: 'reject', data: { feedback: 'Not today' } });
    expect(polled.responded_by).toEqual({ name: 'Kim' });
    expect(polled.submission_context.mode).toBe('browser_submit');
  });

  it('never accepts the submit token where the review token is expected', async () => {
    const { hitl } = await createCase(server.base, 'confirmation', true);
    const t = hitl.submit_token;
    const respond = await fetch(`${server.base}/api/reviews/${hitl.case_id}/respond?token=${t}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'confirm' }),
    });
    expect(respond.status).toBe(401);
    const page = await fetch(`${server.base}/review/${hitl.case_id}?token=${t}`);
    expect(page.status).toBe(401);
    for (const path of ['cancel', 'progress']) {
      const res = await fetch(`${server.base}/api/reviews/${hitl.case_id}/${path}?token=${t}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${t}` },
        body: '{}',
      });
      expect(res.status).toBe(401);
    }
    expect((await poll(hitl.poll_url)).json!.status).toBe('pending');
  });

  it('validates browser answers: unknown action, missing required input, empty selection', async () => {
    const send = async (hitl: Json, body: Json) =>
      fetch(`${server.base}/api/reviews/${hitl.case_id}/respond?token=${reviewToken(hitl)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const approval = (await createCase(server.base, 'approval', false)).hitl;
    expect((await send(approval, { action: 'confirm' })).status).toBe(400);
    const input = (await createCase(server.base, 'input', false)).hitl;
    const missing = await send(input, { action: 'submit', data: { full_name: 'Kim' } });
    expect(missing.status).toBe(400);
    const paths = ((await missing.json()) as Json).details.map((d: Json) => d.path);
    expect(paths).toEqual(
      expect.arrayContaining(['data.salary_expectation', 'data.work_authorization']),
    );
    const ok = await send(input, {
      action: 'submit',
      data: { full_name: 'Kim', salary_expectation: 100000, work_authorization: 'citizen' },
    });
    expect(ok.status).toBe(200);
    const selection = (await createCase(server.base, 'selection', false)).hitl;
    expect((await send(selection, { action: 'select', data: { selected: [] } })).status).toBe(400);
  });

  it('masks sensitive form values in recorded submissions but keeps them in the result', async () => {
    const { hitl } = await createCase(server.base, 'input', false);
    await fetch(`${server.base}/api/reviews/${hitl.case_id}/respond?token=${reviewToken(hitl)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        action: 'submit',
        data: { full_name: 'Kim', salary_expectation: 123456, work_authorization: 'citizen' },
      }),
    });
    const recorded = (await server.demo.submissions()).find((s) => s.case_id === hitl.case_id)!;
    expect(recorded.auth).toBe('review_token');
    expect(recorded.bearer_valid).toBe(false);
    expect((recorded.body as Json).data.salary_expectation).toBe('[sensitive]');
    expect((await poll(hitl.poll_url)).json!.result.data.salary_expectation).toBe(123456);
  });

  it('404 not_found for an unknown case', async () => {
    const res = await inlineSubmit(
      `${server.base}/api/reviews/review_nope/respond`,
      'x',
      submitBody('confirm'),
    );
    expect(res.status).toBe(404);
    expect(res.json.error).toBe('not_found');
  });
});
