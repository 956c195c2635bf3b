/**
 * The approval view of an answer, shaped as agentos' ApprovalDecision (seed 001): `approved`, and
 * `modifications` with `output` (an edited draft) or `instructions` (free-text guidance). Never
 * `toolArgs`: agentos refuses an approval that carries it, so edited tool args come back in `args`
 * beside the decision, for the agent's before-tool hook. Pure.
 */
import type { AnswerByKind, AskAnswer } from './answer.ts';
import { type AskContent, kindOf } from './content.ts';

/** agentos' ApprovalDecision, plus `args` (tool_args) and `values` (modify) beside it. */
export interface ApprovalDecisionView {
  approved: boolean;
  reason?: string;
  modifications?: { output?: string; instructions?: string };
  /** edit.tool_args: every arg (edited or not), for onBeforeToolExecution; never `toolArgs`. */
  args?: Record<string, string | number | boolean>;
  /** approval.modify: the edited values, when any. */
  values?: Record<string, string | number | boolean>;
}

/** The kinds whose answer is an approval (approvalDecisionOf gives a decision for them). */
export const APPROVAL_KINDS: ReadonlySet<string> = new Set([
  'approval.binary',
  'approval.modify',
  'context.confirm',
  'context.freetext',
  'edit.content',
  'edit.tool_args',
]);

/**
 * The ApprovalDecision for a completed answer: approval kinds approve when the choice key is
 * `approve`; confirm approves when confirmed; freetext approves with its text as `instructions`;
 * an edited draft approves with `output` (left out when unchanged, which agentos reads as "no
 * modifications"); tool args approve with `args`. Decisions and forms are not approvals: null.
 */
export function approvalDecisionOf(
  content: AskContent,
  answer: AskAnswer,
): ApprovalDecisionView | null {
  switch (kindOf(content)) {
    case 'approval.binary':
      return { approved: (answer as AnswerByKind['approval.binary']).decision === 'approve' };
    case 'approval.modify': {
      const a = answer as AnswerByKind['approval.modify'];
      return { approved: a.decision === 'approve', ...(a.values ? { values: a.values } : {}) };
    }
    case 'context.confirm':
      return { approved: (answer as AnswerByKind['context.confirm']).confirmed };
    case 'context.freetext':
      return {
        approved: true,
        modifications: { instructions: (answer as AnswerByKind['context.freetext']).value },
      };
    case 'edit.content': {
      const text = (answer as AnswerByKind['edit.content']).content;
      const draft = content.type === 'edit' && content.sub_type === 'content' ? content.draft : '';
      return text === draft
        ? { approved: true }
        : { approved: true, modifications: { output: text } };
    }
    case 'edit.tool_args':
      return { approved: true, args: (answer as AnswerByKind['edit.tool_args']).args };
    default:
      return null;
  }
}
