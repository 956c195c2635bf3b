/** createRelay(): the whole relay (store, services, watcher, adapters, HTTP server), embeddable in any Node process. */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import type { Hono } from 'hono';
import type { PlatformAdapter } from './adapter.ts';
import type { RouteDocs } from './adapter-definition.ts';
import { closeAskByPolicy } from './asks-service/asks.ts';
import { bounded } from './bounded.ts';
import type { RelayConfig } from './config/config.ts';
import { SUBMIT_GATE_DEFAULTS } from './config/config.ts';
import { Health, NO_PLATFORM_NOTE, type Readiness } from './health.ts';
import type { HitlService } from './hitl-service/index.ts';
import { createLogger, type Logger } from './log.ts';
import { createGuardedAgent } from './net/http.ts';
import type { Resolve } from './net/url-policy.ts';
import { NotifyWorker, type NotifyWorkerOptions } from './notify/worker.ts';
import { observe } from './observe.ts';
import { RelayRuntime } from './relay-runtime.ts';
import { createApp } from './server/app.ts';
import { type MountedAsks, mountAskService } from './server/ask-routes.ts';
import { gatewayFront } from './server/gateway-front.ts';
import { createMetrics } from './server/metrics.ts';
import { mountRoute } from './server/mount-route.ts';
import { registerReceiptRoutes } from './server/receipt-routes.ts';
import { createServices, type Services } from './services.ts';
import {
  ANSWER_SEAL_PURPOSE,
  sealedAnswerStore,
  sealStoredAnswers,
} from './store/sealed-answers.ts';
import { createSealer, createTextSealer } from './store/sealer.ts';
import { openSqliteStore } from './store/sqlite-store.ts';
import type { Store } from './store/store.ts';
import type { StoredCase } from './store/types.ts';
import { clearGivenUpOnPost } from './undelivered.ts';
import type { EventStreamOptions } from './watch/sse.ts';
import { Watcher, type WatcherOptions } from './watch/watcher.ts';
import { createWatching } from './watching.ts';

/** Options of createRelay. */
export interface RelayOptions {
  config: RelayConfig;
  adapters: PlatformAdapter[];
  /** What each platform's routes are, for /openapi.json (platforms/registry.ts platformRouteDocs). */
  routeDocs?: Readonly<Record<string, RouteDocs>>;
  /** Defaults to SQLite at DATA_DIR/hitl-relay.sqlite. */
  store?: Store;
  log?: Logger;
  now?: () => number;
  /** Host-name resolution for the intake checks of agents' URLs (tests give their own). */
  resolve?: Resolve;
  watcher?: WatcherOptions;
  /** Tuning of the notify_url outbox worker (the retry schedule is config.notify). */
  notify?: NotifyWorkerOptions;
  /** Tuning of the SSE client (backoff, lease, fallback); the stream cap is config.sseMaxStreams. */
  streams?: EventStreamOptions;
  /** Mounts more routes on the server (the demo service, ...); what it returns is closed on stop. */
  mount?: (app: Hono) => { close(): void } | undefined;
  /** How long a message may sit unposted before reconcile posts it again. */
  repostAfterMs?: number;
  /** Backoff of a platform's start-up check after a network error, 5xx or 429 (retried forever). */
  startRetry?: { minMs?: number; maxMs?: number };
  /** How often unposted and outdated cards are retried, and undelivered cases looked at (default 5 s). */
  reconcileEveryMs?: number;
  /** How long stop() lets taps in flight finish (default 2.5 s). */
  drainMs?: number;
  /** Called once when a part needs a person's fix (a refused token); the CLI exits on it with EXIT_ON_FATAL=1. */
  onFatal?: (part: string, reason: string) => void;
}

/** A running (or ready to run) relay. */
export interface Relay {
  /** The relay's services (services.ts). */
  services: Services;
  app: Hono;
  /** The base URL once listening. */
  url: string;
  /** The relay's own asks service (mounted with the app; the MCP gateway's tool gate asks there). */
  readonly asks: HitlService | undefined;
  /** Each configured part (platform:<name>, store) with its state, reason and since. */
  health: Health;
  /**
   * Listens on config.host:config.port, starts adapters and the watcher, reconciles cards. A platform
   * whose check fails for a passing reason is retried in the background; one that refuses the
   * credentials is reported (log, /readyz) and the rest of the relay runs.
   */
  start(): Promise<void>;
  /** Checks the store for real and answers what /readyz shows. */
  readiness(): Promise<Readiness>;
  /**
   * Graceful stop: refuses new work, answers open /wait requests at once, lets taps in flight
   * finish (bounded), then closes the server, adapters and store; logs each step.
   */
  stop(): Promise<void>;
}

/**
 * The store: the given one or SQLite in DATA_DIR; with RELAY_SECRET_KEY, answers are sealed in it
 * (and a pass seals those older rows hold in plain text).
 */
