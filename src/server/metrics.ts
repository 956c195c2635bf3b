/** Prometheus metrics (prom-client), one registry per relay. */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Store } from '../store/store.ts';

/** The relay's metrics. */
export interface Metrics {
  registry: Registry;
  /** The text for GET /metrics (the store is read once per scrape). */
  scrape(): Promise<string>;
  ingested: Counter<'created'>;
  taps: Counter<'platform' | 'outcome'>;
  tapSeconds: Histogram<'platform'>;
  /** Card posts by platform and outcome (posted, retry, failed). */
  posts: Counter<'platform' | 'outcome'>;
  /** Card edits by platform and outcome (ok, failed). */
  edits: Counter<'platform' | 'outcome'>;
  /** Platform calls that ended rate limited (429) after the adapter's own retries. */
  rateLimited: Counter<'platform'>;
  /** Submits by outcome and HTTP status class (2xx, 4xx, 5xx, none). */
  submits: Counter<'outcome' | 'status_class'>;
  /** Polls by outcome (status, not_modified, error). */
  polls: Counter<'outcome'>;
  /** notify_url delivery attempts by outcome (delivered, retry, failed). */
  notifies: Counter<'outcome'>;
  /** Claims taken over from a process that died mid-submit. */
  takeovers: Counter<'kind'>;
  /** Cases refused or given up because no target could show them. */
  notDelivered: Counter<'when'>;
}

/**
 * The case gauges, read from the store when scraped: one store query per scrape serves the three
 * open-case gauges. The returned function forgets that query's answer before the next scrape.
 */
function registerCaseGauges(registry: Registry, store: Store): () => void {
  new Gauge({
    name: 'hitl_relay_cases',
    help: 'Cases by status',
    labelNames: ['status'],
    registers: [registry],
    async collect() {
      for (const [status, n] of Object.entries(await store.countByStatus()))
        this.set({ status }, n);
    },
  });
  let stats: ReturnType<Store['openStats']> | undefined;
  const openStats = () => {
    stats ??= store.openStats();
    return stats;
  };
  new Gauge({
    name: 'hitl_relay_open_cases',
    help: 'Cases not yet final',
    registers: [registry],
    async collect() {
      this.set((await openStats()).open);
    },
  });
  new Gauge({
    name: 'hitl_relay_oldest_open_case_age_seconds',
    help: 'Age of the oldest case not yet final (0 when none)',
    registers: [registry],
    async collect() {
      const oldest = (await openStats()).oldestCreatedAt;
      this.set(oldest === null ? 0 : Math.max(0, (Date.now() - oldest) / 1000));
    },
  });
  new Gauge({
    name: 'hitl_relay_undelivered_cases',
    help: 'Open cases that no target shows yet',
    registers: [registry],
    async collect() {
      this.set((await openStats()).undelivered);
    },
  });
  return () => {
    stats = undefined;
  };
}

/** The counters and the tap histogram: events counted as they happen. */
function registerEventMetrics(registry: Registry): Omit<Metrics, 'registry' | 'scrape'> {
  const counter = <L extends string>(name: string, help: string, labelNames: L[]) =>
    new Counter<L>({ name, help, labelNames, registers: [registry] });
  return {
    ingested: counter('hitl_relay_ingested_total', 'Cases taken in', ['created']),
    taps: counter('hitl_relay_taps_total', 'Taps by outcome', ['platform', 'outcome']),
    tapSeconds: new Histogram({
      name: 'hitl_relay_tap_seconds',
      help: 'Time from a tap reaching the relay to its reply',
      labelNames: ['platform'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    posts: counter('hitl_relay_posts_total', 'Card posts by outcome', ['platform', 'outcome']),
    edits: counter('hitl_relay_edits_total', 'Card edits by outcome', ['platform', 'outcome']),
    rateLimited: counter(
      'hitl_relay_platform_rate_limited_total',
      'Platform calls that ended rate limited (429)',
      ['platform'],
    ),
    submits: counter('hitl_relay_submits_total', 'Submits by outcome and HTTP status class', [
      'outcome',
      'status_class',
    ]),
    polls: counter('hitl_relay_polls_total', 'Polls by outcome', ['outcome']),
    notifies: counter('hitl_relay_notify_deliveries_total', 'notify_url attempts by outcome', [
      'outcome',
    ]),
    takeovers: counter('hitl_relay_lease_takeovers_total', 'Claims taken over', ['kind']),
    notDelivered: counter(
      'hitl_relay_not_delivered_total',
      'Cases no target could show (refused at intake, or given up later)',
      ['when'],
    ),
  };
}

/** Creates the registry; the case gauges read the store when scraped, SSE from `sseStreams`. */
export function createMetrics(store: Store, sseStreams: () => number = () => 0): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const newScrape = registerCaseGauges(registry, store);
  new Gauge({
    name: 'hitl_relay_sse_connections',
    help: 'Event streams (SSE) this process holds open to services',
    registers: [registry],
    collect() {
      this.set(sseStreams());
    },
  });
  return {
    registry,
    scrape() {
      newScrape();
      return registry.metrics();
    },
    ...registerEventMetrics(registry),
  };
}
