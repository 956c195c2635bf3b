/** A platform's delivery receipt (AdapterContext.recordDelivery) as a history row of its card's case. */
import type { DeliveryStatus, MessageRef } from '../adapter.ts';
import type { Store } from '../store/store.ts';
import type { CaseRepository } from './repository.ts';

/** Records `status` on the case whose card is at `card`; false when no case has that card. */
export async function recordDeliveryStatus(
  d: { store: Pick<Store, 'findMessageByRef'>; cases: Pick<CaseRepository, 'history'> },
  card: MessageRef,
  status: DeliveryStatus,
): Promise<boolean> {
  const m = await d.store.findMessageByRef(card.platform, card.id);
  if (!m) return false;
  await d.cases.history(m.case_id, 'message_status', {
    target: m.target,
    message: status.message,
    state: status.state,
    at: status.at,
    ...(status.error ? { error: status.error.slice(0, 300) } : {}),
  });
  return true;
}
