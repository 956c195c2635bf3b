/**
 * Retention: final cases are kept for RETENTION_DAYS (their submit token and service credentials
 * are wiped the moment they end, in cases/status.ts), then deleted with their messages, history
 * and notify deliveries; expired key-values (leases, claims, marks) are deleted too. Safe
 * on every replica at once: each pass deletes what is due, whoever runs it.
 */
import type { Logger } from '../log.ts';
import type { Store } from './store.ts';

/** How retention runs. */
export interface RetentionOptions {
  /** How long a final case is kept after its last change; 0 keeps cases for ever. */
  retentionMs: number;
  /** Time between passes. */
  intervalMs?: number;
  /** Cases deleted per statement (a pass repeats until fewer are due). */
  batch?: number;
}

/** One retention pass; returns what it deleted. */
export async function purgeOnce(
  store: Pick<Store, 'purgeClosed' | 'purgeExpiredKv'>,
  o: RetentionOptions,
  now: number,
): Promise<{ cases: number; kv: number }> {
  const batch = o.batch ?? 500;
  let cases = 0;
  if (o.retentionMs > 0)
    for (;;) {
      const n = await store.purgeClosed(now - o.retentionMs, batch);
      cases += n;
      if (n < batch) break;
    }
  return { cases, kv: await store.purgeExpiredKv(now) };
}

/** Runs a pass now and then every interval until stopped. */
export function startRetention(
  store: Pick<Store, 'purgeClosed' | 'purgeExpiredKv'>,
  o: RetentionOptions,
  now: () => number,
  log: Logger,
): { stop(): void } {
  let running = false;
  const pass = async () => {
    if (running) return;
    running = true;
    try {
      const r = await purgeOnce(store, o, now());
      if (r.cases || r.kv) log.info(r, 'retention: deleted final cases and expired key-values');
    } catch (err) {
      log.warn({ err: (err as Error).message }, 'retention pass failed; it runs again later');
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void pass(), o.intervalMs ?? 3_600_000);
  timer.unref();
  void pass();
  return { stop: () => clearInterval(timer) };
}
