/** The SSE client's dependencies and tuning (sse.ts). */
import type { CaseRepository } from '../cases/repository.ts';
import type { RelayConfig } from '../config/config.ts';
import type { Logger } from '../log.ts';
import type { createGuardedAgent } from '../net/http.ts';
import type { ConfirmDeps } from '../service-client/confirm-by-poll.ts';
import type { Store } from '../store/store.ts';

/** What the event streams touch. */
export interface EventStreamsDeps extends ConfirmDeps {
  store: Pick<Store, 'getCase' | 'updateWatch' | 'kv'>;
  config: Pick<RelayConfig, 'sseMaxStreams' | 'leaseMs'> & Parameters<typeof createGuardedAgent>[0];
  cases: Pick<CaseRepository, 'history' | 'events'>;
  log: Logger;
}

/** Tuning of the SSE client; every field has a production default. */
export interface EventStreamOptions {
  /** Streams held by this process at once (default: config.sseMaxStreams). */
  maxStreams?: number;
  /** How long a stream lease lasts without renewal; renewed every third of it. */
  leaseMs?: number;
  /** Failed attempts in a row before the case is left to polling. */
  maxFailures?: number;
  backoffBaseMs?: number;
  backoffMaxMs?: number;
  /** A connection that stays open this long counts as good even without an event. */
  healthyAfterMs?: number;
  /** No byte for this long ends a connection (services send keep-alive comments). */
  idleTimeoutMs?: number;
  headersTimeoutMs?: number;
  /** After falling back, how long before the case may try a stream again. */
  fallbackForMs?: number;
  /** Largest event held in memory. */
  maxEventChars?: number;
  /** Progress-only updates of one case are applied (a card edit) at most once per this long. */
  progressEveryMs?: number;
  /** Events one case's stream may send a minute before it is closed and the case polled. */
  eventsPerMinute?: number;
  /** Events all streams of one service origin may send a minute (in this process). */
  originEventsPerMinute?: number;
}
