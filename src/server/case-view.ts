/** The agent-facing view of a case: never a secret (no submit_token, no review_url token). */
import type { Engine } from '../cases/engine.ts';
import type { StoredCase } from '../cases/types.ts';
import { isTerminal } from '../protocol/types.ts';

/** The JSON body of GET /v1/cases/:id. */
export async function caseView(engine: Engine, c: StoredCase, options: { history?: boolean } = {}) {
  const d = c.doc;
  const messages = await engine.store.listMessages(c.id);
  const view: Record<string, unknown> = {
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
    progress: d.progress ?? null,
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
