/**
 * The confirming poll after a push (a terminal SSE event, a verified callback). poll_url stays the
 * source of truth (spec 8.5, 9): a push only makes us look now. When the look fails, or the service
 * still says the case is open, the watcher is asked to look again at once.
 */
import type { Dispatcher } from 'undici';
import type { CarriedWrites } from '../cases/repository.ts';
import type { StatusApplier } from '../cases/status.ts';
import { isTerminal } from '../protocol/types.ts';
import type { Sealer } from '../store/sealer.ts';
import type { Store } from '../store/store.ts';
import type { StoredCase } from '../store/types.ts';
import { pollCase } from './poll.ts';

/** What a confirming poll touches. */
export interface ConfirmDeps {
  store: Pick<Store, 'getCase' | 'updateWatch'>;
  status: Pick<StatusApplier, 'apply'>;
  dispatcher: Dispatcher;
  sealer: Pick<Sealer, 'open'>;
  now: () => number;
  /** Names this process in claims. */
  instanceId: string;
}

/**
 * Reads the case's real state from poll_url and applies it; returns the case when it changed.
 * `o.known`: the case as the caller holds it (not read again).
 */
export async function settleByPoll(
  d: Omit<ConfirmDeps, 'instanceId'>,
  id: string,
  o: { known?: StoredCase; carry?: CarriedWrites } = {},
): Promise<StoredCase | undefined> {
  const c = o.known ?? (await d.store.getCase(id));
  if (!c) return undefined;
  const r = await pollCase(d, c, null);
  if (r.kind !== 'status') return undefined;
  return d.status.apply(id, r.update, 'poll', undefined, o);
}

/**
 * Whether a tap of this process is submitting the case now (its claim is ours and live). Its own
 * confirming poll then settles the case with who submitted it, in one write, so a poll or a push
 * waits for the claim's end instead of applying the completion first (a waiting agent would see it
 * without submitted_by). A claim of another process is not waited for: that process may be dead
 * (its claim outlives it), and the tap adds submitted_by after a completion it did not write.
 */
export function tapInFlightHere(
  d: Pick<ConfirmDeps, 'instanceId' | 'now'>,
  c: StoredCase,
): c is StoredCase & { claim: NonNullable<StoredCase['claim']> } {
  return (
    !!c.claim &&
    c.claim.until > d.now() &&
    c.claim.holder.startsWith(`${d.instanceId}:`) &&
    !isTerminal(c.status)
  );
}

/** Polls the case once and applies what the service says; returns the case as it then stands. */
export async function confirmByPoll(d: ConfirmDeps, id: string): Promise<StoredCase | undefined> {
  const before = await d.store.getCase(id);
  if (before && tapInFlightHere(d, before)) {
    await pollSoon(d, before, before.claim.until);
    return before;
  }
  if (!before) return undefined;
  // The case just read is where the poll starts. When this poll changed nothing, another look may
  // have ended the case meanwhile: what stands is read again, not the copy from before.
  const c = (await settleByPoll(d, id, { known: before })) ?? (await d.store.getCase(id)) ?? before;
  if (!isTerminal(c.status)) await pollSoon(d, c);
  return c;
}

/** Pulls the case's next poll forward to `at` (default now), keeping its ETag and failure count. */
export async function pollSoon(
  d: Pick<ConfirmDeps, 'store' | 'now'>,
  c: StoredCase,
  at = d.now(),
): Promise<void> {
  if (c.next_check_at !== null && c.next_check_at <= at) return;
  await d.store.updateWatch(c.id, {
    next_check_at: at,
    etag: c.etag,
    poll_failures: c.poll_failures,
  });
}
