/** Cards for the Slack tests. */
import type { Card } from '../../../src/render/card.ts';

/** A pending approval card; override any field. */
export function approvalCard(overrides: Partial<Card> = {}): Card {
  return {
    caseId: 'case_0001',
    key: 'k7Qx2',
    title: 'Approval needed',
    prompt: 'Deploy v2 to production?',
    lines: ['Service: deploy-bot', 'Expires: 2026-12-01 10:00 UTC'],
    hint: 'Reject cannot be undone.',
    actions: [
      { action: 'approve', label: 'Approve', style: 'primary', payload: 'hitl:k7Qx2:approve' },
      {
        action: 'reject',
        label: 'Reject',
        style: 'danger',
        payload: 'hitl:k7Qx2:reject',
        confirm: { title: 'Reject?', text: 'This cannot be undone.', yes: 'Reject', no: 'Back' },
      },
      { action: 'edit', label: 'Edit', style: 'secondary', payload: 'hitl:k7Qx2:edit' },
    ],
    link: { label: 'Details', url: 'https://service.example/review/42' },
    status: 'Waiting for a decision',
    final: false,
    ...overrides,
  };
}
