/** The agent-facing view of a case: never a secret (no submit_token, no review_url token). */
import type { Store } from '../cases/store.ts';
import type { StoredCase, StoredMessage } from '../cases/types.ts';
import type { CaseView } from '../client/types.ts';
import { isTerminal } from '../protocol/types.ts';

/** What the case view reads besides the case (the engine has it). */
export interface CaseViewSource {
  store: Pick<Store, 'listMessages' | 'listHistory'>;
}

/** The JSON body of GET /v1/cases/:id. */
export async function caseView(
  engine: CaseViewSource,
  c: StoredCase,
  options: { history?: boolean; messages?: StoredMessage[] | undefined } = {},
): Promise<CaseView> {
  const d = c.doc;
  // Intake has the messages in hand (it just posted them): they are not read again.
  const messages = options.messages ?? (await engine.store.listMessages(c.id));
  // Typed as the client's CaseView: the server cannot add, drop or change a field the client does not know.
  const view: CaseView = {
    id: c.id,
    case_id: c.case_id,
    service: c.origin,
    target: c.target,
    type: d.hitl.type,
    prompt: d.hitl.prompt,
    status: c.status,
    final: isTerminal(c.status),
    result: d.result ?? null,
    submitted_by: d.submitted_by ?? null,
    responded_by: d.responded_by ?? null,
    submission_context: d.submission_context ?? null,
    verification_result: d.verification_result ?? null,
    // False when the relay concluded the status itself (a local expiry while the service could not
    // be read); every other status is the service's word.
    confirmed: !d.unconfirmed,
    unconfirmed_reason: d.unconfirmed ?? null,
    watch: d.watch ?? {
      state: 'ok',
      last_error: null,
      since: new Date(c.created_at).toISOString(),
    },
    progress: d.progress ?? null,
    policy: d.policy
      ? {
          name: d.policy.name,
          required: d.policy.required,
          votes: (d.votes ?? []).map((v) => ({
            identity: v.identity,
            action: v.action,
            at: new Date(v.at).toISOString(),
          })),
        }
      : null,
    escalation: d.escalation
      ? {
          step: d.escalation.done,
          of: d.escalation.steps.length,
          next_at:
            d.escalation.done < d.escalation.steps.length
              ? new Date(d.escalation.steps[d.escalation.done]!.at).toISOString()
              : null,
          final: d.escalation.final
            ? {
                action: d.escalation.final.action,
                at: new Date(d.escalation.final.at).toISOString(),
                outcome: d.escalation.final.outcome ?? null,
                reason: d.escalation.final.reason ?? null,
              }
            : null,
        }
      : null,
    default_action:
      c.status === 'expired' ? (d.default_action ?? d.hitl.default_action ?? null) : null,
    reason: d.reason ?? null,
    status_at: d.status_at ?? null,
    expires_at: d.hitl.expires_at,
    previous_id: d.previous_id ?? null,
    next_id: d.next_id ?? null,
    next_case_id: d.next_case_id ?? null,
    labels: d.labels ?? {},
    warnings: d.warnings,
    created_at: new Date(c.created_at).toISOString(),
    updated_at: new Date(c.updated_at).toISOString(),
    delivery: d.delivery_failed
      ? { state: 'failed', reason: d.delivery_failed.reason }
      : messages.some((m) => m.state === 'posted')
        ? { state: 'delivered', reason: null }
        : { state: 'pending', reason: messages.find((m) => m.error)?.error ?? null },
    messages: messages.map((m) => ({
      target: m.target,
      state: m.state,
      current: m.rendered_version >= c.version,
      error: m.error,
      posted_at: m.posted_at ? new Date(m.posted_at).toISOString() : null,
    })),
  };
  if (options.history)
    view.history = (await engine.store.listHistory(c.id)).map((h) => ({
      at: new Date(h.at).toISOString(),
      kind: h.kind,
      ...h.detail,
    }));
  return view;
}
