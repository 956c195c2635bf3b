import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
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
  server = await startDemoServer({ now: clock.now });
});
afterAll(() => server.close());

const reviewToken = (hitl: Json) => new URL(hitl.review_url).searchParams.get('token')!;

describe('inline submit (spec 7.5 table)', () => {
  it('200 completes the case; the poll shows who and how', { tags: ['corpus'] }, async () => {
    const { hitl } = await createCase(server.base, 'confirmation', true);
    const res = await inlineSubmit(hitl.submit_url, hitl.submit_token, submitBody('confirm'));
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      status: 'completed',
      case_id: hitl.case_id,
      completed_at: new Date(clock.now()).toISOString(),
    });
    const polled = (await poll(hitl.poll_url)).json!;
    expect(polled.status).toBe('completed');
    expect(polled.result).toEqual({ action: 'confirm', data: {} });
    expect(polled.responded_by).toEqual({ name: 'Alex Tester' });
    expect(polled.submission_context).toEqual({
      mode: 'inline_submit',
      submitted_via: 'x-test',
      submitted_by: { platform: 'x-test', platform_user_id: 'u-1', display_name: 'Alex Tester' },
    });
    expect(schemaErrors('poll-response.schema.json', polled)).toEqual([]);
  });

  it('409 duplicate_submission for a second answer', async () => {
    const { hitl } = await createCase(server.base, 'approval', true);
    expect(
      (await inlineSubmit(hitl.submit_url, hitl.submit_token, submitBody('approve'))).status,
    ).toBe(200);
    const again = await inlineSubmit(hitl.submit_url, hitl.submit_token, submitBody('reject'));
    expect(again.status).toBe(409);
    expect(again.json.error).toBe('duplicate_submission');
    expect((await poll(hitl.poll_url)).json!.result.action).toBe('approve');
  });

  it('409 for a cancelled case', async () => {
    const { hitl } = await createCase(server.base, 'approval', true);
    await server.demo.act(hitl.case_id, { step: 'cancel', reason: 'not needed' });
    const res = await inlineSubmit(hitl.submit_url, hitl.submit_token, submitBody('approve'));
    expect(res.status).toBe(409);
    expect(res.json.error).toBe('duplicate_submission');
  });

  it('401 invalid_token: wrong token, no token, the review token, or a case without inline submit', async () => {
    const { hitl } = await createCase(server.base, 'escalation', true);
    const body = submitBody('retry');
    for (const token of ['wrong', undefined, reviewToken(hitl), `${hitl.submit_token}x`]) {
      const res = await inlineSubmit(hitl.submit_url, token, body);
      expect(res.status).toBe(401);
      expect(res.json.error).toBe('invalid_token');
    }
    const plain = (await createCase(server.base, 'escalation', false)).hitl;
    const url = `${server.base}/api/reviews/${plain.case_id}/respond`;
    expect((await inlineSubmit(url, reviewToken(plain), body)).status).toBe(401);
    expect((await poll(hitl.poll_url)).json!.status).toBe('pending');
  });

  it('403 action_not_inline for an action outside inline_actions or the type, with case_id and review_url', async () => {
    const { hitl } = await createCase(server.base, 'approval', true);
    for (const action of ['edit', 'select', 'launch']) {
      const res = await inlineSubmit(hitl.submit_url, hitl.submit_token, submitBody(action));
      expect(res.status).toBe(403);
      expect(res.json.error).toBe('action_not_inline');
      expect(res.json.case_id).toBe(hitl.case_id);
      expect(res.json.review_url).toBe(`${server.base}/review/${hitl.case_id}`);
      expect(res.json.message).toBeTruthy();
    }
    expect((await poll(hitl.poll_url)).json!.status).toBe('pending');
  });

  it('allows every action of the type when inline_actions is omitted (selection, input)', async () => {
    const { hitl } = await createCase(server.base, 'selection', true);
    expect(hitl.inline_actions).toBeUndefined();
    const body = submitBody('select', { data: { selected: ['job-2'] } });
    expect((await inlineSubmit(hitl.submit_url, hitl.submit_token, body)).status).toBe(200);
    expect((await poll(hitl.poll_url)).json!.result.data).toEqual({ selected: ['job-2'] });
  });

  it('403 verification_required / verification_failed, 200 with bound evidence', {
    tags: ['corpus'],
  }, async () => {
    for (const mode of ['required', 'step_up']) {
      const { hitl } = await createCase(server.base, 'confirmation', true, { verification: mode });
      const missing = await inlineSubmit(hitl.submit_url, hitl.submit_token, submitBody('confirm'));
      expect(missing.status).toBe(403);
      expect(missing.json).toMatchObject({ error: 'verification_required', case_id: hitl.case_id });
      const evidence = (action: string, challenge: string) => [
        {
          proof_type: 'proof_of_human',
          provider: 'world_id',
          format: 'provider_opaque',
          presentation: { proof: 'opaque' },
          binding: { case_id: hitl.case_id, action, challenge },
        },
      ];
      const challenge = hitl.verification_policy.binding.challenge;
      const wrong = await inlineSubmit(
        hitl.submit_url,
        hitl.submit_token,
        submitBody('confirm', { verification_evidence: evidence('cancel', challenge) }),
      );
      expect(wrong.status).toBe(403);
      expect(wrong.json.error).toBe('verification_failed');
      const good = submitBody('confirm', { verification_evidence: evidence('confirm', challenge) });
      expect(schemaErrors('submit-request.schema.json', good)).toEqual([]);
      expect((await inlineSubmit(hitl.submit_url, hitl.submit_token, good)).status).toBe(200);
      const polled = (await poll(hitl.poll_url)).json!;
      expect(polled.submission_context.verification_result.satisfied).toBe(true);
      expect(schemaErrors('poll-response.schema.json', polled)).toEqual([]);
    }
  });

  it('optional verification accepts a submit without evidence', async () => {
    const { hitl } = await createCase(server.base, 'confirmation', true, {
      verification: 'optional',
    });
    expect(
      (await inlineSubmit(hitl.submit_url, hitl.submit_token, submitBody('confirm'))).status,
    ).toBe(200);
  });

  it('410 case_expired once expires_at has passed', async () => {
    const { hitl } = await createCase(server.base, 'confirmation', true, {
      expires_in_seconds: 60,
    });
    clock.advance(61_000);
    const res = await inlineSubmit(hitl.submit_url, hitl.submit_token, submitBody('confirm'));
    expect(res.status).toBe(410);
    expect(res.json.error).toBe('case_expired');
  });

  it('429 rate_limited with Retry-After after 10 requests in 10 s, and recovers', async () => {
    const { hitl } = await createCase(server.base, 'confirmation', true);
    for (let i = 0; i < 10; i++) {
      expect((await inlineSubmit(hitl.submit_url, 'wrong', submitBody('confirm'))).status).toBe(
        401,
      );
    }
    const limited = await inlineSubmit(hitl.submit_url, hitl.submit_token, submitBody('confirm'));
    expect(limited.status).toBe(429);
    expect(limited.json.error).toBe('rate_limited');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    clock.advance(10_001);
    expect(
      (await inlineSubmit(hitl.submit_url, hitl.submit_token, submitBody('confirm'))).status,
    ).toBe(200);
  });

  it('400 for bodies that do not match submit-request.schema.json (zod mirrors the schema)', {
    tags: ['corpus'],
  }, async () => {
    const valid = submitBody('confirm');
    const { submitted_via: _via, ...noVia } = valid;
    const cases: unknown[] = [
      '{not json',
      [],
      { ...valid, action: 3 },
      noVia,
      { ...valid, submitted_via: 'carrier_pigeon' },
      { ...valid, submitted_by: { platform: 'telegram' } },
      { ...valid, submitted_by: { ...valid.submitted_by, platform: 'myspace' } },
      { ...valid, submitted_by: { ...valid.submitted_by, extra: 1 } },
      { ...valid, data: [] },
      { ...valid, extra: true },
      { ...valid, verification_evidence: [{ proof_type: 'proof_of_human' }] },
    ];
    for (const body of cases) {
      const { hitl } = await createCase(server.base, 'confirmation', true);
      if (typeof body !== 'string')
        expect(schemaErrors('submit-request.schema.json', body)).not.toEqual([]);
      const res = await inlineSubmit(hitl.submit_url, hitl.submit_token, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.error).toBe('invalid_request');
    }
    const telegram = {
      ...valid,
      submitted_via: 'telegram_inline_button',
      submitted_by: { platform: 'telegram', platform_user_id: '42' },
    };
    expect(schemaErrors('submit-request.schema.json', telegram)).toEqual([]);
    const { hitl } = await createCase(server.base, 'confirmation', true);
    expect((await inlineSubmit(hitl.submit_url, hitl.submit_token, telegram)).status).toBe(200);
  });

  it('records every respond request for submissions(), never the token', async () => {
    const { hitl } = await createCase(server.base, 'approval', true);
    await inlineSubmit(hitl.submit_url, 'nope', submitBody('approve'));
    await inlineSubmit(hitl.submit_url, hitl.submit_token, submitBody('approve'));
    const mine = (await server.demo.submissions()).filter((s) => s.case_id === hitl.case_id);
    expect(mine.map((s) => [s.auth, s.bearer_valid, s.status])).toEqual([
      ['bearer', false, 401],
      ['bearer', true, 200],
    ]);
    expect(mine[1]!.body).toEqual(submitBody('approve'));
    expect(mine[0]!.method).toBe('POST');
    expect(Date.parse(mine[0]!.at)).toBe(clock.now());
    const res = await fetch(`${server.base}/api/_test/submissions`);
    const text = await res.text();
    expect(text).toContain(hitl.case_id);
    expect(text).not.toContain(hitl.submit_token);
    expect(text).not.toContain(reviewToken(hitl));
  });
});
