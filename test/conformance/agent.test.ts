/**
 * Agent-side requirements of the HITL Protocol (v0.6-v0.8 and the upstream agent checklist) that a
 * pure function proves. Each test is named after its id in docs/CONFORMANCE.md; the end-to-end ids
 * live in test/e2e/spec-double*.test.ts, test/watch/*.test.ts and others (see that table).
 */
import { describe, expect, it } from 'vitest';
import { renderCase } from '../../src/cases/render-case.ts';
import { readConfig } from '../../src/config/config.ts';
import { urlRefusal } from '../../src/net/url-policy.ts';
import { actionsOf, buildSubmitRequest, inlineActions } from '../../src/protocol/actions.ts';
import { isHitlResponse, parse202Body, parseHitl } from '../../src/protocol/hitl.ts';
import { canTransition } from '../../src/protocol/state.ts';
import { parsePollResponse } from '../../src/protocol/status.ts';
import { CASE_STATUSES, isTerminal } from '../../src/protocol/types.ts';
import { loadStrings } from '../../src/render/templates.ts';
import { sampleCase } from '../contract/store-contract.ts';
import { example202Bodies, schemaValidator } from '../helpers/spec.ts';

const hitl = {
  spec_version: '0.8',
  case_id: 'review_abc',
  review_url: 'https://svc.example/review/abc?token=reviewtokenreviewtokenreviewtoken1',
  poll_url: 'https://svc.example/reviews/abc/status',
  type: 'approval',
  prompt: 'Deploy?',
  created_at: '2026-02-20T10:00:00Z',
  expires_at: '2026-02-21T10:00:00Z',
};
const submit = {
  submit_url: 'https://svc.example/reviews/abc/respond',
  submit_token: 'sbt_0123456789abcdef0123456789abcdef',
};
const strings = loadStrings('en');

describe('detect and read a 202', () => {
  it('DETECT-1 a 202 with a hitl object is a review; a 202 without it is plain async', () => {
    expect(isHitlResponse(202, { status: 'human_input_required', hitl })).toBe(true);
    expect(isHitlResponse(202, { status: 'accepted', job: 1 })).toBe(false);
    expect(isHitlResponse(200, { hitl })).toBe(false);
  });

  it('DETECT-2 required fields are checked and each missing one is named', () => {
    for (const f of ['case_id', 'review_url', 'poll_url', 'type', 'prompt']) {
      const { [f]: _gone, ...rest } = hitl as Record<string, unknown>;
      try {
        parseHitl(rest);
        throw new Error(`accepted without ${f}`);
      } catch (err) {
        expect((err as { details: Array<{ path: string }> }).details[0]!.path).toBe(`hitl.${f}`);
      }
    }
  });

  it('DETECT-3 the card carries the prompt and the review link (through the relay)', () => {
    const c = sampleCase();
    const card = renderCase(c, { submit_token: null, review_url: hitl.review_url }, strings, {
      detailsUrl: 'https://relay.example/r/k/sig',
    });
    expect(card.prompt).toBe(c.doc.hitl.prompt);
    expect(card.link?.url).toBe('https://relay.example/r/k/sig');
  });

  it('DETECT-4 the review UI is never rendered: actions that need the page are Details only', () => {
    for (const t of ['selection', 'input', 'x-acme-compare'])
      expect(inlineActions({ ...hitl, ...submit, type: t }, true).actions).toEqual([]);
    expect(inlineActions({ ...hitl, ...submit }, true).actions).not.toContain('edit');
  });

  it('URL-1 service URLs must be HTTPS (plain HTTP only to loopback in the local default)', () => {
    const strict = { allowHttpLoopback: false, allowHosts: [] };
    const local = { allowHttpLoopback: true, allowHosts: [] };
    expect(urlRefusal('http://svc.example/x', strict)).toBe('must be HTTPS');
    expect(urlRefusal('http://127.0.0.1:9/x', strict)).toBe('must be HTTPS');
    expect(urlRefusal('http://127.0.0.1:9/x', local)).toBeNull();
    expect(urlRefusal('http://svc.example/x', local)).toMatch(/loopback only/);
    expect(urlRefusal('https://svc.example/x', strict)).toBeNull();
  });
});

