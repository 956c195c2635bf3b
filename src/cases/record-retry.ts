/**
 * A card that was posted but whose record could not be written (a full disk, a store that went
 * away): the message exists in the chat, so posting it again would leave two cards. The record is
 * retried instead, with backoff, while this process keeps the post's lease (no one re-posts it).
 * Should the process die first, the lease lapses and the card is posted again (`post_retaken`).
 */
import type { Logger } from '../log.ts';

/** Backoff of the retries: 250 ms doubling to 30 s. */
const FIRST_MS = 250;
const MAX_MS = 30_000;

/** Retries `write` until it succeeds; `done` runs once it did. Timers do not keep the process up. */
export function retryRecord(
  write: () => Promise<void>,
  log: Logger,
  what: Record<string, unknown>,
  done: () => void,
): void {
  let wait = FIRST_MS;
  const attempt = () => {
    write().then(done, (err: unknown) => {
      log.warn(
        { ...what, err: err instanceof Error ? err.message : String(err), retry_ms: wait },
        'a posted card is not recorded yet (sent, record missing); retrying the record, not the post',
      );
      wait = Math.min(MAX_MS, wait * 2);
      setTimeout(attempt, wait).unref();
    });
  };
  setTimeout(attempt, FIRST_MS).unref();
}
