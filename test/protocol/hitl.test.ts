import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/errors.ts';
import { buildSubmitRequest, inlineActions, isIrreversible } from '../../src/protocol/actions.ts';
import { parse202Body, parseHitl } from '../../src/protocol/hitl.ts';
import { canTransition } from '../../src/protocol/state.ts';
import { parseCallback, parsePollResponse, parseReviewEvent } from '../../src/protocol/status.ts';
import { example202Bodies, schemaValidator } from '../helpers/spec.ts';

const base = {
  spec_version: '0.8',
  case_id: 'review_abc',
  review_url: 'https://svc.example/review/abc?token=reviewtokenreviewtokenreviewtoken1',
  poll_url: 'https://api.svc.example/reviews/abc/status',
  type: 'approval',
  prompt: 'Deploy?',
  created_at: '2026-02-20T10:00:00Z',
  expires_at: '2026-02-21T10:00:00Z',
};
const token = 'agt_submitsubmitsubmitsubmitsubmit1234';

function issuesOf(fn: () => unknown) {
  try {
    fn();
  } catch (err) {
    if (err instanceof ValidationError) return err.details;
    throw err;
  }
  throw new Error('expected a ValidationError');
}

describe('202 bodies', () => {
  // Exact: a new or lost example must be looked at, not silently counted in.
  it('INTAKE-1 finds exactly the 15 official 202 bodies', { tags: ['corpus'] }, () =>
    expect(example202Bodies().length).toBe(15),
  );
  it('accepts every official 202 body without a warning', { tags: ['corpus'] }, () => {
    for (const { file, step, body } of example202Bodies()) {
      const parsed = parse202Body(body);
      expect(parsed.hitl.case_id, `${file} step ${step}`).toBe(body.hitl.case_id);
      expect(parsed.warnings, `${file} step ${step}`).toEqual([]);
    }
  });

  it('names the failing field paths', () => {
    const issues = issuesOf(() =>
      parse202Body(
        {
          status: 'human_input_required',
          hitl: { ...base, poll_url: 'nope', case_id: 'a b', type: '' },
        },
        'response',
      ),
    );
    expect(issues.map((i) => i.path).sort()).toEqual([
      'response.hitl.case_id',
      'response.hitl.poll_url',
      'response.hitl.type',
    ]);
  });

  it('refuses a 202 without hitl, a wrong status, and a submit_url without its token', () => {
    expect(issuesOf(() => parse202Body({ status: 'human_input_required' }))[0]!.path).toBe('hitl');
    expect(issuesOf(() => parse202Body({ status: 'done', hitl: base }))[0]!.path).toBe('status');
    expect(issuesOf(() => parseHitl({ ...base, submit_url: 'https://x.example/s' }))[0]!.path).toBe(
      'hitl.submit_token',
    );
    expect(
      issuesOf(() => parseHitl({ ...base, expires_at: '2026-02-19T00:00:00Z' }))[0]!.path,
    ).toBe('hitl.expires_at');
  });

  it('INTAKE-2 reads 0.5 to 0.9 (patch levels too) quietly; any other version is not interpreted', () => {
    for (const v of ['0.5', '0.6', '0.7', '0.8', '0.9', '0.7.0', '0.9.1'])
      expect(parseHitl({ ...base, spec_version: v }).warnings).toEqual([]);
    for (const v of ['0.10', '1.0', '1.0.0', '0.4', 'draft-7'])
      expect(parseHitl({ ...base, spec_version: v }).warnings[0]).toMatch(
        /is not a HITL Protocol version hitl-relay knows \(0\.5-0\.9\): not interpreted/,
      );
  });

  it('INTAKE-3 an unknown type or default_action is read with a warning, link-only', () => {
    const p = parseHitl({
      ...base,
      type: 'vote',
      default_action: 'escalate',
      submit_url: 'https://svc.example/s',
      submit_token: token,
    });
    expect(p.warnings).toEqual([
      'unknown type "vote": shown as a link-only card',
      'unknown default_action "escalate": shown as it is',
    ]);
    expect(inlineActions(p.hitl, true).actions).toEqual([]);
  });

  it('INTAKE-4 an over-long prompt is cut with a warning; a short submit_token means link-only', () => {
    const long = parseHitl({ ...base, prompt: 'x'.repeat(900) });
    expect(long.hitl.prompt).toHaveLength(500);
    expect(long.warnings[0]).toMatch(/prompt over 500/);
    const short = parseHitl({ ...base, submit_url: 'https://svc.example/s', submit_token: 'abc' });
    expect(short.hitl.submit_token).toBeUndefined();
    expect(short.hitl.submit_url).toBeUndefined();
    expect(short.warnings[0]).toMatch(/submit_token shorter than 32/);
    // Still bounded: a prompt of megabytes is refused.
    expect(issuesOf(() => parseHitl({ ...base, prompt: 'x'.repeat(20_001) }))[0]!.path).toBe(
      'hitl.prompt',
    );
  });
});

