/**
 * A short notice in the thread of every posted card of a case (reminders, expiry warnings): each
 * adapter's `notify`, mentioning nobody; a card whose notice fails gets a history row, the others
 * are not held up by it.
 */
import type { PlatformAdapter } from '../adapter.ts';
import type { CaseRepository } from '../cases/repository.ts';
import type { Logger } from '../log.ts';
import type { Store } from '../store/store.ts';

/** What sending notices touches. */
export interface CardNoticeDeps {
  store: Pick<Store, 'listMessages'>;
  cases: Pick<CaseRepository, 'history'>;
  adapters: ReadonlyMap<string, PlatformAdapter>;
  log: Logger;
}

/** Cuts `s` to `max` characters (whitespace folded), with an ellipsis when cut. */
export function shorten(s: string, max: number): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  const chars = Array.from(flat);
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : flat;
}

/**
 * Sends `text` in the thread of every posted card of case `id`; `failed` names the history row of a
 * card that could not be told. Returns the targets that were told.
 */
export async function noticeEveryCard(
  d: CardNoticeDeps,
  id: string,
  text: string,
  link: { label: string; url: string } | null,
  failed: string,
): Promise<string[]> {
  const messages = (await d.store.listMessages(id)).filter((m) => m.state === 'posted');
  const told: string[] = [];
  await Promise.all(
    messages.map(async (m) => {
      const adapter = d.adapters.get(m.platform);
      if (!adapter || !m.ref_id) return;
      try {
        await adapter.notify(
          { platform: m.platform, address: m.address, id: m.ref_id },
          text,
          link,
        );
        told.push(m.target);
      } catch (err) {
        const error = err instanceof Error ? err.message : String(err);
        await d.cases.history(id, failed, { target: m.target, error });
        d.log.warn(
          { case: id, target: m.target, err: error, kind: failed },
          'a notice on a card failed',
        );
      }
    }),
  );
  return told.sort();
}
