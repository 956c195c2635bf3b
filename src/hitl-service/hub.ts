/**
 * Wakes live SSE subscribers of a case. A wake carries no event: the subscriber reads what is new
 * from the store, so events committed here and by other replicas (heard through the store's
 * change feed) reach it the same way, in sequence order.
 */

interface Subscriber {
  onWake(): void;
  onClose(): void;
}

/** Per-case subscriber lists. */
export class EventHub {
  private readonly subscribers = new Map<string, Set<Subscriber>>();

  /** Subscribes to one case's wakes; returns the unsubscribe function. */
  subscribe(caseId: string, onWake: Subscriber['onWake'], onClose: Subscriber['onClose']) {
    const sub: Subscriber = { onWake, onClose };
    let set = this.subscribers.get(caseId);
    if (!set) {
      set = new Set();
      this.subscribers.set(caseId, set);
    }
    set.add(sub);
    return () => {
      const current = this.subscribers.get(caseId);
      current?.delete(sub);
      if (current?.size === 0) this.subscribers.delete(caseId);
    };
  }

  /** Tells a case's subscribers that it changed. */
  wake(caseId: string): void {
    for (const sub of this.subscribers.get(caseId) ?? []) sub.onWake();
  }

  /** Wakes every subscriber (changes may have been missed while the change feed was down). */
  wakeAll(): void {
    for (const set of this.subscribers.values()) for (const sub of set) sub.onWake();
  }

  /** Ends every live stream (service shutdown). */
  closeAll(): void {
    for (const set of this.subscribers.values()) for (const sub of set) sub.onClose();
    this.subscribers.clear();
  }
}
