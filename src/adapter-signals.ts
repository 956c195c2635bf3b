/**
 * The adapters' change signals (AdapterContext.signals): in-process through the case repository's
 * events, across replicas through the store's change channel (PostgreSQL NOTIFY), which the relay
 * already turns into `change:<id>` events. A topic is named like "web:room:lobby", never like a case id.
 */
import type { EventEmitter } from 'node:events';
import type { AdapterSignals } from './adapter.ts';
import type { Logger } from './log.ts';

export interface SignalsDeps {
  events: EventEmitter;
  /** The event emitted when changes from other processes may have been missed. */
  missedEvent: string;
  /** Tells the other processes (absent: one process owns the store). */
  publishRemote?: ((topics: string[]) => Promise<void>) | undefined;
  log: Logger;
}

/** Signals over `events`, published to other replicas through `publishRemote`. */
export function createAdapterSignals(deps: SignalsDeps): AdapterSignals {
  const { events, missedEvent, publishRemote, log } = deps;
  return {
    publish(...topics) {
      if (topics.length === 0) return;
      for (const topic of topics) events.emit(`change:${topic}`);
      publishRemote?.(topics).catch((err: unknown) =>
        // The other replicas' waiting clients then wake at their own timeout instead.
        log.warn(
          { topics, err: err instanceof Error ? err.message : String(err) },
          'change signal not published',
        ),
      );
    },
    subscribe(topic, onChange) {
      const event = `change:${topic}`;
      events.on(event, onChange);
      events.on(missedEvent, onChange);
      return () => {
        events.off(event, onChange);
        events.off(missedEvent, onChange);
      };
    },
  };
}