function storeOf(o: RelayOptions, log: Logger): { store: Store; sealOld?: () => Promise<number> } {
  const inner =
    o.store ??
    openSqliteStore(join(o.config.dataDir, 'hitl-relay.sqlite'), o.now, {
      // A failing checkpoint worker is a warn line in the relay's log, not a bare stderr warning.
      checkpoint: {
        onError: (err) => log.warn({ err: err.message }, 'SQLite checkpoint worker failed'),
      },
    });
  if (!o.config.secretKey) return { store: inner };
  const store = sealedAnswerStore(inner, createTextSealer(o.config.secretKey, ANSWER_SEAL_PURPOSE));
  return { store, sealOld: () => sealStoredAnswers(store, inner) };
}

/** Builds the services from the options (and the start-up pass that seals old answers). */
function servicesOf(o: RelayOptions, log: Logger) {
  const { store, sealOld } = storeOf(o, log);
  const services: Services = createServices({
    store,
    sealer: createSealer(o.config.secretKey),
    adapters: new Map(o.adapters.map((a) => [a.platform, a])),
    config: o.config,
    log,
    dispatcher: createGuardedAgent(o.config),
    // Submits get their own connections, as many per origin as the submit gate lets run: a tap
    // never waits for a connection held by a slow poll, and its deadline starts when it is sent.
    submitDispatcher: createGuardedAgent(o.config, { connections: SUBMIT_GATE_DEFAULTS.perOrigin }),
    instanceId: `${process.pid}-${randomBytes(3).toString('hex')}`,
    ...(o.now ? { now: o.now } : {}),
    ...(o.resolve ? { resolve: o.resolve } : {}),
  });
  return { services, sealOld };
}

/** Health before start: every part starting. */
function startingHealth(adapters: PlatformAdapter[]): Health {
  const health = new Health();
  health.set('store', 'starting', 'not checked yet');
  for (const a of adapters) health.set(`platform:${a.platform}`, 'starting', 'not started yet');
  // Still ready (the API answers), but an operator looking at /readyz must see why nobody is asked.
  if (!adapters.length) health.note('platforms', NO_PLATFORM_NOTE);
  return health;
}

/** The relay's own asks service once mounted, with its start and stop hooks. */
type OwnAsks = { service?: HitlService; mounted?: Pick<MountedAsks, 'started' | 'stopping'> };

/** The final rung's hook for the relay's own asks (the service is mounted with the app). */
function ownAskCloser(asks: { service?: HitlService }) {
  return (c: StoredCase, action: string) =>
    asks.service ? closeAskByPolicy(asks.service, c, action) : Promise.resolve(false);
}

/** Creates a relay: the composition root, where every service gets what it uses. */
export function createRelay(o: RelayOptions): Relay {
  const log = o.log ?? createLogger({ level: o.config.logLevel });
  const { services, sealOld } = servicesOf(o, log);
  const health = startingHealth(o.adapters);
  // The relay's own asks service, once mounted: the ladder's final rung closes an ask there (SSE
  // streams, the callback receiver and reminders are watching's; the poll loop consults them).
  const asks: OwnAsks = {};
  const watching = createWatching(services, o.streams, ownAskCloser(asks));
  const metrics = createMetrics(services.store, () => watching.streams.count);
  observe(services, metrics);
  clearGivenUpOnPost(services);
  const runtime = new RelayRuntime({
    services,
    adapters: o.adapters,
    health,
    metrics,
    notifier: new NotifyWorker(services, {}, o.notify),
    watching,
    watcher: new Watcher(services, o.watcher, watching.hooks),
    repostAfterMs: o.repostAfterMs ?? 30_000,
    reconcileEveryMs: o.reconcileEveryMs ?? 5000,
    drainMs: o.drainMs ?? 2500,
    startRetry: o.startRetry,
    onFatal: o.onFatal,
    sealOldAnswers: sealOld,
  });
  runtime.app = createApp({
    services,
    adapters: o.adapters,
    routeDocs: o.routeDocs,
    metrics,
    health,
    readiness: () => runtime.readiness(),
    closing: () => runtime.closing,
    closed: runtime.closed.signal,
    mount: (a: Hono) => {
      mountRoute(a, watching.callbackRoute);
      registerReceiptRoutes(a, services.store, () => runtime.receipts);
      const mounted = mountAskService(a, services, log, health, metrics.registry);
      asks.service = mounted.service;
      asks.mounted = mounted;
      // The gateway's lean calls are served below hono when every rule of the app holds.
      runtime.front = gatewayFront({
        gateway: mounted.gateway,
        config: services.config,
        closing: () => runtime.closing,
        log,
      });
      runtime.mounted.push(mounted);
      const m = o.mount?.(a);
      if (m) runtime.mounted.push(m);
    },
  });
  return relayHandle(services, runtime, health, asks);
}

/** The relay as its callers hold it. */
function relayHandle(
  services: Services,
  runtime: RelayRuntime,
  health: Health,
  asks: OwnAsks,
): Relay {
  return {
    services,
    app: runtime.app,
    get url() {
      return runtime.url;
    },
    set url(v: string) {
      runtime.url = v;
    },
    health,
    get asks() {
      return asks.service;
    },
    async start() {
      await runtime.start();
      asks.mounted?.started();
    },
    readiness: () => runtime.readiness(),
    async stop() {
      // Before anything closes: the gateway's open elicitations are withdrawn while cards can be edited.
      if (!runtime.closing) await bounded(asks.mounted?.stopping() ?? Promise.resolve(), 3000);
      await runtime.stop();
    },
  };
}
