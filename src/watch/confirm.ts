/**
 * The confirming poll after a push (a terminal SSE event, a verified callback). poll_url stays the
 * source of truth (spec 8.5, 9): a push only makes us look now. When the look fails, or the service
 * still says the case is open, the watcher is asked to look again at once.
 */
import type { Engine } from '../cases/engine.ts';
import { settleByPoll } from '../cases/tap.ts';
import type { StoredCase } from '../cases/types.ts';
import { isTerminal } from '../protocol/types.ts';

/**
 * Whether a tap of this process is submitting the case now (its claim is ours and live). Its own
 * confirming poll then settles the case with who submitted it, in one write, so a poll or a push
 * waits for the claim's end instead of applying the completion first (a waiting agent would see it
 * without submitted_by). A claim of another process is not waited for: that process may be dead
 * (its claim outlives it), and the tap adds submitted_by after a completion it did not write.
 */
export function tapInFlightHere(
  engine: Pick<Engine, 'instanceId' | 'now'>,
  c: StoredCase,
): c is StoredCase & { claim: NonNullable<StoredCase['claim']> } {
  return (
    !!c.claim &&
    c.claim.until > engine.now() &&
    c.claim.holder.startsWith(`${engine.instanceId}:`) &&
    !isTerminal(c.status)
  );
}

/** Polls the case once and applies what the service says; returns the case as it then stands. */
export async function confirmByPoll(engine: Engine, id: string): Promise<StoredCase | undefined> {
  const before = await engine.store.getCase(id);
  if (before && tapInFlightHere(engine, before)) {
    await pollSoon(engine, before, before.claim.until);
    return before;
  }
  if (!before) return undefined;
  // The case just read is where the poll starts and, when nothing changed, what stands.
  const c = (await settleByPoll(engine, id, { known: before })) ?? before;
  if (!isTerminal(c.status)) await pollSoon(engine, c);
  return c;
}

/** Pulls the case's next poll forward to `at` (default now), keeping its ETag and failure count. */
export async function pollSoon(engine: Engine, c: StoredCase, at = engine.now()): Promise<void> {
  if (c.next_check_at !== null && c.next_check_at <= at) return;
  await engine.store.updateWatch(c.id, {
    next_check_at: at,
    etag: c.etag,
    poll_failures: c.poll_failures,
  });
}
