/**
 * Retention: final cases are kept for RETENTION_DAYS (their submit token and service credentials
 * are wiped the moment they end, in cases/status.ts), then deleted with their messages, history
 * and notify deliveries; expired key-values (leases, claims, marks) are deleted too. Safe
 * on every replica at once: each pass deletes what is due, whoever runs it.
 *
 * Review URLs are not stored long-term (HITL v0.9 agent checklist: "Do NOT store review URLs
 * long-term. URLs contain time-limited opaque tokens. They expire."): a final case's review_url is
 * dropped from its sealed secrets once the case has ended and the URL's validity has passed: at the
 * case's expires_at (the spec's review page shows "expired" after it), and never later than
 * REVIEW_URL_GRACE_MS after the end (a far expires_at, or none, is not a licence to keep it).
 */
import type { Logger } from '../log.ts';
import type { Store } from './store.ts';

/** Longest a final case keeps its review_url after it ended: one day (a late look at the answer). */
export const REVIEW_URL_GRACE_MS = 86_400_000;

/**
 * When the review_url of a case that ended at `endedAt` is dropped: its expires_at when that is
 * later than the end, but at most REVIEW_URL_GRACE_MS after it (also when expires_at is unreadable).
 */
export function reviewUrlDropAt(expiresAt: string | undefined, endedAt: number): number {
  const expires = expiresAt ? Date.parse(expiresAt) : Number.NaN;
  const latest = endedAt + REVIEW_URL_GRACE_MS;
  return Math.ceil(
    Number.isFinite(expires) ? Math.min(Math.max(expires, endedAt), latest) : latest,
  );
}

/** How retention runs. */
export interface RetentionOptions {
  /** How long a final case is kept after its last change; 0 keeps cases for ever. */
  retentionMs: number;
  /** Time between passes. */
  intervalMs?: number;
  /** Cases deleted per statement (a pass repeats until fewer are due). */
  batch?: number;
  /** Sealed secrets without a review_url: given, each pass drops the review URLs that are due. */
  retiredSecrets?: string;
}

type RetentionStore = Pick<Store, 'purgeClosed' | 'purgeExpiredKv' | 'dropReviewUrls'>;

/** Runs `step` in batches until a batch is short; returns the total. */
async function drain(step: (limit: number) => Promise<number>, batch: number): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await step(batch);
    total += n;
    if (n < batch) return total;
  }
}

/** One retention pass; returns what it deleted. */
export async function purgeOnce(
  store: RetentionStore,
  o: RetentionOptions,
  now: number,
): Promise<{ cases: number; kv: number; reviewUrls: number }> {
  const batch = o.batch ?? 500;
  const retired = o.retiredSecrets;
  const reviewUrls = retired ? await drain((n) => store.dropReviewUrls(now, retired, n), batch) : 0;
  const cases =
    o.retentionMs > 0 ? await drain((n) => store.purgeClosed(now - o.retentionMs, n), batch) : 0;
  return { cases, kv: await store.purgeExpiredKv(now), reviewUrls };
}

/** Runs a pass now and then every interval until stopped. */
export function startRetention(
  store: RetentionStore,
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
      if (r.cases || r.kv || r.reviewUrls)
        log.info(r, 'retention: deleted final cases and expired key-values, dropped review URLs');
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
