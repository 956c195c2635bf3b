/** What the watch loop and its looks touch (watcher.ts, looker.ts). */
import type { CaseRepository } from '../cases/repository.ts';
import type { RelayConfig } from '../config/config.ts';
import type { UnknownSubmitDeps } from '../service-client/unknown-submit.ts';
import type { Store } from '../store/store.ts';
import type { StoredCase } from '../store/types.ts';

/** What the watch loop touches. */
export interface WatcherDeps extends UnknownSubmitDeps {
  store: Pick<
    Store,
    | 'getCase'
    | 'updateWatch'
    | 'updateWatchMany'
    | 'leaseDue'
    | 'heldCases'
    | 'rescheduleOpen'
    | 'releaseWatchLeases'
    | 'releaseClaim'
  >;
  config: Pick<RelayConfig, 'pollMinMs' | 'pollMaxMs' | 'leaseMs'>;
  cases: Pick<CaseRepository, 'mutate' | 'patchDoc' | 'history' | 'events'>;
  /** Names this process in poll leases. */
  instanceId: string;
}

/** What else has a say after each look at an open case (event streams, reminders). */
export interface WatchHooks {
  /** Runs after each poll of a case that is still open (sends due reminders, starts its stream). */
  afterCheck?(c: StoredCase): Promise<void>;
  /** True while the case's event stream is up: its next poll may then wait up to pollMax. */
  streaming?(c: StoredCase): Promise<boolean>;
  /** The next time the case needs a look besides polling (its next reminder), if any. */
  wakeAt?(c: StoredCase): number | undefined;
}
