/** Prometheus metrics (prom-client), one registry per relay. */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { Store } from '../cases/store.ts';

/** The relay's metrics. */
export interface Metrics {
  registry: Registry;
  ingested: Counter<'created'>;
  taps: Counter<'platform' | 'outcome'>;
  tapSeconds: Histogram<'platform'>;
}

/** Creates the registry; the case gauge reads the store when scraped. */
export function createMetrics(store: Store): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
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
  return {
    registry,
    ingested: new Counter({
      name: 'hitl_relay_ingested_total',
      help: 'Cases taken in',
      labelNames: ['created'],
      registers: [registry],
    }),
    taps: new Counter({
      name: 'hitl_relay_taps_total',
      help: 'Taps by outcome',
      labelNames: ['platform', 'outcome'],
      registers: [registry],
    }),
    tapSeconds: new Histogram({
      name: 'hitl_relay_tap_seconds',
      help: 'Time from a tap reaching the engine to its reply',
      labelNames: ['platform'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
  };
}
