/**
 * The earlier rounds of a multi-round chain, earliest first. Stored with the case when it is
 * linked (intake, or the service naming the next round), so a card render or a post reads no case
 * to know its round or its thread; a case stored before that falls back to walking previous_id.
 */
import type { Store } from '../store/store.ts';
import type { StoredCase } from '../store/types.ts';

/** The most rounds a chain keeps (a longer one is cut at its earliest end). */
export const MAX_ROUNDS = 50;

/** The ids of the rounds before `c`, earliest first. */
export async function earlierRounds(
  store: Pick<Store, 'getCase'>,
  c: StoredCase,
): Promise<string[]> {
  if (c.doc.chain) return c.doc.chain;
  const ids: string[] = [];
  for (let id = c.doc.previous_id; id && ids.length < MAX_ROUNDS - 1; ) {
    ids.unshift(id);
    id = (await store.getCase(id))?.doc.previous_id;
  }
  return ids;
}

/** The chain of a case that follows `previous`. */
export async function chainAfter(
  store: Pick<Store, 'getCase'>,
  previous: StoredCase,
): Promise<string[]> {
  return [...(await earlierRounds(store, previous)), previous.id].slice(-(MAX_ROUNDS - 1));
}
