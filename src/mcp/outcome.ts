/**
 * What a tool call gives back: the ask's outcome as `structuredContent` (typed answer, who answered,
 * when, on which platform, the ask's id) with its schema per kind, and a short text for clients that
 * read only text. Everything in it is what the service recorded; nothing is inferred. Pure.
 */
import { z } from 'zod';
import { CASE_STATUSES } from '../protocol/types.ts';
import type { StoredCase } from '../store/types.ts';
import type { KindTool } from './kinds.ts';

const answeredBy = z
  .object({
    name: z.string().nullable().describe('As the platform or the review page names them'),
    platform: z.string().nullable(),
    user_id: z.string().nullable().describe('Their id on that platform'),
  })
  .describe('Who answered (a claim of the chat platform, not a verified identity)');

/** The outcome schema of one kind's tool (its `outputSchema`). */
export function outcomeSchema(t: KindTool) {
  return z.object({
    ask_id: z.string().describe('Pass it to get_answer to read the answer later'),
    kind: z.literal(t.kind),
    status: z.enum(CASE_STATUSES),
    final: z.boolean().describe('False while nobody has answered yet'),
    answer: t.answer.nullable().describe('The typed answer; null unless status is completed'),
    answered_by: answeredBy.nullable(),
    answered_at: z.string().nullable().describe('ISO 8601'),
    platform: z
      .string()
      .nullable()
      .describe('Where the answer was given (slack, telegram, web, ...)'),
    target: z.string().describe('Where the ask was posted'),
    reason: z.string().nullable().describe('Why it ended without an answer'),
    poll_url: z.string().describe('GET this (with the relay API key) to read the ask'),
  });
}

/** The outcome of any kind (get_answer's `outputSchema`: the answer is the kind's, untyped here). */
export const anyOutcomeSchema = z.object({
  ask_id: z.string(),
  kind: z.string(),
  status: z.enum(CASE_STATUSES),
  final: z.boolean(),
  answer: z.record(z.string(), z.unknown()).nullable(),
  answered_by: answeredBy.nullable(),
  answered_at: z.string().nullable(),
  platform: z.string().nullable(),
  target: z.string(),
  reason: z.string().nullable(),
  poll_url: z.string(),
});

/** One outcome (the structuredContent). */
export type McpAskOutcome = z.output<typeof anyOutcomeSchema>;

/** The outcome of an ask as stored now. */
export function outcomeOf(c: StoredCase, kind: string, relayUrl: string): McpAskOutcome {
  const d = c.doc;
  const completed = c.status === 'completed';
  const by = d.submitted_by;
  const who = by
    ? { name: by.display_name ?? null, platform: by.platform, user_id: by.platform_user_id }
    : d.responded_by
      ? { name: d.responded_by.name ?? null, platform: null, user_id: null }
      : null;
  return {
    ask_id: c.id,
    kind,
    status: c.status,
    final: completed || c.status === 'expired' || c.status === 'cancelled',
    answer: completed ? ((d.result?.data as Record<string, unknown>) ?? {}) : null,
    answered_by: completed ? who : null,
    answered_at: completed ? (d.status_at ?? new Date(c.updated_at).toISOString()) : null,
    platform: completed ? (by?.platform ?? null) : null,
    target: c.target,
    reason: d.delivery_failed?.reason ?? d.reason ?? null,
    poll_url: `${relayUrl}/v1/asks/${c.id}`,
  };
}

/** The short text of an outcome, for clients that read only text. */
export function outcomeText(o: McpAskOutcome): string {
  if (o.status === 'completed') {
    const who = o.answered_by?.name ?? o.answered_by?.user_id ?? 'someone';
    const where = o.platform ? ` on ${o.platform}` : '';
    return `${who}${where} answered (ask ${o.ask_id}): ${JSON.stringify(o.answer)}`;
  }
  if (!o.final)
    return `Nobody has answered ask ${o.ask_id} yet (${o.status}${o.reason ? `: ${o.reason}` : ''}); call get_answer with ask_id "${o.ask_id}" later.`;
  return `Ask ${o.ask_id} ended without an answer: ${o.status}${o.reason ? ` (${o.reason})` : ''}. Do not take the action it asked about.`;
}
