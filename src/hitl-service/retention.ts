/**
 * Retention of the service's own data (the relay's asks, issue 18): a case final for longer than
 * the period is deleted with its events, and respond requests older than it too, so storage stays
 * bounded under steady load. Safe on every replica at once: each pass deletes what is due, whoever
 * runs it. Without a period (the standalone demo) everything is kept, as before.
 */
import type { Logger } from '../log.ts';
import type { ServiceStore } from './service-store.ts';

/** How retention runs. */
export interface ServiceRetentionOptions {
  /** How long a final case (and a respond request) is kept; 0 keeps everything for ever. */
  retentionMs: number;
  /** Time between passes (default: hourly, like the relay's own retention). */
  intervalMs?: number;
  /** Rows deleted per statement (a pass repeats until fewer are due). */
  batch?: number;
}

/** What one pass deleted. */
export interface PurgeCounts {
  cases: number;
  submissions: number;
}

type Purgeable = Pick<ServiceStore, 'purgeClosed' | 'purgeSubmissions'>;

/** Runs `purge` in batches until fewer than a batch are due; the total deleted. */
async function drain(purge: (limit: number) => Promise<number>, batch: number): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await purge(batch);
    total += n;
    if (n < batch) return total;
  }
}

/** One retention pass at `now`; deletes nothing when retention is off. */
export async function purgeServiceOnce(
  store: Purgeable,
  o: ServiceRetentionOptions,
  now: number,
): Promise<PurgeCounts> {
  if (!(o.retentionMs > 0)) return { cases: 0, submissions: 0 };
  const before = now - o.retentionMs;
  const batch = o.batch ?? 500;
  return {
    cases: await drain((limit) => store.purgeClosed(before, limit), batch),
    submissions: await drain((limit) => store.purgeSubmissions(before, limit), batch),
  };
}

/** A running retention: a pass now and then every interval. */
export interface ServiceRetention {
  /** Runs a pass now (or joins the one running); what it deleted. */
  pass(): Promise<PurgeCounts>;
  /** Stops the timer and waits for a running pass, so the store can be closed under none. */
  stop(): Promise<void>;
}

/** Starts the timer when a period is set; a pass that fails is logged and tried at the next one. */
export function startServiceRetention(
  store: Purgeable,
  o: ServiceRetentionOptions,
  now: () => number,
  log: Logger,
): ServiceRetention {
  let running: Promise<PurgeCounts> | undefined;
  const run = async (): Promise<PurgeCounts> => {
    const r = await purgeServiceOnce(store, o, now());
    if (r.cases || r.submissions)
      log.info(r, 'retention: deleted final cases and respond requests');
    return r;
  };
  const pass = () => {
    running ??= run().finally(() => {
      running = undefined;
    });
    return running;
  };
  const timed = () =>
    void pass().catch((err: Error) =>
      log.warn({ err: err.message }, 'retention pass failed; it runs again later'),
    );
  let timer: NodeJS.Timeout | undefined;
  if (o.retentionMs > 0) {
    timer = setInterval(timed, o.intervalMs ?? 3_600_000);
    timer.unref();
    timed();
  }
  return {
    pass,
    async stop() {
      clearInterval(timer);
      await running?.catch(() => {});
    },
  };
}
