/**
 * Cases nobody can see: a case that no target has shown within the delivery timeout ends its
 * waiters (delivery_failed), and a card that arrives after all takes the mark away again.
 */
import { postUnderWay } from './cases/posting-lease.ts';
import type { CaseRepository } from './cases/repository.ts';
import type { RelayConfig } from './config/config.ts';
import type { Logger } from './log.ts';
import { isTerminal } from './protocol/types.ts';
import { giveUpDelivery } from './server/intake-delivery.ts';
import type { Store } from './store/store.ts';
import type { StoredCase, StoredMessage } from './store/types.ts';

/** What watching delivery touches. */
export interface UndeliveredDeps {
  store: Pick<Store, 'getCase' | 'listMessages' | 'kv'>;
  cases: Pick<CaseRepository, 'mutate' | 'history' | 'events'>;
  config: Pick<RelayConfig, 'deliveryTimeoutMs'>;
  log: Logger;
  now: () => number;
}

/**
 * Marks the cases that no target has shown within the delivery timeout, from the stale messages a
 * reconcile pass began with (each candidate is read again: the pass may have posted it since).
 */
export async function giveUpUndelivered(
  d: UndeliveredDeps,
  stale: readonly StoredMessage[],
): Promise<void> {
  const timeoutMs = d.config.deliveryTimeoutMs;
  const cutoff = d.now() - timeoutMs;
  const ids = new Set(stale.filter((m) => m.state === 'posting').map((m) => m.case_id));
  for (const id of ids) {
    const c = await d.store.getCase(id);
    if (!c || isTerminal(c.status) || c.doc.delivery_failed || c.created_at > cutoff) continue;
    const messages = await d.store.listMessages(id);
    if (messages.some((m) => m.state === 'posted')) continue;
    // A card waiting its turn in a platform's send pace is on its way: giving up would tell the
    // waiters nobody will see it. A failing post records an error; a dead holder is not alive.
    if (await anyUnderWay(d, messages)) continue;
    const errors = messages.map((m) => `${m.target}: ${m.error ?? 'not posted yet'}`).join('; ');
    await giveUpDelivery(
      d,
      id,
      `not shown within ${Math.round(timeoutMs / 100) / 10} s (${errors})`,
    );
  }
}

async function anyUnderWay(d: UndeliveredDeps, messages: StoredMessage[]): Promise<boolean> {
  for (const m of messages) if (await postUnderWay(d.store.kv, m)) return true;
  return false;
}

/**
 * A card that arrives after all (the platform came back) takes the given-up mark away again.
 * `c` is the case as the post began. Nothing marks a case given up before it is half the delivery
 * timeout old (the reconcile loop waits the whole timeout; a case whose every post was refused at
 * intake has none that succeeds), so a young case without the mark is not read again.
 */
export function clearGivenUpOnPost(d: UndeliveredDeps): void {
  d.cases.events.on('posted', (id: string, c: StoredCase | undefined) => {
    if (c && !c.doc.delivery_failed && d.now() - c.created_at < d.config.deliveryTimeoutMs / 2)
      return;
    void d.cases
      .mutate(id, (x) => {
        if (!x.doc.delivery_failed) return false;
        delete x.doc.delivery_failed;
        return true;
      })
      .catch(() => {});
  });
}
