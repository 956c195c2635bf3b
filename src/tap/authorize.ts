/**
 * Step 2 of a tap: may this person answer this case now, with this action (allowlist, still open,
 * not revised, inline-allowed, the approval policy), and is the answer one the case takes. Nothing
 * here writes or sends: the pipeline records a refusal, and adapters ask before collecting input.
 */
import type { Tap } from '../adapter.ts';
import { checkAnswer, irreversiblePicks } from '../asks/answer.ts';
import { type AskContent, askContentOf } from '../asks/content.ts';
import { issueLabel } from '../asks/issue-label.ts';
import { protocolOf } from '../asks/protocol.ts';
import { toolCallAnswerIssues, toolCallOf } from '../asks/tool-call.ts';
import { judge } from '../policy/policy.ts';
import { inlineActions, isIrreversible } from '../protocol/actions.ts';
import { isTerminal } from '../protocol/types.ts';
import type { CaseSecrets } from '../store/types.ts';
import { type ResolvedTap, refusal, type Stop, type TapDeps } from './deps.ts';

/** What an authorized tap carries on: the case's secrets and its ask (if it is one). */
export interface Authorized {
  secrets: CaseSecrets;
  ask: AskContent | undefined;
}

/** Whether the person may act on the case now with this action. */
export function authorize(
  d: Pick<TapDeps, 'targets' | 'sealer'>,
  t: ResolvedTap,
  tap: Tap,
): Authorized | Stop {
  const { c } = t;
  if (!d.targets.mayAct(c, t.target, tap.user.id))
    return refusal(t, 'not on the allowlist', 'forbidden');
  if (isTerminal(c.status))
    return refusal(t, `the case is ${c.status}`, 'closed', { status: c.status });
  // A revised case: its card shows no buttons any more, and a tap from an old render is refused.
  if (c.doc.next_id) return refusal(t, 'the case was revised', 'closed', { status: 'revised' });
  const secrets = d.sealer.open(c.secrets);
  // An ask (context.ask) is answered with data from native widgets, so all its actions are inline.
  const ask = askContentOf(c.doc.hitl.context);
  const allowed = c.doc.inline_unavailable
    ? []
    : (ask
        ? (c.doc.hitl.inline_actions ?? protocolOf(ask).actions)
        : inlineActions(c.doc.hitl, secrets.submit_token !== null).actions
      ).filter((a) => !c.doc.inline_refused?.includes(a));
  if (!allowed.includes(tap.action) || !secrets.submit_token || !c.doc.hitl.submit_url)
    return refusal(t, 'action not inline-allowed', 'not_allowed');
  return { secrets, ask };
}

/** Why the case's approval policy would refuse this person's vote (nothing recorded), or null. */
export function policyRefusal(d: Pick<TapDeps, 'targets'>, t: ResolvedTap, tap: Tap): Stop | null {
  const policy = t.c.doc.policy;
  if (!policy) return null;
  const account = `${tap.platform}:${tap.user.id}`;
  const identity = d.targets.identityOfAccount(account);
  const v = judge(
    policy,
    t.c.doc.votes ?? [],
    { identity, account, action: tap.action },
    t.c.doc.requested_by,
  );
  return v.kind === 'refused' ? { outcome: v.reason, view: { required: policy.required } } : null;
}

/**
 * The answer the tap submits: an ask's answer checked against its content before anything is
 * claimed or sent (a bad answer records nothing), and whether it needs the confirming tap.
 */
export function checkTapAnswer(
  t: ResolvedTap,
  tap: Tap,
  ask: AskContent | undefined,
): { data: Record<string, unknown>; irreversible: boolean } | Stop {
  if (!ask) return { data: {}, irreversible: isIrreversible(t.c.doc.hitl, tap.action) };
  const checked = checkAnswer(ask, tap.action, tap.data ?? {});
  // A held MCP tool call: read-only arguments stay, edits fit the tool (as the asks service checks).
  const call = checked.ok ? toolCallOf(t.c.doc.hitl.context) : undefined;
  const issues = checked.ok
    ? call
      ? toolCallAnswerIssues(call, checked.data)
      : []
    : checked.issues;
  if (checked.ok && !issues.length)
    return {
      data: checked.data as Record<string, unknown>,
      irreversible: irreversiblePicks(ask, checked.data).length > 0,
    };
  // People read the field's label and what it needs, never an internal path.
  const labelled = issues.map((i) => ({ ...i, label: issueLabel(ask, i.path) }));
  const first = labelled[0];
  const problem = first ? `${first.label}: ${first.message}` : 'invalid';
  const stop = refusal(t, 'invalid answer', 'invalid_answer', { problem });
  // Bounded: the messages may quote what the person sent.
  stop.row!.detail.issues = issues
    .slice(0, 10)
    .map((i) => ({ path: i.path.slice(0, 100), message: i.message.slice(0, 200) }));
  return { ...stop, issues: labelled.slice(0, 50) };
}
