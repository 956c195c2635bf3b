/** The agent-facing view of a case: never a secret (no submit_token, no review_url token). */

import type { CaseView } from '../client/types.ts';
import { finalRung } from '../policy/escalation.ts';
import { nextWarning } from '../policy/expiry-warning.ts';
import { isTerminal } from '../protocol/types.ts';
import type { Store } from '../store/store.ts';
import type { CaseDoc, StoredCase, StoredMessage } from '../store/types.ts';

/** What the case view reads besides the case (the relay's store). */
export interface CaseViewSource {
  store: Pick<Store, 'listMessages' | 'listHistory'>;
}

/** The approval policy and its votes so far. */
function policyView(d: CaseDoc): CaseView['policy'] {
  if (!d.policy) return null;
  return {
    name: d.policy.name,
    required: d.policy.required,
    votes: (d.votes ?? []).map((v) => ({
      identity: v.identity,
      action: v.action,
      at: new Date(v.at).toISOString(),
    })),
  };
}

/** Where the escalation ladder stands. */
function escalationView(d: CaseDoc): CaseView['escalation'] {
  const e = d.escalation;
  if (!e) return null;
  const f = finalRung(e);
  return {
    step: e.done,
    of: e.steps.length,
    next_at: e.done < e.steps.length ? new Date(e.steps[e.done]!.at).toISOString() : null,
    final: f
      ? {
          action: f.action,
          at: new Date(f.at).toISOString(),
          outcome: f.outcome === 'submitting' ? null : (f.outcome ?? null),
          // Nobody: a final rung is a timeout policy, never a person's decision.
          decided_by: null,
          reason: f.reason ?? null,
        }
      : null,
  };
}

/** The case's warnings before expiry: thresholds, those sent, the last and the next. */
function expiryWarningView(c: StoredCase): CaseView['expiry_warning'] {
  const w = c.doc.expiry_warnings;
  if (!w) return null;
  const iso = (ms: number) => new Date(ms).toISOString();
  const last = w.sent.length ? Math.max(...w.sent.map((s) => s.at)) : undefined;
  const next = nextWarning(c);
  return {
    before_seconds: w.before_s,
    sent: w.sent.map((s) => ({ before_seconds: s.before_s, at: iso(s.at) })),
    last_at: last === undefined ? null : iso(last),
    next_at: next === undefined ? null : iso(next),
  };
}

/** Whether anyone can see the case, and each of its cards. */
function deliveryView(
  c: StoredCase,
  messages: StoredMessage[],
): Pick<CaseView, 'delivery' | 'messages'> {
  const d = c.doc;
  return {
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
}

/** The review_url is dropped from the store once the case ended and the link expired. */
function reviewLinkView(d: CaseDoc): CaseView['review_link'] {
  if (d.review_url_retired_at) return { state: 'retired', at: d.review_url_retired_at };
  const due = d.review_url_drop_at;
  return { state: 'kept', at: due ? new Date(due).toISOString() : null };
}

/** The JSON body of GET /v1/cases/:id. */
export async function caseView(
  source: CaseViewSource,
  c: StoredCase,
  options: { history?: boolean; messages?: StoredMessage[] | undefined } = {},
): Promise<CaseView> {
  const d = c.doc;
  // Intake has the messages in hand (it just posted them): they are not read again.
  const messages = options.messages ?? (await source.store.listMessages(c.id));
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
    policy: policyView(d),
    escalation: escalationView(d),
    expiry_warning: expiryWarningView(c),
    default_action:
      c.status === 'expired' ? (d.default_action ?? d.hitl.default_action ?? null) : null,
    reason: d.reason ?? null,
    status_at: d.status_at ?? null,
    review_link: reviewLinkView(d),
    expires_at: d.hitl.expires_at,
    previous_id: d.previous_id ?? null,
    next_id: d.next_id ?? null,
    next_case_id: d.next_case_id ?? null,
    labels: d.labels ?? {},
    warnings: d.warnings,
    created_at: new Date(c.created_at).toISOString(),
    updated_at: new Date(c.updated_at).toISOString(),
    ...deliveryView(c, messages),
  };
  if (options.history)
    view.history = (await source.store.listHistory(c.id)).map((h) => ({
      at: new Date(h.at).toISOString(),
      kind: h.kind,
      ...h.detail,
    }));
  return view;
}
