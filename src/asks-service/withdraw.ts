/**
 * Withdrawing an ask the agent no longer waits for (an MCP client cancelled its call): the asks
 * service cancels the case, and the relay sees the cancel as it sees any service's (its event
 * stream), so the cards are edited to say so and nobody answers a question nobody waits for.
 */
import type { HitlService } from '../hitl-service/index.ts';
import type { StoredCase } from '../store/types.ts';
import type { AskDeps } from './asks.ts';

/** Cancels `c` at the asks service with `reason` (shown on its cards). */
export async function withdrawAsk(
  relay: Pick<AskDeps, 'log'>,
  asks: Pick<HitlService, 'act'>,
  c: StoredCase,
  reason: string,
): Promise<void> {
  await asks.act(c.case_id, { step: 'cancel', reason });
  relay.log.info({ id: c.id, case_id: c.case_id }, 'ask withdrawn');
}
