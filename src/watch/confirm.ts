/**
 * The confirming poll after a push (a terminal SSE event, a verified callback). poll_url stays the
 * source of truth (spec 8.5, 9): a push only makes us look now. When the look fails, or the service
 * still says the case is open, the watcher is asked to look again at once.
 */
import type { Engine } from '../cases/engine.ts';
import { settleByPoll } from '../cases/tap.ts';
import type { StoredCase } from '../cases/types.ts';
import { isTerminal } from '../protocol/types.ts';

/** Polls the case once and applies what the service says; returns the case as it then stands. */
export async function confirmByPoll(engine: Engine, id: string): Promise<StoredCase | undefined> {
  const before = await engine.store.getCase(id);
  // A tap's submit is in flight (its claim is live): its own confirming poll settles the case, with
  // who submitted it, in one write. Should its process die, the case is looked at when the claim lapses.
  if (before?.claim && before.claim.until > engine.now() && !isTerminal(before.status)) {
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
