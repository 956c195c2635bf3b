/**
 * What each kind's final card must state when answered with its fixture's answer (fixtures.ts), in
 * the person's words, and what it must not show instead. The renderer tests of every platform
 * (test/render/final-cards.test.ts) and the web chat in Chromium (card-screenshots.test.ts) check it.
 */
import type { AskKind } from '../../src/asks/content.ts';

export const FINAL_ANSWERS: Record<AskKind, { shows: string[]; not?: string[] }> = {
  'approval.binary': { shows: ['Send it'] },
  'approval.modify': { shows: ['Refund Amount (USD): 45 (was 75)'] },
  'decision.single': { shows: ['Chosen: Staging'] },
  'decision.multi': { shows: ['Chosen: Infrastructure, Backend'] },
  'decision.rank': { shows: ['1. Push Notification · 2. Email · 3. SMS'] },
  'context.freetext': { shows: ['Customer preference: A full refund.'] },
  'context.form': {
    shows: ['Ticket ID: TKT-123', 'Priority (1-5): 2', 'Mark as urgent?: yes', 'Team: infra'],
  },
  'context.confirm': { shows: ['Confirmed: All customer PII will be deleted after 90 days.'] },
  'edit.content': {
    shows: ['Edited text: Hi Jane, Thank you! Best, Support'],
    not: ['We are following up'],
  },
  'edit.tool_args': {
    shows: ['Tool: run_sql', 'Row Limit: 500 (was 1000)', 'Target Table: orders'],
  },
};
