/**
 * The I/O of Discord asks beyond selects: each open card's ask content (no secrets) is kept in the
 * kv while the card is open, so a tap on "Answer…" or "Rank…" can build its modal or select on any
 * replica; the interaction flow answers with the modal, the ranking steps and refusals.
 */
import type { AdapterContext, MessageRef, Tap } from '../../src/adapter.ts';
import type { AskContent } from '../../src/asks/content.ts';
import { probeAction } from '../../src/asks/inputs.ts';
import type { Card } from '../../src/render/card.ts';

export type { AskContent } from '../../src/asks/content.ts';

const askKey = (key: string) => `discord:ask:${key}`;
/** Kept a little longer than the longest ask (30 days). */
const ASK_TTL_MS = 31 * 86_400_000;

/** Stores the card's ask while it is open (and forgets it once the card is final). */
export async function rememberAsk(ctx: AdapterContext | null, card: Card): Promise<void> {
  if (!ctx) return;
  if (card.ask && !card.final)
    await ctx.kv.set(askKey(card.key), JSON.stringify(card.ask.content), ASK_TTL_MS);
  else if (card.final) await ctx.kv.delete(askKey(card.key));
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

/**
 * The text a tap by `user` would be refused with now (AdapterContext.mayAnswer: allowlist, approval
 * policy, closed case), asked before a modal or a ranking collects anything; null when they may go on.
 */
export async function askRefusal(
  ctx: AdapterContext,
  key: string,
  content: AskContent,
  user: Tap['user'],
  ref: MessageRef | null,
): Promise<string | null> {
  if (!ctx.mayAnswer) return null;
  const probe: Tap = { platform: 'discord', key, action: probeAction(content), user, ref };
  try {
    return (await ctx.mayAnswer(probe))?.text ?? null;
  } catch (error) {
    // The answer is checked again when it is submitted; a failed look-up only delays a refusal.
    ctx.log.warn(
      { err: error instanceof Error ? error.message : String(error) },
      'discord ask: may-answer check failed',
    );
    return null;
  }
}
