/** Editing one posted card to its case's current version; a card gone from its chat is left alone. */
import type { PlatformAdapter } from '../adapter.ts';
import { PlatformError } from '../errors.ts';
import type { Logger } from '../log.ts';
import type { Card } from '../render/card.ts';
import type { Store } from '../store/store.ts';
import type { StoredMessage } from '../store/types.ts';
import type { CaseRepository } from './repository.ts';

/** What editing a card touches. */
export interface CardEditDeps {
  readonly store: Pick<Store, 'updateMessage'>;
  readonly adapters: ReadonlyMap<string, PlatformAdapter>;
  readonly log: Logger;
  readonly cases: Pick<CaseRepository, 'history' | 'events'>;
}

/**
 * Errors that mean the message cannot be edited again: it was deleted, or the bot lost the chat
 * (removed, archived, migrated). Retrying would fail forever; the message is marked 'gone'.
 */
function goneReason(err: unknown): string | null {
  if (!(err instanceof PlatformError)) return null;
  return err.code === 'not_found' || err.code === 'forbidden' ? err.code : null;
}

/** Edits message `m` of case `id` to `card` (the case at `version`) and records how it went. */
export async function editCard(
  d: CardEditDeps,
  id: string,
  m: StoredMessage,
  card: Card,
  version: number,
): Promise<void> {
  const { store, log } = d;
  const adapter = d.adapters.get(m.platform);
  if (!adapter || !m.ref_id) return;
  try {
    await adapter.update({ platform: m.platform, address: m.address, id: m.ref_id }, card);
    d.cases.events.emit('edit', m.platform, 'ok'); // metrics
    // Written unconditionally: if another replica's newer edit landed first, the row then says
    // it is behind again and the next reconcile edits it once more, so cards converge.
    await store.updateMessage({ ...m, rendered_version: version, error: null });
  } catch (err) {
    const error = err instanceof Error ? err.message : String(err);
    d.cases.events.emit('edit', m.platform, 'failed', error); // metrics
    const gone = goneReason(err);
    if (gone) {
      // Deleted, or the bot lost the chat: stop editing it; the case and other targets go on.
      await store.updateMessage({ ...m, state: 'gone', error });
      await d.cases.history(id, 'message_gone', {
        target: m.target,
        reason: gone,
        error,
      });
      log.warn(
        { case: id, target: m.target, err: error },
        'the card is gone from its chat; no more edits (POST /v1/cases/:id/repost posts it again)',
      );
      return;
    }
    await store.updateMessage({ ...m, error });
    log.warn({ case: id, target: m.target, err: error }, 'updating a card failed; will retry');
  }
}
