/** In-process fan-out of case events to live SSE subscribers. */
import type { ReviewEvent } from './types.ts';

interface Subscriber {
  onEvent(event: ReviewEvent): void;
  onClose(): void;
}

/** Per-case subscriber lists; publishing is synchronous so no event slips between replay and live. */
export class EventHub {
  private readonly subscribers = new Map<string, Set<Subscriber>>();

  /** Subscribes to one case's events; returns the unsubscribe function. */
  subscribe(caseId: string, onEvent: Subscriber['onEvent'], onClose: Subscriber['onClose']) {
    const sub: Subscriber = { onEvent, onClose };
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

  /** Delivers an event to the case's subscribers. */
  publish(event: ReviewEvent): void {
    for (const sub of this.subscribers.get(event.case_id) ?? []) sub.onEvent(event);
  }

  /** Ends every live stream (service shutdown). */
  closeAll(): void {
    for (const set of this.subscribers.values()) for (const sub of set) sub.onClose();
    this.subscribers.clear();
  }
}
