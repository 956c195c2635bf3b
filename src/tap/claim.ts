/**
 * Step 4 of a tap: nothing goes out while the service asked to wait or an earlier submit's outcome
 * is unknown; an approval policy counts the vote; then one claim per case, so two taps (or a tap
 * and the ladder's final answer, in any replica) never both submit.
 */
import type { Tap } from '../adapter.ts';
import { randomId } from '../cases/ids.ts';
import { formatTime } from '../cases/render-case.ts';
import { isTerminal } from '../protocol/types.ts';
import { pollCase } from '../service-client/poll.ts';
import {
  checkUnknownSubmit,
  type UnknownSubmitDeps,
  unknownView,
} from '../service-client/unknown-submit.ts';
import type { HistoryEntry, StoredCase } from '../store/types.ts';
import { type ResolvedTap, refusal, type Stop, type TapDeps } from './deps.ts';
import { castVote, type VoteHost } from './vote.ts';

/** What claiming touches (a lapsed claim is settled by a poll before it is taken over). */
export type ClaimDeps = Pick<
  TapDeps,
  'store' | 'now' | 'config' | 'dispatcher' | 'sealer' | 'status' | 'cases'
>;

/** The service asked to wait (429 Retry-After): no submit before then. */
export function serviceWait(d: Pick<TapDeps, 'now'>, t: ResolvedTap): Stop | null {
  const waitUntil = t.c.doc.retry_after_until;
  if (waitUntil === undefined || waitUntil <= d.now()) return null;
  const view = { seconds: Math.ceil((waitUntil - d.now()) / 1000), at: formatTime(waitUntil) };
  return refusal(t, 'the service asked to wait', 'rate_limited', view);
}

/** An earlier submit got no answer: nothing is sent until a poll shows it was not recorded. */
export async function unknownGate(d: UnknownSubmitDeps, t: ResolvedTap): Promise<Stop | null> {
  const mark = t.c.doc.submit_unknown;
  if (!mark) return null;
  const checked = await checkUnknownSubmit(d, t.c);
  if (checked.check === 'not_recorded') return null;
  const now = checked.case;
  if (checked.check !== 'unknown' && now)
    return refusal(t, `the case is ${now.status}`, 'closed', { status: now.status }, now);
  return refusal(
    t,
    'an earlier submit has no known outcome yet',
    'submit_unknown',
    unknownView(mark),
    now,
  );
}

/** An approval policy: the vote is stored first; only the tap that meets the policy goes on. */
export async function voteStep(d: VoteHost, t: ResolvedTap, tap: Tap): Promise<Stop | null> {
  const vote = await castVote(d, t.c, tap, t.who);
  if (vote.decides) return null;
  return { outcome: vote.outcome, view: vote.view, current: vote.case };
}

/** Claims the case for this tap (the claim and the tap's row are one write); the holder, or the stop. */
export async function claimForTap(
  d: ClaimDeps & Pick<TapDeps, 'instanceId'>,
  t: ResolvedTap,
): Promise<string | Stop> {
  const holder = `${d.instanceId}:${randomId(6)}`;
  if (await claim(d, t.c, holder, { at: d.now(), kind: 'tap', detail: t.who })) return holder;
  const now = await d.store.getCase(t.c.id);
  if (now && isTerminal(now.status))
    return refusal(t, `the case is ${now.status}`, 'closed', { status: now.status }, now);
  return refusal(t, 'another tap is being submitted', 'busy');
}

/**
 * Claims the case (with the tap's history row in the same write); an expired claim (a submit whose
 * outcome is unknown) is settled by a poll first.
 */
export async function claim(
  d: ClaimDeps,
  c: StoredCase,
  holder: string,
  row: HistoryEntry,
): Promise<boolean> {
  const until = d.now() + d.config.claimMs;
  if (await d.store.claimCase(c.id, holder, until, row)) {
    d.cases.recorded(c.id, row);
    return true;
  }
  const current = await d.store.getCase(c.id);
  if (!current?.claim || current.claim.until >= d.now()) return false;
  // Take over only when a poll read the case still open: a failed poll leaves the lost submit's
  // outcome unknown, and submitting again then could make a second POST.
  const read = await pollCase(d, current, null);
  if (read.kind !== 'status') return false;
  await d.status.apply(c.id, read.update, 'poll');
  const latest = await d.store.getCase(c.id);
  if (!latest || isTerminal(latest.status)) return false;
  const took = await d.store.takeOverClaim(c.id, current.claim.holder, holder, until);
  if (took) {
    d.cases.events.emit('takeover', 'claim', c.id); // counted in /metrics
    await d.cases.history(c.id, row.kind, row.detail);
  }
  return took;
}
