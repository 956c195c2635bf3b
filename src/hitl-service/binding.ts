/**
 * Cases bound to an approval policy (the relay's asks under four-eyes): the relay counts the votes
 * on its cards and, once the policy is met, submits with its own token. Every other way to an
 * answer (the review page, whose link anyone holding the card's Details link can open; the asking
 * agent's submit token; an in-process reviewer step) cannot identify a permitted approver, so it
 * cannot decide the case, and is told so.
 */
import { errorBody } from './context.ts';
import type { StoredReview } from './service-store.ts';
import { tokenMatches } from './tokens.ts';
import type { ReviewCase } from './types.ts';

/** Whether `token` is the relay's own token of this case (constant time on the hashes). */
export function isRelayToken(kase: ReviewCase, token: string | undefined | null): boolean {
  return !!kase.relay_sha256 && tokenMatches(token, Buffer.from(kase.relay_sha256, 'hex'));
}

/** What a bound case says to a path that may not decide it. */
export function bindingMessage(kase: ReviewCase): string | undefined {
  const b = kase.binding;
  if (!b) return undefined;
  const n = `${b.required} approval${b.required === 1 ? '' : 's'}`;
  return `This ask is under the approval policy ${b.policy} (${n}): only the approvers' votes on its card in the chat decide it, not this page, a submit token or a reviewer step.`;
}

/** 403 `approval_policy` for a bound case; undefined for any other. */
export function bindingRefusal(
  kase: ReviewCase,
): { status: 403; body: Record<string, unknown> } | undefined {
  const message = bindingMessage(kase);
  if (!message) return undefined;
  const b = kase.binding!;
  return {
    status: 403,
    body: errorBody('approval_policy', message, {
      case_id: kase.case_id,
      policy: { name: b.policy, required: b.required },
    }),
  };
}

/**
 * Whether an `Authorization` header may read a case's status and events when reads are private
 * (the asks profile): the owner's credential only, the submit token of the 202 (the asking agent)
 * or the relay's own token; never the review token of the Details link, which is a person's.
 */
export function mayRead(stored: StoredReview, authorization: string | undefined): boolean {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '');
  const token = match?.[1];
  return tokenMatches(token, stored.submitHash) || isRelayToken(stored.kase, token);
}

/** The 401 of a private read without the owner's credential. */
export const READ_REFUSED = errorBody(
  'invalid_token',
  "Reading this case needs Authorization: Bearer <submit_token of its 202> (the asking agent's credential).",
);
