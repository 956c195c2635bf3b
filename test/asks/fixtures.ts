/**
 * One content per kind, as the Python SDK serialises its dataclasses (`asdict` plus type/sub_type:
 * None as null, enums as their names), with a valid answer, the typed result.data it gives, and
 * invalid answers. Shared by the unit tests and the end-to-end tests.
 */
import type { AskKind } from '../../src/asks/content.ts';

export interface KindFixture {
  content: Record<string, unknown>;
  /** A valid answer: protocol action and data. */
  answer: { action: string; data: Record<string, unknown> };
  /** The typed result.data it must give. */
  result: Record<string, unknown>;
  /** Answers that must be refused, each with the path an issue names. */
  invalid: Array<{ why: string; action: string; data: Record<string, unknown>; path: string }>;
}

const opt = (key: string, label: string, extra: Record<string, unknown> = {}) => ({
  key,
  label,
  description: null,
  irreversible: false,
  impact_hint: null,
  ...extra,
});

export const KINDS: Record<AskKind, KindFixture> = {
  'approval.binary': {
    content: {
      type: 'approval',
      sub_type: 'binary',
      prompt: 'Approve sending this email to the customer?',
      choices: [
        { key: 'approve', label: 'Send it', irreversible: false, impact_hint: null },
        { key: 'reject', label: 'Cancel', irreversible: false, impact_hint: 'No email is sent' },
      ],
    },
    answer: { action: 'approve', data: { decision: 'approve' } },
    result: { decision: 'approve' },
    invalid: [
      {
        why: 'unknown decision',
        action: 'approve',
        data: { decision: 'maybe' },
        path: 'data.decision',
      },
      { why: 'action disagrees', action: 'approve', data: { decision: 'reject' }, path: 'action' },
      { why: 'unknown action', action: 'edit', data: {}, path: 'action' },
    ],
  },
  'approval.modify': {
    content: {
      type: 'APPROVAL',
      sub_type: 'MODIFY',
      prompt: 'Review and approve the refund.',
      choices: [
        { key: 'approve', label: 'Approve', irreversible: false, impact_hint: null },
        { key: 'reject', label: 'Reject', irreversible: false, impact_hint: null },
      ],
      modifiable: [
        { key: 'amount', label: 'Refund Amount (USD)', value: 75, type: 'NUMBER' },
        { key: 'note', label: 'Internal Note', value: '', type: 'STRING' },
        {
          key: 'reason',
          label: 'Reason',
          value: ['duplicate', 'fraud', 'other'],
          type: 'DROPDOWN',
        },
      ],
    },
    answer: { action: 'approve', data: { decision: 'approve', values: { amount: 45, note: '' } } },
    result: { decision: 'approve', values: { amount: 45 } },
    invalid: [
      {
        why: 'wrong type',
        action: 'approve',
        data: { decision: 'approve', values: { amount: 'x' } },
        path: 'data.values.amount',
      },
      {
        why: 'dropdown value',
        action: 'approve',
        data: { decision: 'approve', values: { reason: 'bored' } },
        path: 'data.values.reason',
      },
      {
        why: 'unknown field',
        action: 'approve',
        data: { decision: 'approve', values: { tip: 1 } },
        path: 'data.values.tip',
      },
    ],
  },
  'decision.single': {
    content: {
      type: 'decision',
      sub_type: 'single',
      prompt: 'Which deployment environment should we target?',
      options: [
        opt('staging', 'Staging', { description: 'Safe sandbox' }),
        opt('prod', 'Production', { irreversible: true, impact_hint: 'Affects live users' }),
      ],
    },
    answer: { action: 'select', data: { selected: 'staging' } },
    result: { selected: 'staging' },
    invalid: [
      { why: 'missing', action: 'select', data: {}, path: 'data.selected' },
      { why: 'not an option', action: 'select', data: { selected: 'qa' }, path: 'data.selected' },
      { why: 'a list', action: 'select', data: { selected: ['staging'] }, path: 'data.selected' },
    ],
  },
  'decision.multi': {
    content: {
      type: 'decision',
      sub_type: 'multi',
      prompt: 'Select the teams to notify about this incident.',
      options: [
        opt('infra', 'Infrastructure'),
        opt('backend', 'Backend'),
        opt('frontend', 'Frontend'),
      ],
      min_select: 1,
      max_select: 2,
    },
    answer: { action: 'select', data: { selected: ['backend', 'infra'] } },
    result: { selected: ['infra', 'backend'] },
    invalid: [
      { why: 'too few', action: 'select', data: { selected: [] }, path: 'data.selected' },
      {
        why: 'too many',
        action: 'select',
        data: { selected: ['infra', 'backend', 'frontend'] },
        path: 'data.selected',
      },
      {
        why: 'twice',
        action: 'select',
        data: { selected: ['infra', 'infra'] },
        path: 'data.selected',
      },
    ],
  },
  'decision.rank': {
    content: {
      type: 'decision',
      sub_type: 'rank',
      prompt: 'Rank these outreach channels by priority.',
      options: [opt('email', 'Email'), opt('sms', 'SMS'), opt('push', 'Push Notification')],
    },
    answer: { action: 'submit', data: { ranking: ['push', 'email', 'sms'] } },
    result: { ranking: ['push', 'email', 'sms'] },
    invalid: [
      {
        why: 'incomplete',
        action: 'submit',
        data: { ranking: ['push', 'email'] },
        path: 'data.ranking',
      },
      {
        why: 'unknown key',
        action: 'submit',
        data: { ranking: ['push', 'email', 'fax'] },
        path: 'data.ranking',
      },
      { why: 'missing', action: 'submit', data: {}, path: 'data.ranking' },
    ],
  },
  'context.freetext': {
    content: {
      type: 'context',
      sub_type: 'freetext',
      prompt: "What is the customer's preferred resolution?",
      input: { label: 'Customer preference', placeholder: 'Describe in a few sentences…' },
    },
    answer: { action: 'submit', data: { value: 'A full refund.' } },
    result: { value: 'A full refund.' },
    invalid: [
      { why: 'missing', action: 'submit', data: {}, path: 'data.value' },
      { why: 'blank', action: 'submit', data: { value: '   ' }, path: 'data.value' },
      { why: 'wrong type', action: 'submit', data: { value: 42 }, path: 'data.value' },
    ],
  },
  'context.form': {
    content: {
      type: 'context',
      sub_type: 'form',
      prompt: 'Provide the ticket details before we escalate.',
      fields: [
        {
          key: 'ticket_id',
          label: 'Ticket ID',
          type: 'STRING',
          required: true,
          placeholder: 'e.g. TKT-001',
        },
        {
          key: 'priority',
          label: 'Priority (1-5)',
          type: 'NUMBER',
          required: false,
          placeholder: null,
        },
        {
          key: 'is_urgent',
          label: 'Mark as urgent?',
          type: 'BOOLEAN',
          required: false,
          placeholder: null,
        },
        { key: 'due', label: 'Due date', type: 'DATE', required: false, placeholder: null },
        {
          key: 'team',
          label: 'Team',
          type: 'DROPDOWN',
          required: true,
          placeholder: null,
          options: ['infra', 'backend'],
        },
      ],
    },
    answer: {
      action: 'submit',
      data: {
        values: {
          ticket_id: 'TKT-123',
          priority: 2,
          is_urgent: true,
          due: '2026-12-01',
          team: 'infra',
        },
      },
    },
    result: {
      values: {
        ticket_id: 'TKT-123',
        priority: 2,
        is_urgent: true,
        due: '2026-12-01',
        team: 'infra',
      },
    },
    invalid: [
      {
        why: 'missing required',
        action: 'submit',
        data: { values: { team: 'infra' } },
        path: 'data.values.ticket_id',
      },
      {
        why: 'wrong type',
        action: 'submit',
        data: { values: { ticket_id: 'T', team: 'infra', priority: 'high' } },
        path: 'data.values.priority',
      },
      {
        why: 'bad date',
        action: 'submit',
        data: { values: { ticket_id: 'T', team: 'infra', due: '2026-02-30' } },
        path: 'data.values.due',
      },
      {
        why: 'dropdown value',
        action: 'submit',
        data: { values: { ticket_id: 'T', team: 'sales' } },
        path: 'data.values.team',
      },
    ],
  },
  'context.confirm': {
    content: {
      type: 'context',
      sub_type: 'confirm',
      prompt: 'Please confirm you have read the data-retention policy.',
      statement: 'All customer PII will be deleted after 90 days.',
    },
    answer: { action: 'confirm', data: { confirmed: true } },
    result: { confirmed: true },
    invalid: [
      { why: 'disagrees', action: 'confirm', data: { confirmed: false }, path: 'data.confirmed' },
      { why: 'unknown key', action: 'confirm', data: { ok: true }, path: 'data.ok' },
    ],
  },
  'edit.content': {
    content: {
      type: 'edit',
      sub_type: 'content',
      prompt: 'Review the generated email and edit if needed before sending.',
      draft: 'Hi Jane,\n\nWe are following up on your request.\n\nBest, Support',
    },
    answer: { action: 'submit', data: { content: 'Hi Jane,\n\nThank you!\n\nBest, Support' } },
    result: { content: 'Hi Jane,\n\nThank you!\n\nBest, Support' },
    invalid: [
      { why: 'missing', action: 'submit', data: {}, path: 'data.content' },
      { why: 'blank', action: 'submit', data: { content: ' ' }, path: 'data.content' },
    ],
  },
  'edit.tool_args': {
    content: {
      type: 'edit',
      sub_type: 'tool_args',
      prompt: 'Review the SQL query arguments before execution.',
      tool_name: 'run_sql',
      args: [
        { key: 'table', label: 'Target Table', value: 'orders', type: 'STRING', editable: false },
        { key: 'limit', label: 'Row Limit', value: 1000, type: 'NUMBER', editable: true },
        { key: 'dry_run', label: 'Dry Run?', value: false, type: 'BOOLEAN', editable: true },
      ],
    },
    answer: { action: 'submit', data: { args: { limit: 500 } } },
    result: { args: { table: 'orders', limit: 500, dry_run: false } },
    invalid: [
      {
        why: 'read-only changed',
        action: 'submit',
        data: { args: { table: 'users' } },
        path: 'data.args.table',
      },
      {
        why: 'wrong type',
        action: 'submit',
        data: { args: { dry_run: 'yes' } },
        path: 'data.args.dry_run',
      },
      {
        why: 'unknown arg',
        action: 'submit',
        data: { args: { where: 'x' } },
        path: 'data.args.where',
      },
    ],
  },
};
