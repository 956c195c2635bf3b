/**
 * The I/O of Discord asks beyond selects: each open card's ask content (no secrets) is kept in the
 * kv while the card is open, so a tap on "Answer…" or "Rank…" can build its modal or select on any
 * replica; the interaction flow answers with the modal, the ranking steps and refusals.
 */
import type { AdapterContext } from '../../src/adapter.ts';
import type { AskContent } from '../../src/asks/content.ts';
import type { Card } from '../../src/render/card.ts';

const askKey = (key: string) => `discord:ask:${key}`;
/** Kept a little longer than the longest ask (30 days). */
const ASK_TTL_MS = 31 * 86_400_000;

/** Stores the card's ask while it is open (and forgets it once the card is final). */
export async function rememberAsk(ctx: AdapterContext | null, card: Card): Promise<void> {
  if (!ctx) return;
  if (card.ask && !card.final)
    await ctx.kv.set(askKey(card.key), JSON.stringify(card.ask.content), ASK_TTL_MS);
  else if (card.final) await ctx.kv.set(askKey(card.key), '', 1);
}

/** The ask content of an open card, or undefined. */
export async function loadAsk(ctx: AdapterContext, key: string): Promise<AskContent | undefined> {
  const raw = await ctx.kv.get(askKey(key));
  if (!raw) return undefined;
  try {
    return JSON.parse(raw) as AskContent;
  } catch {
    return undefined;
  }
}
