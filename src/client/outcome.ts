/**
 * What the agent gets back: the case's outcome, and an approval view for agent frameworks whose
 * approval hook takes `{approved, reason?, modifications?}` (e.g. agentos' ApprovalDecision).
 */
import type { CaseResult, CaseStatus, CaseView, RespondedBy, SubmittedBy } from './types.ts';

/** A yes/no reading of a case for approval hooks. Anything but a positive answer is `approved: false`. */
export interface ApprovalView {
  approved: boolean;
  /** Why (the person's reason when they gave one, else what happened). */
  reason?: string;
  /** The answer's data (edits, a selection, form input), when it carried any. */
  modifications?: Record<string, unknown>;
}

/** The outcome of a relayed case, as the fetch wrapper, the interceptor and the CLI report it. */
export interface HitlOutcome {
  /** The relay's case id: use it with RelayClient.get / wait, or GET /v1/cases/:id. */
  relay_case_id: string;
  /** The service's case_id. */
  case_id: string;
  status: CaseStatus;
  /** True once completed, expired or cancelled; false when the caller chose not to wait (or timed out). */
  final: boolean;
  result: CaseResult | null;
  submitted_by: SubmittedBy | null;
  responded_by: RespondedBy | null;
  approval: ApprovalView;
  /** The whole case view. */
  case: CaseView;
}

/** Actions that say yes. */
const APPROVING = new Set(['approve', 'confirm', 'select', 'submit']);
/** Actions that say no, with the words for the default reason. */
const REFUSING: Record<string, string> = {
  reject: 'rejected',
  cancel: 'cancelled',
  abort: 'aborted',
  skip: 'skipped',
  edit: 'changes requested',
  retry: 'retry requested',
};

function who(v: CaseView): string | undefined {
  const s = v.submitted_by;
  if (s) return s.display_name ?? s.platform_user_id;
  return v.responded_by?.name ?? v.responded_by?.email;
}

function text(data: Record<string, unknown> | undefined, ...keys: string[]): string | undefined {
  for (const k of keys) {
    const v = data?.[k];
    if (typeof v === 'string' && v.trim()) return v.trim();
  }
  return undefined;
}

/** The approval view of a case: approve/confirm/select/submit approve; everything else does not. */
export function approvalOf(v: CaseView): ApprovalView {
  if (v.status === 'expired') {
    const d = v.default_action
      ? ` (the service applies its default action "${v.default_action}")`
      : '';
    return { approved: false, reason: `expired without a decision${d}` };
  }
  if (v.status === 'cancelled')
    return { approved: false, reason: v.reason ? `cancelled: ${v.reason}` : 'cancelled' };
  if (v.status !== 'completed' || !v.result)
    return { approved: false, reason: `no decision yet (the case is ${v.status})` };
  const { action, data } = v.result;
  const by = who(v);
  const out: ApprovalView = { approved: APPROVING.has(action) };
  const given = text(data, 'reason', 'feedback', 'comment', 'note');
  if (out.approved) {
    if (given) out.reason = given;
  } else {
    const said = REFUSING[action] ?? `answered "${action}"`;
    out.reason = given ?? (by ? `${said} by ${by}` : said);
  }
  if (data && Object.keys(data).length) out.modifications = data;
  return out;
}

/** The outcome of a case view. */
export function outcomeOf(v: CaseView): HitlOutcome {
  return {
    relay_case_id: v.id,
    case_id: v.case_id,
    status: v.status,
    final: v.final,
    result: v.result,
    submitted_by: v.submitted_by,
    responded_by: v.responded_by,
    approval: approvalOf(v),
    case: v,
  };
}
