/**
 * Where a case's credentials may go (spec v0.9 §13.3: "Clients MUST validate service-provided
 * endpoint URLs against their trusted service configuration before sending credentials"). The
 * trusted configuration of a case is its origin: the origin of the poll_url the agent handed in
 * together with the credentials (service_auth, the submit token). Every request that carries one of
 * them is checked here at send time, not only at intake: a row stored before intake refused
 * submit_url / events_url on another origin (issue 15) still carries them, and nothing in a poll,
 * an event or a callback can move a case to another origin.
 */
import type { StoredCase } from '../store/types.ts';

/** Whether `url` is on the case's own origin (so its credentials may be sent there). */
export function onCaseOrigin(c: Pick<StoredCase, 'origin'>, url: string): boolean {
  return URL.canParse(url) && new URL(url).origin === c.origin;
}

/** Why nothing was sent to `url` (for the log and the history: the origins, never a path or token). */
export function offOriginReason(what: string, c: Pick<StoredCase, 'origin'>, url: string): string {
  const to = URL.canParse(url) ? new URL(url).origin : 'an unparsable URL';
  return `${what} is on ${to}, not on the case's origin ${c.origin}: nothing was sent there`;
}
