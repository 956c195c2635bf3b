import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  act,
  createCase,
  type DemoServer,
  inlineSubmit,
  type Json,
  manualClock,
  poll,
  schemaErrors,
  startDemoServer,
  submitBody,
} from '../demo/helpers.ts';

const clock = manualClock();
let server: DemoServer;
beforeAll(async () => {
  server = await startDemoServer({ now: clock.now, pollRetryAfterSeconds: 5 });
});
afterAll(() => server.close());

const valid = (body: Json | null) =>
  expect(schemaErrors('poll-response.schema.json', body)).toEqual([]);

describe('GET /api/reviews/:id/status', () => {
  it('walks pending -> opened -> in_progress -> completed with schema-valid bodies', {
    tags: ['corpus'],
  }, async () => {
    const { hitl } = await createCase(server.base, 'input', false);
    const pending = await poll(hitl.poll_url);
    expect(pending.status).toBe(200);
    expect(pending.headers.get('content-type')).toContain('application/json');
    expect(pending.headers.get('retry-after')).toBe('5');
    expect(pending.json).toEqual({
      status: 'pending',
      case_id: hitl.case_id,
      created_at: hitl.created_at,
      expires_at: hitl.expires_at,
    });
    valid(pending.json);

    clock.advance(1000);
    expect((await act(server.base, hitl.case_id, { step: 'open' })).json.status).toBe('opened');
    const opened = (await poll(hitl.poll_url)).json!;
    expect(opened.status).toBe('opened');
    expect(opened.opened_at).toBe(new Date(clock.now()).toISOString());
    valid(opened);

    const progress = { current_step: 2, total_steps: 3, completed_fields: 4, total_fields: 8 };
    await act(server.base, hitl.case_id, { step: 'progress', progress });
    const inProgress = (await poll(hitl.poll_url)).json!;
    expect(inProgress).toMatchObject({
      status: 'in_progress',
      progress,
      opened_at: opened.opened_at,
    });
    valid(inProgress);

    const data = { full_name: 'Kim', salary_expectation: 99000, work_authorization: 'blue_card' };
    const done = await act(server.base, hitl.case_id, {
      step: 'respond',
      action: 'submit',
      data,
      responded_by: { name: 'Kim Lee', email: 'kim@example.com' },
    });
    expect(done.json.status).toBe('completed');
    const completed = await poll(hitl.poll_url);
    expect(completed.headers.get('retry-after')).toBeNull();
    expect(completed.json).toMatchObject({
      status: 'completed',
      result: { action: 'submit', data },
      responded_by: { name: 'Kim Lee', email: 'kim@example.com' },
      submission_context: { mode: 'browser_submit' },
    });
    valid(completed.json);
  });

  it('answers expired with expired_at and the type’s default_action once expires_at passes', {
    tags: ['corpus'],
  }, async () => {
    for (const [type, action] of [
      ['approval', 'reject'],
      ['selection', 'skip'],
      ['input', 'skip'],
      ['confirmation', 'abort'],
      ['escalation', 'abort'],
    ]) {
      const { hitl } = await createCase(server.base, type!, true, { expires_in_seconds: 30 });
      clock.advance(30_000);
      const res = await poll(hitl.poll_url);
      expect(res.json).toEqual({
        status: 'expired',
        case_id: hitl.case_id,
        created_at: hitl.created_at,
        expired_at: hitl.expires_at,
        default_action: action,
      });
      expect(res.headers.get('retry-after')).toBeNull();
      valid(res.json);
    }
  });

  it('answers cancelled with a reason', { tags: ['corpus'] }, async () => {
    const { hitl } = await createCase(server.base, 'escalation', true);
    await act(server.base, hitl.case_id, { step: 'cancel', reason: 'Handled by phone' });
    const res = (await poll(hitl.poll_url)).json!;
    expect(res).toMatchObject({ status: 'cancelled', reason: 'Handled by phone' });
    expect(res.cancelled_at).toBe(new Date(clock.now()).toISOString());
    valid(res);
  });

  it('sends an ETag and answers 304 to a matching If-None-Match', async () => {
    const { hitl } = await createCase(server.base, 'approval', true);
    const first = await poll(hitl.poll_url);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[^"]+"$/);
    const same = await poll(hitl.poll_url, { 'if-none-match': etag });
    expect(same.status).toBe(304);
    expect(same.json).toBeNull();
    expect(same.headers.get('etag')).toBe(etag);
    expect(same.headers.get('retry-after')).toBe('5');
    expect((await poll(hitl.poll_url, { 'if-none-match': `W/${etag}` })).status).toBe(304);
    expect((await poll(hitl.poll_url, { 'if-none-match': '"other"' })).status).toBe(200);
    await act(server.base, hitl.case_id, { step: 'open' });
    const changed = await poll(hitl.poll_url, { 'if-none-match': etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
  });

  it('records reminder_sent_at when a reminder fires', { tags: ['corpus'] }, async () => {
    const { hitl } = await createCase(server.base, 'approval', false);
    await act(server.base, hitl.case_id, { step: 'remind' });
    const res = (await poll(hitl.poll_url)).json!;
    expect(res.reminder_sent_at).toBe(new Date(clock.now()).toISOString());
    valid(res);
  });

  it('links rounds: an edit completes the case with next_case_id and starts a follow-up', {
    tags: ['corpus'],
  }, async () => {
    const { hitl } = await createCase(server.base, 'approval', true, {
      hitl_callback_url: 'http://127.0.0.1:9/cb',
    });
    const res = await act(server.base, hitl.case_id, {
      step: 'respond',
      action: 'edit',
      data: { feedback: 'Smaller batch', edits: { revised: 'deploy 2 pods first' } },
    });
    expect(res.status).toBe(200);
    const next = res.json.next as Json;
    expect(next.status).toBe('human_input_required');
    expect(schemaErrors('hitl-object.schema.json', next.hitl)).toEqual([]);
    expect(next.hitl.previous_case_id).toBe(hitl.case_id);
    expect(next.hitl.type).toBe('approval');
    expect(next.hitl.callback_url).toBe('http://127.0.0.1:9/cb');
    expect(next.hitl.inline_actions).toEqual(['approve', 'reject']);
    expect(next.hitl.context.round).toBe(2);
    expect(next.hitl.context.previous_feedback.feedback).toBe('Smaller batch');
    const first = (await poll(hitl.poll_url)).json!;
    expect(first).toMatchObject({ status: 'completed', next_case_id: next.hitl.case_id });
    expect(first.result.action).toBe('edit');
    valid(first);
    // The follow-up is a real case: its own tokens work, the old ones do not.
    const old = await inlineSubmit(next.hitl.submit_url, hitl.submit_token, submitBody('approve'));
    expect(old.status).toBe(401);
    const ok = await inlineSubmit(
      next.hitl.submit_url,
      next.hitl.submit_token,
      submitBody('approve'),
    );
    expect(ok.status).toBe(200);
    // The in-process helper returns the same shape.
    const again = await createCase(server.base, 'approval', false);
    const inProcess = await server.demo.act(again.hitl.case_id, {
      step: 'respond',
      action: 'edit',
      data: {},
    });
    expect(inProcess.next?.hitl.previous_case_id).toBe(again.hitl.case_id);
  });

  it('refuses steps a terminal case cannot take (nothing leaves a terminal state)', async () => {
    const { hitl } = await createCase(server.base, 'confirmation', true);
    await act(server.base, hitl.case_id, { step: 'expire' });
    for (const step of ['open', 'progress', 'cancel', 'remind', 'expire']) {
      const res = await act(server.base, hitl.case_id, { step });
      expect(res.status).toBe(409);
      expect(res.json.error).toBe('invalid_transition');
    }
    expect(
      (await act(server.base, hitl.case_id, { step: 'respond', action: 'confirm' })).status,
    ).toBe(410);
    await expect(server.demo.act(hitl.case_id, 'open')).rejects.toMatchObject({ status: 409 });
    expect((await poll(hitl.poll_url)).json!.status).toBe('expired');
  });

  it('404 not_found for an unknown case', async () => {
    const res = await poll(`${server.base}/api/reviews/review_unknown/status`);
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({ error: 'not_found' });
  });

  it('inspects a stored case without token hashes', async () => {
    const { hitl } = await createCase(server.base, 'approval', true);
    const res = await fetch(`${server.base}/api/_test/reviews/${hitl.case_id}`);
    const text = await res.text();
    expect(JSON.parse(text)).toMatchObject({
      case_id: hitl.case_id,
      status: 'pending',
      inline: true,
    });
    expect(text).not.toMatch(/hash|token/i);
  });
});