describe('inline actions', () => {
  it('needs submit_url and submit_token', () => {
    expect(inlineActions({ ...base }, false)).toEqual({ actions: [], blocked: 'no_submit_url' });
  });
  it('gives the type actions that need no browser, limited by inline_actions', () => {
    const s = { submit_url: 'https://x.example/s' };
    expect(inlineActions({ ...base, ...s }, true).actions).toEqual(['approve', 'reject']);
    expect(
      inlineActions({ ...base, ...s, inline_actions: ['reject', 'edit'] }, true).actions,
    ).toEqual(['reject']);
    expect(inlineActions({ ...base, ...s, type: 'escalation' }, true).actions).toEqual([
      'retry',
      'skip',
      'abort',
    ]);
    expect(inlineActions({ ...base, ...s, type: 'selection' }, true).actions).toEqual([]);
    expect(inlineActions({ ...base, ...s, type: 'input' }, true).actions).toEqual([]);
    expect(inlineActions({ ...base, ...s, type: 'x-vote' }, true).actions).toEqual([]);
  });
  it('none when a verification policy wants proof for inline_submit', () => {
    const s = { submit_url: 'https://x.example/s', type: 'confirmation' };
    for (const mode of ['required', 'step_up'])
      expect(
        inlineActions(
          { ...base, ...s, verification_policy: { mode, required_for: ['inline_submit'] } },
          true,
        ).blocked,
      ).toBe('verification_required');
    expect(
      inlineActions(
        {
          ...base,
          ...s,
          verification_policy: { mode: 'required', required_for: ['browser_submit'] },
        },
        true,
      ).actions,
    ).toEqual(['confirm', 'cancel']);
  });
  it('knows irreversible actions', () => {
    expect(isIrreversible({ type: 'confirmation' }, 'confirm')).toBe(true);
    expect(isIrreversible({ type: 'confirmation' }, 'cancel')).toBe(false);
    expect(isIrreversible({ type: 'approval', context: { irreversible: true } }, 'approve')).toBe(
      true,
    );
    expect(isIrreversible({ type: 'approval' }, 'approve')).toBe(false);
  });
});

describe('submit request', { tags: ['corpus'] }, () => {
  const validate = schemaValidator('submit-request.schema.json');
  it.each(['telegram', 'slack', 'discord', 'teams', 'web'])(
    'validates against the schema for %s',
    (platform) => {
      const body = buildSubmitRequest('approve', platform, { id: '42', name: 'Ann' });
      expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
    },
  );
});

describe('status updates', () => {
  it('reads all six statuses', () => {
    expect(parsePollResponse({ status: 'pending', case_id: 'a' }).status).toBe('pending');
    expect(
      parsePollResponse({
        status: 'in_progress',
        case_id: 'a',
        progress: { current_step: 2, total_steps: 3 },
      }).progress,
    ).toEqual({ current_step: 2, total_steps: 3 });
    const done = parsePollResponse({
      status: 'completed',
      case_id: 'a',
      completed_at: '2026-02-20T10:15:00Z',
      result: { action: 'approve' },
      responded_by: { name: 'T' },
      next_case_id: 'b',
    });
    expect(done).toMatchObject({
      status: 'completed',
      at: '2026-02-20T10:15:00Z',
      next_case_id: 'b',
    });
    expect(
      parsePollResponse({
        status: 'expired',
        case_id: 'a',
        expired_at: '2026-02-20T10:15:00Z',
        default_action: 'skip',
      }).default_action,
    ).toBe('skip');
    expect(
      parsePollResponse({
        status: 'cancelled',
        case_id: 'a',
        cancelled_at: '2026-02-20T10:15:00Z',
        reason: 'no',
      }).reason,
    ).toBe('no');
    expect(issuesOf(() => parsePollResponse({ status: 'completed', case_id: 'a' }))[0]!.path).toBe(
      'result',
    );
    expect(issuesOf(() => parsePollResponse({ status: 'done', case_id: 'a' }))[0]!.path).toBe(
      'status',
    );
  });
  it('reads SSE events and callbacks', () => {
    expect(
      parseReviewEvent('review.opened', '{"case_id":"a","opened_at":"2026-02-20T10:03:00Z"}'),
    ).toMatchObject({ kind: 'status', update: { status: 'opened' } });
    expect(parseReviewEvent('review.reminder', '{"case_id":"a","message":"soon"}')).toMatchObject({
      kind: 'reminder',
      message: 'soon',
    });
    expect(parseReviewEvent('review.other', '{}')).toEqual({
      kind: 'unknown',
      name: 'review.other',
    });
    expect(() => parseReviewEvent('review.opened', 'not json')).toThrow(/not JSON/);
    expect(
      parseCallback({ event: 'review.completed', case_id: 'a', result: { action: 'approve' } }),
    ).toMatchObject({ update: { status: 'completed' } });
  });
  it('never leaves a terminal state', () => {
    expect(canTransition('completed', 'pending')).toBe(false);
    expect(canTransition('expired', 'completed')).toBe(false);
    expect(canTransition('opened', 'pending')).toBe(false);
    expect(canTransition('pending', 'completed')).toBe(true);
    expect(canTransition('in_progress', 'in_progress')).toBe(true);
  });
  void token;
});
