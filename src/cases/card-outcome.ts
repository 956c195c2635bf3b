/**
 * How a final case ended, for a colour and a word: approved, rejected (or declined), answered,
 * expired, cancelled, or ended by the relay's escalation ladder. Pure.
 */
import type { AskContent } from '../asks/content.ts';
import { FINAL_ANSWER_PLATFORM } from '../policy/escalation.ts';
import { isTerminal } from '../protocol/types.ts';
import type { CardOutcome, CardOutcomeKind } from '../render/card.ts';
import { type Strings, t } from '../render/templates.ts';
import type { StoredCase } from '../store/types.ts';

const POSITIVE = new Set(['approve', 'confirm']);
const NEGATIVE = new Set(['reject', 'cancel', 'abort']);

/** Approved, rejected or merely answered, by the answer's action and (for an ask) its data. */
function answeredKind(action: string, data: unknown, ask: AskContent | undefined): CardOutcomeKind {
  const d = (data ?? {}) as Record<string, unknown>;
  if (ask?.type === 'approval')
    return d.decision === 'approve'
      ? 'approved'
      : d.decision === 'reject'
        ? 'rejected'
        : 'answered';
  if (ask?.type === 'context' && ask.sub_type === 'confirm')
    return d.confirmed === false ? 'rejected' : 'approved';
  if (ask) return 'answered';
  if (POSITIVE.has(action)) return 'approved';
  if (NEGATIVE.has(action)) return 'rejected';
  return 'answered';
}

/** The words of a completed case's outcome: the choice's label for an ask approval, else the done word. */
function answeredWord(c: StoredCase, ask: AskContent | undefined, s: Strings): string {
  const action = c.doc.result?.action ?? '';
  const decision = (c.doc.result?.data as { decision?: unknown } | undefined)?.decision;
  if (ask?.type === 'approval') {
    const choice = ask.choices.find((x) => x.key === decision);
    if (choice && decision !== 'approve' && decision !== 'reject') return choice.label;
  }
  if (ask?.type === 'context' && ask.sub_type === 'confirm' && action === 'cancel')
    return t(s, 'outcome.declined');
  const done = t(s, `done.${action}`);
  return done === `done.${action}` ? t(s, 'done.other', { action }) : done;
}

/** The outcome of a final case, or undefined while it is open. */
export function cardOutcome(
  c: StoredCase,
  ask: AskContent | undefined,
  s: Strings,
): CardOutcome | undefined {
  if (!isTerminal(c.status)) return undefined;
  if (c.status === 'expired') return { kind: 'expired', label: t(s, 'outcome.expired') };
  if (c.status === 'cancelled') return { kind: 'cancelled', label: t(s, 'outcome.cancelled') };
  const word = answeredWord(c, ask, s);
  if (c.doc.submitted_by?.platform === FINAL_ANSWER_PLATFORM)
    return { kind: 'ended_by_policy', label: t(s, 'outcome.ended_by_policy', { word }) };
  const kind = answeredKind(c.doc.result?.action ?? '', c.doc.result?.data, ask);
  return { kind, label: t(s, `outcome.${kind}`, { word }) };
}
