/**
 * Pages waiting for their room to change (long-poll): a wait sleeps on the room's change signal
 * (this replica's writes, and other replicas' through AdapterContext.signals), never on a timer
 * that reads the store. Bounded: a few waits per client and a cap on all of them.
 */
import { EventEmitter } from 'node:events';
import type { AdapterSignals } from '../../src/adapter.ts';

/** Longest wait a page may ask for; it then asks again (proxies cut idle requests at ~60 s). */
export const WEB_WAIT_MAX_SECONDS = 30;
/** Waits one client (address) may hold at once: a few tabs; more are answered 429. */
export const WEB_WAITS_PER_CLIENT = 4;
/** Waits held at once by all clients of this replica. */
export const WEB_WAITS_MAX = 2000;

/** The signal topic of a room. */
export const roomTopic = (room: string) => `web:room:${room}`;
/** The signal topic of every room at once: the inbox waits on it (published with each room's). */
export const INBOX_TOPIC = 'web:rooms';

/** Signals within this process only (an adapter started without AdapterContext.signals). */
export function localSignals(): AdapterSignals {
  const events = new EventEmitter();
  events.setMaxListeners(0);
  return {
    publish: (...topics) => {
      for (const topic of topics) events.emit(topic);
    },
    subscribe(topic, onChange) {
      events.on(topic, onChange);
      return () => events.off(topic, onChange);
    },
  };
}

/** Why a wait ended. */
export type WaitEnd = 'changed' | 'timeout' | 'aborted';

/** One admitted wait: subscribed before the room is read, so no change falls in between. */
export interface RoomWait {
  /** Resolves at the next change (at once when one came since the last call), timeout or abort. */
  next(untilMs: number): Promise<WaitEnd>;
  close(): void;
}

/** The waits of one replica, with their bounds. */
export class RoomWaits {
  private readonly perClient = new Map<string, number>();
  private total = 0;

  constructor(
    private readonly signals: () => AdapterSignals,
    private readonly limits = { perClient: WEB_WAITS_PER_CLIENT, max: WEB_WAITS_MAX },
  ) {}

  /** Waits held now (for tests and metrics). */
  get size(): number {
    return this.total;
  }

  /** A wait on `room` for `client`, or null when a bound is reached. */
  open(
    room: string,
    client: string,
    signal?: AbortSignal,
    topic = roomTopic(room),
  ): RoomWait | null {
    const held = this.perClient.get(client) ?? 0;
    if (held >= this.limits.perClient || this.total >= this.limits.max) return null;
    this.perClient.set(client, held + 1);
    this.total++;
    let changed = false;
    let wake: ((end: WaitEnd) => void) | null = null;
    const onChange = () => {
      changed = true;
      wake?.('changed');
    };
    const onAbort = () => wake?.('aborted');
    const unsubscribe = this.signals().subscribe(topic, onChange);
    signal?.addEventListener('abort', onAbort);
    let closed = false;
    return {
      next: (untilMs) => {
        if (changed) {
          changed = false;
          return Promise.resolve('changed');
        }
        if (signal?.aborted) return Promise.resolve('aborted');
        return new Promise<WaitEnd>((resolve) => {
          const timer = setTimeout(() => wake?.('timeout'), Math.max(0, untilMs - Date.now()));
          wake = (end) => {
            wake = null;
            changed = false;
            clearTimeout(timer);
            resolve(end);
          };
        });
      },
      close: () => {
        if (closed) return;
        closed = true;
        wake?.('aborted');
        unsubscribe();
        signal?.removeEventListener('abort', onAbort);
        this.total--;
        const left = (this.perClient.get(client) ?? 1) - 1;
        if (left > 0) this.perClient.set(client, left);
        else this.perClient.delete(client);
      },
    };
  }
}