describe('inline submit (7.5, 7.6, 7.7)', () => {
  it('INLINE-1 buttons only with submit_url and submit_token, only the inline_actions allowed', () => {
    expect(inlineActions(hitl, false)).toEqual({ actions: [], blocked: 'no_submit_url' });
    // A submit_url whose token is gone (a finished case, a token dropped at intake): no buttons.
    expect(inlineActions({ ...hitl, ...submit }, false)).toEqual({
      actions: [],
      blocked: 'no_submit_url',
    });
    expect(inlineActions({ ...hitl, ...submit }, true).actions).toEqual(['approve', 'reject']);
    expect(
      inlineActions({ ...hitl, ...submit, inline_actions: ['approve', 'edit'] }, true).actions,
    ).toEqual(['approve']);
  });

  it('INLINE-2 the submit request validates against submit-request.schema.json', {
    tags: ['corpus'],
  }, () => {
    const validate = schemaValidator('submit-request.schema.json');
    for (const platform of ['telegram', 'slack', 'discord', 'teams', 'web']) {
      const body = buildSubmitRequest('approve', platform, { id: '42', name: 'Ann' });
      expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
      expect(body.submitted_by.platform_user_id).toBe('42');
    }
  });

  it('INLINE-3 button payloads are compact and never carry the submit_token', () => {
    const c = sampleCase();
    c.doc.hitl = { ...c.doc.hitl, submit_url: submit.submit_url };
    const card = renderCase(
      c,
      { submit_token: submit.submit_token, review_url: hitl.review_url },
      strings,
    );
    expect(card.actions.length).toBeGreaterThan(0);
    for (const a of card.actions) {
      expect(a.payload).toMatch(/^hitl:[A-Za-z0-9_-]+:[a-z_]+$/);
      expect(Buffer.byteLength(a.payload)).toBeLessThanOrEqual(64);
    }
    expect(JSON.stringify(card)).not.toContain(submit.submit_token);
  });

  it('VERIFY-1 a verification_policy wanting proof for inline_submit means Details only', () => {
    for (const mode of ['required', 'step_up'])
      expect(
        inlineActions(
          { ...hitl, ...submit, verification_policy: { mode, required_for: ['inline_submit'] } },
          true,
        ),
      ).toEqual({ actions: [], blocked: 'verification_required' });
    expect(
      inlineActions(
        {
          ...hitl,
          ...submit,
          verification_policy: { mode: 'optional', required_for: ['inline_submit'] },
        },
        true,
      ).actions,
    ).toEqual(['approve', 'reject']);
  });

  it('VERIFY-2 the relay never makes up verification evidence', () => {
    expect(buildSubmitRequest('approve', 'telegram', { id: '1' })).not.toHaveProperty(
      'verification_evidence',
    );
  });

  it('ACCESS-1 an Agent Access case is link-only with a note: decided on the service page', () => {
    const agentAccess = {
      profile: 'hitl-agent-access/0.1',
      binding: 'delegated-api',
      operation_id: 'operation_123',
      operation_version: 1,
      snapshot_digest: '0'.repeat(64),
      execution_mode: 'explicit_commit',
    };
    const details = 'https://relay.example/r/k/sig';
    const c = sampleCase({ status: 'pending' });
    c.doc.hitl = {
      ...c.doc.hitl,
      spec_version: '0.9',
      type: 'confirmation',
      default_action: 'abort',
      context: { 'x-hitl-agent-access': agentAccess },
    };
    delete c.doc.hitl.submit_url;
    const card = renderCase(c, { submit_token: null, review_url: hitl.review_url }, strings, {
      detailsUrl: details,
    });
    expect(card.actions).toEqual([]);
    expect(card.link).toEqual({ label: 'Details', url: details });
    expect(card.status).toContain("decided on the service's own page (HITL Agent Access)");
    // A submit_url and token sent with it anyway change nothing: the commit is the service's.
    c.doc.hitl.submit_url = submit.submit_url;
    const stray = renderCase(
      c,
      { submit_token: submit.submit_token, review_url: hitl.review_url },
      strings,
    );
    expect(stray.actions).toEqual([]);
    // Without the profile the same case has its buttons.
    c.doc.hitl.context = {};
    const plain = renderCase(
      c,
      { submit_token: submit.submit_token, review_url: hitl.review_url },
      strings,
    );
    expect(plain.actions.map((a) => a.action)).toEqual(['confirm', 'cancel']);
    expect(plain.status).not.toContain('Agent Access');
  });

  it('CUSTOM-1 an x- type is read as input (link only)', () => {
    expect(actionsOf('x-acme-compare')).toEqual(actionsOf('input'));
    expect(parseHitl({ ...hitl, type: 'x-acme-compare' }).warnings).toEqual([]);
  });
});

describe('status (8)', () => {
  it('STATE-1 no status leaves a terminal state', () => {
    for (const from of CASE_STATUSES)
      for (const to of CASE_STATUSES)
        if (isTerminal(from)) expect(canTransition(from, to)).toBe(false);
  });

  it('STATE-2 result, responded_by and submission_context are read only from a completed case', () => {
    const open = parsePollResponse({
      status: 'opened',
      case_id: 'a',
      result: { action: 'approve' },
      responded_by: { name: 'x' },
      submission_context: { mode: 'browser_submit' },
    });
    expect(open).toEqual({ status: 'opened', case_id: 'a' });
    const done = parsePollResponse({
      status: 'completed',
      case_id: 'a',
      result: { action: 'approve', data: {} },
      submission_context: { mode: 'inline_submit', verification_result: { status: 'verified' } },
    });
    expect(done.verification_result).toEqual({ status: 'verified' });
  });

  it('PROGRESS-2 works with and without progress', () => {
    expect(parsePollResponse({ status: 'in_progress', case_id: 'a' }).progress).toBeUndefined();
    expect(
      parsePollResponse({
        status: 'in_progress',
        case_id: 'a',
        progress: { current_step: 2, total_steps: 3 },
      }).progress,
    ).toEqual({ current_step: 2, total_steps: 3 });
  });

  it('POLL-4 the default poll interval is 30 s to 5 min', () => {
    const c = readConfig({ DATA_DIR: '/tmp/hitl-conformance' });
    expect([c.pollMinMs, c.pollMaxMs]).toEqual([30_000, 300_000]);
  });

  it('EXPIRE-1 an expired card says so, with the default action the service applies', () => {
    const e = sampleCase({ status: 'expired' });
    e.doc.default_action = 'skip';
    const card = renderCase(e, { submit_token: null, review_url: hitl.review_url }, strings);
    expect(card.status).toMatch(/^Expired at .* default action: skip$/);
    expect(card.actions).toEqual([]);
  });

  it('CANCEL-1 a cancelled card says so, with the reason', () => {
    const c = sampleCase({ status: 'cancelled' });
    c.doc.reason = 'withdrawn';
    const card = renderCase(c, { submit_token: null, review_url: hitl.review_url }, strings);
    expect(card.status).toMatch(/^Cancelled at .*: withdrawn$/);
    expect(card.actions).toEqual([]);
  });

  it('INTAKE-7 every official 202 body parses without a warning', { tags: ['corpus'] }, () => {
    for (const e of example202Bodies()) expect(parse202Body(e.body).warnings).toEqual([]);
  });
});
