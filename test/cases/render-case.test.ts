import { describe, expect, it } from 'vitest';
import { renderCase } from '../../src/cases/render-case.ts';
import { defaultContext } from '../../src/demo/samples.ts';
import { loadStrings } from '../../src/render/templates.ts';
import type { StoredCase } from '../../src/store/types.ts';
import { sampleCase } from '../contract/store-contract.ts';

const s = loadStrings('en');
const secrets = {
  submit_token: 'agt_x'.padEnd(40, 'x'),
  review_url: 'https://svc.example/review/1?token=abc',
};

function caseWith(
  over: Partial<StoredCase['doc']['hitl']> = {},
  doc: Partial<StoredCase['doc']> = {},
  status: StoredCase['status'] = 'pending',
) {
  const c = sampleCase({ status });
  c.doc = {
    ...c.doc,
    ...doc,
    hitl: { ...c.doc.hitl, submit_url: 'https://svc.example/s', ...over },
  };
  return c;
}

describe('renderCase', () => {
  it('renders the inline actions with payloads, styles and a Details link', () => {
    const card = renderCase(caseWith(), secrets, s, {
      detailsUrl: 'https://relay.example/r/k/sig',
    });
    expect(card.actions.map((a) => [a.action, a.style, a.payload])).toEqual([
      ['approve', 'primary', `hitl:${card.key}:approve`],
      ['reject', 'danger', `hitl:${card.key}:reject`],
    ]);
    expect(card.link).toEqual({ label: 'Details', url: 'https://relay.example/r/k/sig' });
    expect(JSON.stringify(card)).not.toContain(secrets.submit_token);
    expect(card.final).toBe(false);
  });

  it('asks for confirmation on irreversible actions and shows the warning as the hint', () => {
    const card = renderCase(
      caseWith({
        type: 'confirmation',
        context: { irreversible: true, warning: 'Sends 3 emails.' },
      }),
      secrets,
      s,
    );
    expect(card.actions.find((a) => a.action === 'confirm')?.confirm?.text).toMatch(
      /cannot be undone/,
    );
    expect(card.actions.find((a) => a.action === 'cancel')?.confirm).toBeUndefined();
    expect(card.hint).toBe('Sends 3 emails.');
  });

  it('shows scalar context and item labels, a form by its field count, never form fields or secret-looking keys', () => {
    const card = renderCase(
      caseWith({
        type: 'input',
        context: {
          query: 'Berlin',
          options: [
            { id: 'a', label: 'Job A' },
            { id: 'b', label: 'Job B' },
          ],
          api_token: 'zzz',
          form: { fields: [{ key: 'salary', label: 'Salary', sensitive: true, default: 123456 }] },
        },
      }),
      secrets,
      s,
    );
    expect(card.lines).toEqual(['Form: 1 field', 'Query: Berlin', 'Options: Job A; Job B']);
    expect(JSON.stringify(card)).not.toMatch(/zzz|Salary|123456/);
  });

  it('RENDER-1 summarises object context (an escalation error), bounded, without secrets', () => {
    const card = renderCase(
      caseWith({
        type: 'escalation',
        context: {
          error: {
            type: 'readiness_probe_timeout',
            message: `8 of 12 pods failed <b>readiness</b> ${'x'.repeat(400)}`,
            auth_token: 'zzz',
            nested: { deep: 'hidden' },
          },
          current_state: { old_pods: 8, healthy: true },
          empty: {},
        },
      }),
      secrets,
      s,
    );
    // An object with a message (or title, name, ...) shows that; one without, its scalar fields.
    expect(card.lines[0]).toMatch(/^Error: 8 of 12 pods failed <b>readiness<\/b> x+…$/);
    expect(card.lines[0]!.length).toBeLessThanOrEqual(200);
    expect(card.lines[1]).toBe('Current state: Old pods 8; Healthy yes');
    expect(card.lines).toHaveLength(2);
    expect(JSON.stringify(card)).not.toMatch(/zzz|hidden/);
  });

  it('RENDER-2 says on the card when the relay cannot see the case, and marks a local expiry unconfirmed', () => {
    const blind = renderCase(
      caseWith(
        {},
        {
          watch: {
            state: 'refused',
            last_error: 'the service answered 401',
            since: '2026-01-01T00:00:00Z',
          },
        },
      ),
      secrets,
      s,
    );
    expect(blind.status).toContain(
      "hitl-relay cannot see this case's status: the service answered 401",
    );
    const local = renderCase(
      caseWith({}, { unconfirmed: 'not confirmed (refused)' }, 'expired'),
      secrets,
      s,
    );
    expect(local.status).toMatch(/^Expired at .* not confirmed/);
    expect(local.actions).toEqual([]);
  });

  it('shows progress while in progress', () => {
    const card = renderCase(
      caseWith(
        { type: 'input' },
        { progress: { current_step: 2, total_steps: 3, completed_fields: 4, total_fields: 8 } },
        'in_progress',
      ),
      secrets,
      s,
    );
    expect(card.status).toMatch(/^In progress: step 2 of 3, 4 of 8 fields/);
  });

  it('ends without actions and says what happened', () => {
    const done = renderCase(
      caseWith(
        {},
        {
          result: { action: 'approve' },
          submitted_by: { platform: 'slack', platform_user_id: 'U1', display_name: 'Ann' },
          status_at: '2026-02-20T10:15:00Z',
        },
        'completed',
      ),
      secrets,
      s,
    );
    expect(done).toMatchObject({
      final: true,
      actions: [],
      hint: null,
      status: 'Approved by Ann at 2026-02-20 10:15 UTC',
    });
    const expired = renderCase(
      caseWith({ default_action: 'skip' }, { status_at: '2026-02-21T10:00:00Z' }, 'expired'),
      secrets,
      s,
    );
    expect(expired.status).toBe('Expired at 2026-02-21 10:00 UTC · default action: skip');
    const cancelled = renderCase(
      caseWith({}, { reason: 'Not needed', status_at: '2026-02-21T10:00:00Z' }, 'cancelled'),
      secrets,
      s,
    );
    expect(cancelled.status).toBe('Cancelled at 2026-02-21 10:00 UTC: Not needed');
    expect(renderCase(caseWith({}, { inline_unavailable: true }), secrets, s).actions).toEqual([]);
  });

  it('marks an earlier round as revised and drops its buttons', () => {
    const card = renderCase(
      caseWith({}, { next_id: 'hc_next', result: { action: 'edit' } }, 'completed'),
      secrets,
      s,
      { round: 1 },
    );
    expect(card.status).toMatch(/Revised: see round 2/);
    expect(renderCase(caseWith(), secrets, s, { round: 2 }).title).toBe(
      'Approval needed · Round 2',
    );
  });

  it('speaks human: labels, templates for known keys, objects by their title, round 1 left out', () => {
    const lines = (type: string) =>
      renderCase(caseWith({ type, context: defaultContext(type) }), secrets, s).lines;
    expect(lines('selection')).toEqual([
      'Query: Senior Dev Berlin',
      'Several may be selected',
      '4 options',
      'Options: Senior Backend Engineer, Acme Robotics; Staff Engineer, Nordlicht GmbH; Senior TypeScript Developer, Spree Labs; Platform Engineer, Havel Data',
    ]);
    expect(lines('approval')).toEqual(['Artifact: api-gateway v2.14.0 to production']);
    expect(lines('escalation')[0]).toBe(
      'Error: api-gateway pods failed readiness: 3 of 6 returned HTTP 503',
    );
    const more = renderCase(
      caseWith({ context: { commit_sha: 'abc123', dry_run: false, round: 2 } }),
      secrets,
      s,
    );
    expect(more.lines).toEqual(['Commit SHA: abc123', 'Dry run: no', 'Round 2']);
  });

  it('marks only the actions that cannot be undone (an escalation: Abort, not Retry)', () => {
    const card = renderCase(caseWith({ type: 'escalation', context: {} }), secrets, s);
    expect(card.actions.filter((a) => a.confirm).map((a) => a.action)).toEqual(['abort']);
    expect(card.hint).toBe('Abort cannot be undone.');
  });

  it('says on the final card what was selected or entered, sensitive fields hidden', () => {
    const by = { platform: 'web', platform_user_id: 'ann', display_name: 'Ann' };
    const selection = renderCase(
      caseWith(
        { type: 'selection', context: defaultContext('selection') },
        { result: { action: 'select', data: { selected: ['job-1', 'job-3'] } }, submitted_by: by },
        'completed',
      ),
      secrets,
      s,
    );
    expect(selection.status.split('\n')[1]).toBe(
      'Selected: Senior Backend Engineer, Acme Robotics; Senior TypeScript Developer, Spree Labs',
    );
    const data = {
      full_name: 'Ann Example',
      salary_expectation: 123456,
      work_authorization: 'blue_card',
      undeclared_field: 'not shown',
      long: 'x'.repeat(500),
    };
    const input = renderCase(
      caseWith(
        { type: 'input', context: defaultContext('input') },
        { result: { action: 'submit', data }, submitted_by: by },
        'completed',
      ),
      secrets,
      s,
    );
    const entered = input.status.split('\n')[1];
    expect(entered).toBe(
      'Entered: Full name: Ann Example; Work authorization in Germany: EU Blue Card (+1 sensitive, not shown)',
    );
    expect(JSON.stringify(input)).not.toMatch(/123456|Salary|undeclared/);
    // Still open: nothing about an answer.
    expect(renderCase(caseWith({ type: 'input' }), secrets, s).status).not.toContain('Entered');
  });
});
