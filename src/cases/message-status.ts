/** A platform's delivery receipt (sent, delivered, read, failed) as a history row of its case. */
import type { DeliveryStatus, MessageRef } from '../adapter.ts';
import type { Store } from '../store/store.ts';
import type { CaseRepository } from './repository.ts';

/** Records `status` of the card `card` on its case; false when no stored message is that card. */
export async function recordMessageStatus(
  deps: { store: Pick<Store, 'findMessageByRef'>; cases: Pick<CaseRepository, 'history'> },
  card: MessageRef,
  status: DeliveryStatus,
): Promise<boolean> {
  const m = await deps.store.findMessageByRef(card.platform, card.id);
  if (!m) return false;
  await deps.cases.history(m.case_id, 'message_status', {
    target: m.target,
    message: status.message,
    state: status.state,
    at: status.at,
    // A platform's error text is bounded: it is shown in the case view.
    ...(status.error ? { error: status.error.slice(0, 300) } : {}),
  });
  return true;
}
