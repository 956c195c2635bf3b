/** The approval view: yes only for approve/confirm/select/submit; every other end says why not. */
import { describe, expect, it } from 'vitest';
import { approvalOf, type CaseView, outcomeOf } from '../../src/client/index.ts';
import { EXAMPLES } from '../../src/server/openapi-examples.ts';

const base = EXAMPLES.CaseView as unknown as CaseView;
const view = (over: Partial<CaseView>): CaseView => ({ ...structuredClone(base), ...over });
const done = (action: string, data: Record<string, unknown> = {}, over: Partial<CaseView> = {}) =>
  view({ status: 'completed', final: true, result: { action, data }, ...over });

describe('approvalOf', () => {
  it.each(['approve', 'confirm', 'select', 'submit'])('%s approves', (action) => {
    expect(approvalOf(done(action))).toEqual({ approved: true });
  });

  it.each([
    ['reject', 'rejected by Ann'],
    ['cancel', 'cancelled by Ann'],
    ['abort', 'aborted by Ann'],
    ['skip', 'skipped by Ann'],
    ['edit', 'changes requested by Ann'],
    ['retry', 'retry requested by Ann'],
    ['x-escalate', 'answered "x-escalate" by Ann'],
  ])('%s does not approve', (action, reason) => {
    expect(approvalOf(done(action))).toEqual({ approved: false, reason });
  });

  it("uses the person's own reason and hands the answer data over as modifications", () => {
    expect(approvalOf(done('reject', { reason: 'Not on a Friday' }))).toEqual({
      approved: false,
      reason: 'Not on a Friday',
      modifications: { reason: 'Not on a Friday' },
    });
    expect(approvalOf(done('select', { selected: ['job-2'] }))).toEqual({
      approved: true,
      modifications: { selected: ['job-2'] },
    });
    expect(approvalOf(done('edit', { feedback: 'Shorter title' }))).toMatchObject({
      approved: false,
      reason: 'Shorter title',
      modifications: { feedback: 'Shorter title' },
    });
  });

  it('POLICY-GATE-1: an approval with fewer votes than its policy needs is not approved', () => {
    const vote = { identity: 'ann@example.com', action: 'approve', at: '2026-01-01T00:00:00Z' };
    const policy = { name: 'four-eyes', required: 2, votes: [vote] };
    expect(approvalOf(done('approve', {}, { policy }))).toEqual({
      approved: false,
      reason: '"approve" with 1 of the 2 approvals the policy four-eyes needs',
    });
    const met = { ...policy, votes: [vote, { ...vote, identity: 'web:bob' }] };
    expect(approvalOf(done('approve', {}, { policy: met }))).toEqual({ approved: true });
    // A rejection needs no quorum (the veto): still "not approved", for its own reason.
    expect(approvalOf(done('reject', {}, { policy })).reason).toBe('rejected by Ann');
  });

  it('names who answered on the review page when nobody tapped', () => {
    const v = done('reject', {}, { submitted_by: null, responded_by: { name: 'Bo' } });
    expect(approvalOf(v).reason).toBe('rejected by Bo');
    expect(approvalOf(done('reject', {}, { submitted_by: null })).reason).toBe('rejected');
  });

  it('expiry, cancellation and an open case are not approvals', () => {
    expect(
      approvalOf(view({ status: 'expired', final: true, result: null, default_action: 'skip' })),
    ).toEqual({
      approved: false,
      reason: 'expired without a decision (the service applies its default action "skip")',
    });
    expect(
      approvalOf(view({ status: 'cancelled', final: true, result: null, reason: 'Withdrawn' })),
    ).toEqual({ approved: false, reason: 'cancelled: Withdrawn' });
    expect(approvalOf(view({ status: 'opened', final: false, result: null }))).toEqual({
      approved: false,
      reason: 'no decision yet (the case is opened)',
    });
  });

  it('outcomeOf carries the ids, the result and the whole view', () => {
    const v = done('approve');
    expect(outcomeOf(v)).toEqual({
      relay_case_id: v.id,
      case_id: v.case_id,
      status: 'completed',
      final: true,
      result: v.result,
      submitted_by: v.submitted_by,
      responded_by: null,
      confirmed: true,
      watch: v.watch,
      approval: { approved: true },
      policy: null,
      case: v,
    });
  });

  it("EXPIRE-2 an expiry with a default_action is a timeout policy, never a person's answer", () => {
    const v = view({ status: 'expired', final: true, result: null, default_action: 'approve' });
    const o = outcomeOf(v);
    expect(o.approval.approved).toBe(false);
    expect(o.policy).toEqual({
      action: 'approve',
      source: 'expiry',
      reason: expect.stringContaining("a timeout policy, not a person's decision"),
    });
  });
});
