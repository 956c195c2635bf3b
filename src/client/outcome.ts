/**
 * What the agent gets back: the case's outcome, and an approval view for agent frameworks whose
 * approval hook takes `{approved, reason?, modifications?}` (e.g. agentos' ApprovalDecision).
 */
import type { TimeoutPolicy } from './ask.ts';
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
  /** False when the relay could not confirm the status with the service (see case.watch). */
  confirmed: boolean;
  /** How watching the case goes (`state: 'ok'`, or why the relay cannot see it). */
  watch: CaseView['watch'];
  approval: ApprovalView;
  /** Nobody decided and a timeout policy answers instead (never a person's answer); else null. */
  policy: TimeoutPolicy | null;
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

/**
 * Whether the relay's wait ended by the escalation ladder's final rung: nobody decided, and the
 * ladder's policy answer is `escalation.final.action` (a timeout policy, never a person's answer).
 */
export function endedByPolicy(v: Pick<CaseView, 'final' | 'escalation'>): boolean {
  return !v.final && v.escalation?.final?.outcome === 'policy';
}

/**
 * The timeout policy that answers when nobody decided: the ladder's final rung, or an expiry with
 * the service's default_action; null when a person decided or the case is still open.
 */
export function timeoutPolicyOf(v: CaseView): TimeoutPolicy | null {
  const f = v.escalation?.final;
  if (f?.outcome === 'policy' && v.status !== 'completed')
    return { action: f.action, source: 'escalation_final', reason: f.reason ?? '' };
  if (v.status === 'expired' && v.default_action)
    return {
      action: v.default_action,
      source: 'expiry',
      reason: `expired without a decision; the service applies its default action "${v.default_action}" (a timeout policy, not a person's decision)`,
    };
  return null;
}

/** The approval view of a case: approve/confirm/select/submit approve; everything else does not. */
export function approvalOf(v: CaseView): ApprovalView {
  // Nobody decided: the ladder's policy answer is reported as such, never as an approval.
  if (endedByPolicy(v))
    return {
      approved: false,
      reason:
        v.escalation?.final?.reason ?? 'nobody decided (the escalation ladder ended the wait)',
    };
  // The relay's own conclusion is never passed off as the service's: the person may have decided.
  if (v.confirmed === false)
    return {
      approved: false,
      reason: `outcome unknown: ${v.unconfirmed_reason ?? 'not confirmed by the service'}`,
    };
  if (v.status === 'expired') {
    const d = v.default_action
      ? ` (the service applies its default action "${v.default_action}")`
      : '';
    return { approved: false, reason: `expired without a decision${d}` };
  }
  if (v.status === 'cancelled')
    return { approved: false, reason: v.reason ? `cancelled: ${v.reason}` : 'cancelled' };
  if (v.status !== 'completed' || !v.result) {
    const blind =
      v.watch && v.watch.state !== 'ok'
        ? `; hitl-relay cannot see the case's status (${v.watch.state}: ${v.watch.last_error ?? ''})`
        : '';
    return { approved: false, reason: `no decision yet (the case is ${v.status})${blind}` };
  }
  const { action, data } = v.result;
  const by = who(v);
  const out: ApprovalView = { approved: APPROVING.has(action) };
  const given = text(data, 'reason', 'feedback', 'comment', 'note');
  const short = out.approved ? shortOfPolicy(v, action) : undefined;
  if (short) {
    // Decided somewhere the relay's vote counting never saw (a service's own page): not approved.
    out.approved = false;
    out.reason = short;
  } else if (out.approved) {
    if (given) out.reason = given;
  } else {
    const said = REFUSING[action] ?? `answered "${action}"`;
    out.reason = given ?? (by ? `${said} by ${by}` : said);
  }
  if (data && Object.keys(data).length) out.modifications = data;
  return out;
}

/**
 * Why an approving answer falls short of the case's approval policy ("1 of 2 approvals the policy
 * four-eyes needs"), or undefined when it has none or its votes are enough.
 */
function shortOfPolicy(v: CaseView, action: string): string | undefined {
  const p = v.policy;
  if (!p) return undefined;
  const votes = p.votes.filter((x) => x.action === action).length;
  if (votes >= p.required) return undefined;
  return `"${action}" with ${votes} of the ${p.required} approvals the policy ${p.name} needs`;
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
    confirmed: v.confirmed !== false,
    watch: v.watch,
    approval: approvalOf(v),
    policy: timeoutPolicyOf(v),
    case: v,
  };
}
