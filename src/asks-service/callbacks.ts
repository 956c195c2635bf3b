/**
 * `hitl_callback_url` on `POST /v1/asks` (spec 9): the destination is checked like any URL the
 * relay calls (intakeUrlRefusal: HTTPS, no private ranges outside the local default, names
 * resolved in production) before the ask exists; the asks service then POSTs each terminal event
 * there, signed (X-HITL-Signature, HMAC-SHA256 of the raw body under the relay's notify secret),
 * through the guarded agent (policy on the connected address, no redirects), retried up to 3 times.
 * How each delivery ended goes into the ask's history (its case view) and the log; a failed
 * callback never changes the ask: the poll stays the source of truth.
 */
import type { CaseRepository } from '../cases/repository.ts';
import { ValidationError } from '../errors.ts';
import type { CallbackOutcome } from '../hitl-service/index.ts';
import type { Logger } from '../log.ts';
import { intakeUrlRefusal, type Resolve, type UrlPolicy } from '../net/url-policy.ts';
import type { Store } from '../store/store.ts';

/** Where the relay case of an ask with a callback is remembered (service case id → relay id). */
const KEY = (caseId: string) => `ask-callback:${caseId}`;

/** Kept a day past the ask's expiry: the last callback is sent at the latest then. */
const KEEP_MS = 86_400_000;

/** Refuses a callback destination the outbound URL policy forbids (400 naming the field). */
export async function checkCallbackUrl(
  relay: { config: UrlPolicy; resolve?: Resolve | undefined },
  url: string | undefined,
): Promise<void> {
  if (url === undefined) return;
  const why = await intakeUrlRefusal(url, relay.config, relay.resolve);
  if (why)
    throw new ValidationError('invalid_request', 'invalid ask', [
      { path: 'hitl_callback_url', message: why },
    ]);
}

/** Remembers which relay case an ask's callbacks report on, for their outcome in its history. */
export async function rememberCallbackCase(
  relay: { store: Pick<Store, 'kv'> },
  url: string | undefined,
  caseId: string,
  relayId: string,
  seconds: number,
): Promise<void> {
  if (url === undefined) return;
  await relay.store.kv.set(KEY(caseId), relayId, seconds * 1000 + KEEP_MS);
}

/** What recording an outcome touches. */
export interface CallbackRecordDeps {
  store: Pick<Store, 'kv'>;
  cases: Pick<CaseRepository, 'history'>;
  log: Logger;
}

/** History kinds of a callback's outcome. */
export const CALLBACK_DELIVERED = 'hitl_callback_delivered';
export const CALLBACK_FAILED = 'hitl_callback_failed';

/** Records how a callback delivery ended in the ask's history; never throws. */
export async function recordCallbackOutcome(
  deps: CallbackRecordDeps,
  o: CallbackOutcome,
): Promise<void> {
  try {
    const id = await deps.store.kv.get(KEY(o.case_id));
    // The URL is left out: it may carry a token in its query.
    const detail = {
      event: o.event,
      event_id: o.event_id,
      attempts: o.attempts,
      ...(o.error && { error: o.error }),
    };
    if (o.state === 'failed')
      deps.log.warn({ id, case_id: o.case_id, ...detail }, 'ask callback failed');
    if (id)
      await deps.cases.history(
        id,
        o.state === 'delivered' ? CALLBACK_DELIVERED : CALLBACK_FAILED,
        detail,
      );
  } catch (err) {
    deps.log.warn({ case_id: o.case_id, err: (err as Error).message }, 'ask callback not recorded');
  }
}
