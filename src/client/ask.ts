/**
 * `relay.ask(content, opts)`: ask the relay directly with one of the ten interaction kinds and get
 * the typed answer back; the answer's type follows the content's (`AnswerOf<typeof content>`).
 */
import type { AnswerOf } from '../asks/answer.ts';
import type { ApprovalDecisionView } from '../asks/approval.ts';
import type { AskContentInput, AskKind } from '../asks/content.ts';
import type { CaseStatus, CaseView } from './types.ts';

export type { AnswerByKind, AnswerOf, AskAnswer } from '../asks/answer.ts';
export type { ApprovalDecisionView } from '../asks/approval.ts';
export type { AskContentInput, AskKind } from '../asks/content.ts';

/** Where and how long to ask. */
export interface AskOptions {
  /** "web:room", "slack:C123", "route:oncall", ... */
  target: string;
  /** Seconds until the ask expires (default 24 h); or give `expiresAt`. */
  expiresIn?: number;
  expiresAt?: Date | string;
  /** The outcome on expiry (`default_action`); each kind allows a few (docs/asks.md). */
  default?: 'skip' | 'approve' | 'reject' | 'abort';
  labels?: Record<string, string>;
  notifyUrl?: string;
  notifyOn?: 'final' | 'all';
  /** Give up waiting after this long (the ask stays open at the relay); default: wait for the end. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Called once the relay took the ask in (its id, for a later `getAsk`). */
  onCreated?: (created: { id: string; case_id: string }) => void;
  /**
   * Sent as `Idempotency-Key`: asking again with the same key and content (within 24 h, e.g. after
   * a crash or a timeout) returns the same ask instead of posting a second card.
   */
  idempotencyKey?: string;
}

/** A timeout policy's answer: nobody decided, and this is what applies. */
export interface TimeoutPolicy {
  action: string;
  source: 'escalation_final' | 'expiry';
  reason: string;
}

/** An ask as the relay reports it; `answer` is typed by the content. */
export interface AskOutcome<C extends { type: string; sub_type: string } = AskContentInput> {
  id: string;
  kind: AskKind;
  status: CaseStatus;
  final: boolean;
  /** result.data in the kind's shape once completed; null when expired, cancelled or still open. */
  answer: AnswerOf<C> | null;
  /**
   * agentos' ApprovalDecision view (approval kinds, confirm, freetext, edits); for those kinds,
   * ended without an answer (expired, cancelled), `{approved: false, reason}`; null otherwise.
   */
  approval: ApprovalDecisionView | null;
  /**
   * Nobody decided and a timeout policy answers instead: the escalation ladder's final rung, or
   * the ask's expiry with its default_action. Never a person's answer; null otherwise.
   */
  policy: TimeoutPolicy | null;
  /** The full case view (history, messages, submitted_by). */
  case: CaseView;
}

/** How ask.ts reaches the relay (RelayClient's own request function, so keys and errors are shared). */
export type RelayCall = (
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  signal?: AbortSignal,
  headers?: Record<string, string>,
) => Promise<unknown>;

/** POST /v1/asks, then /v1/asks/:id/wait until the ask is final or `timeoutMs` passes. */
export async function askRelay<const C extends AskContentInput>(
  call: RelayCall,
  content: C,
  o: AskOptions,
  chunkSeconds = 30,
): Promise<AskOutcome<C>> {
  const expiresAt = o.expiresAt instanceof Date ? o.expiresAt.toISOString() : o.expiresAt;
  const created = (await call(
    'POST',
    '/v1/asks',
    {
      target: o.target,
      content,
      ...(o.expiresIn !== undefined ? { expires_in: o.expiresIn } : {}),
      ...(expiresAt !== undefined ? { expires_at: expiresAt } : {}),
      ...(o.default ? { default: o.default } : {}),
      ...(o.labels ? { labels: o.labels } : {}),
      ...(o.notifyUrl ? { notify_url: o.notifyUrl } : {}),
      ...(o.notifyOn ? { notify_on: o.notifyOn } : {}),
    },
    o.signal,
    o.idempotencyKey !== undefined ? { 'idempotency-key': o.idempotencyKey } : undefined,
  )) as { hitl: { case_id: string }; relay: AskOutcome<C> };
  const id = created.relay.id;
  o.onCreated?.({ id, case_id: created.hitl.case_id });
  return waitAsk<C>(call, id, o, chunkSeconds);
}

/** Waits for an ask already made (by id) until final or `timeoutMs`. */
export async function waitAsk<C extends AskContentInput = AskContentInput>(
  call: RelayCall,
  id: string,
  o: { timeoutMs?: number; signal?: AbortSignal } = {},
  chunkSeconds = 30,
): Promise<AskOutcome<C>> {
  const deadline = o.timeoutMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + o.timeoutMs;
  for (;;) {
    o.signal?.throwIfAborted();
    const left = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
    const seconds = Math.min(chunkSeconds, left);
    const view = (await call(
      'GET',
      `/v1/asks/${encodeURIComponent(id)}/wait?timeout=${seconds}`,
      undefined,
      o.signal,
    )) as AskOutcome<C>;
    // An ask's ladder ended the wait: nobody decided, `policy` says the policy answer.
    if (view.final || view.policy || Date.now() >= deadline) return view;
  }
}
