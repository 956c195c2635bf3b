/** createRelay(): the whole relay (store, engine, watcher, adapters, HTTP server), embeddable in any Node process. */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import type { PlatformAdapter } from './adapter.ts';
import { mountAskService } from './asks/mount.ts';
import { Engine } from './cases/engine.ts';
import { startRetention } from './cases/retention.ts';
import { createSealer } from './cases/sealer.ts';
import { openSqliteStore } from './cases/sqlite-store.ts';
import type { Store } from './cases/store.ts';
import { handleTap } from './cases/tap.ts';
import type { StoredCase } from './cases/types.ts';
import type { RelayConfig } from './config/config.ts';
import { createLogger, type Logger } from './log.ts';
import { createGuardedAgent } from './net/http.ts';
import { NotifyWorker, type NotifyWorkerOptions } from './notify/worker.ts';
import { inlineActions } from './protocol/actions.ts';
import { isTerminal } from './protocol/types.ts';
import { createReceiptIssuer, type ReceiptIssuer } from './receipts/issuer.ts';
import { createSigner, loadSigningKey, type ReceiptSigner } from './receipts/keys.ts';
import { createApp, mountRoute } from './server/app.ts';
import { detailsLinkKey } from './server/link-key.ts';
import { createMetrics } from './server/metrics.ts';
import { registerReceiptRoutes } from './server/receipt-routes.ts';
import { SUBMIT_GATE_DEFAULTS } from './submit/transport.ts';
import type { EventStreamOptions } from './watch/sse.ts';
import { Watcher, type WatcherOptions } from './watch/watcher.ts';
import { createWatching } from './watch/watching.ts';

/** Options of createRelay. */
export interface RelayOptions {
  config: RelayConfig;
  adapters: PlatformAdapter[];
  /** Defaults to SQLite at DATA_DIR/hitl-relay.sqlite. */
  store?: Store;
  log?: Logger;
  now?: () => number;
  watcher?: WatcherOptions;
  /** Tuning of the notify_url outbox worker (the retry schedule is config.notify). */
  notify?: NotifyWorkerOptions;
  /** Tuning of the SSE client (backoff, lease, fallback); the stream cap is config.sseMaxStreams. */
  streams?: EventStreamOptions;
  /** Mounts more routes on the server (the demo service, ...); what it returns is closed on stop. */
  mount?: (app: Hono) => { close(): void } | undefined;
  /** How long a message may sit unposted before reconcile posts it again. */
  repostAfterMs?: number;
}

/** A running (or ready to run) relay. */
export interface Relay {
  engine: Engine;
  app: Hono;
  /** The base URL once listening. */
  url: string;
  /** Starts adapters and the watcher, reconciles cards, and listens on config.host:config.port. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** Creates a relay. */
export function createRelay(o: RelayOptions): Relay {
  const log = o.log ?? createLogger({ level: o.config.logLevel });
  const store = o.store ?? openSqliteStore(join(o.config.dataDir, 'hitl-relay.sqlite'), o.now);
  const dispatcher = createGuardedAgent(o.config);
  // Submits get their own connections, as many per origin as the submit gate lets run: a tap never
  // waits for a connection held by a slow poll, and its deadline starts when it is sent.
  const submitDispatcher = createGuardedAgent(o.config, {
    connections: SUBMIT_GATE_DEFAULTS.perOrigin,
  });
  const adapters = new Map(o.adapters.map((a) => [a.platform, a]));
  const engine = new Engine({
    store,
    sealer: createSealer(o.config.secretKey),
    adapters,
    config: o.config,
    log,
    dispatcher,
    submitDispatcher,
    instanceId: `${process.pid}-${randomBytes(3).toString('hex')}`,
    ...(o.now ? { now: o.now } : {}),
  });
  const metrics = createMetrics(store);
  const notifier = new NotifyWorker(engine, {}, o.notify);
  // SSE streams, the callback receiver and reminders; the poll loop consults them after each look.
  const watching = createWatching(engine, o.streams);
  const watcher = new Watcher(engine, o.watcher, watching.hooks);
  let ready = false;
  let server: ReturnType<typeof serve> | undefined;
  let reconcileTimer: NodeJS.Timeout | undefined;
  const mounted: Array<{ close(): void }> = [];
  // Signed decision receipts: the key is read (or made once and stored) at start.
  let receipts: { issuer: ReceiptIssuer; signer: ReceiptSigner } | undefined;
  let retention: { stop(): void } | undefined;
  const issueReceipt = (c: StoredCase) => {
    if (receipts && isTerminal(c.status))
      receipts.issuer.receiptOf(c.id).catch((err: Error) => {
        log.warn(
          { case: c.id, err: err.message },
          'receipt not issued; it is issued when asked for',
        );
      });
  };
  const app = createApp({
    engine,
    adapters: o.adapters,
    metrics,
    ready: () => ready,
    mount: (a: Hono) => {
      mountRoute(a, watching.callbackRoute);
      registerReceiptRoutes(a, store, () => receipts);
      mounted.push(mountAskService(a, engine, log));
      const m = o.mount?.(a);
      if (m) mounted.push(m);
    },
  });
  const repostAfterMs = o.repostAfterMs ?? 30_000;

  const relay: Relay = {
    engine,
    app,
    url: '',
    async start() {
      server = await new Promise<ReturnType<typeof serve>>((resolve) => {
        const s = serve({ fetch: app.fetch, port: o.config.port, hostname: o.config.host }, () =>
          resolve(s),
        );
      });
      const addr = server.address() as AddressInfo;
      relay.url = `http://${addr.family === 'IPv6' ? `[${addr.address}]` : addr.address}:${addr.port}`;
      // One link-signing key for every replica and restart, so Details links keep working.
      engine.setLinks(
        o.config.publicUrl ?? relay.url,
        await detailsLinkKey(o.config.secretKey, store.kv),
      );
      const signer = createSigner(
        await loadSigningKey(o.config.receiptSigningKey, o.config.secretKey, store.kv),
      );
      receipts = {
        signer,
        issuer: createReceiptIssuer({
          store,
          signer,
          cardOf: (c) => engine.cardOf(c),
          actionsOffered: (c) =>
            inlineActions(c.doc.hitl, c.doc.inline_submit ?? !!engine.secretsOf(c).submit_token)
              .actions,
          instanceId: engine.instanceId,
          now: engine.now,
          log,
          keepMs: o.config.receiptRetentionMs,
        }),
      };
      retention = startRetention(store, { retentionMs: o.config.retentionMs }, engine.now, log);
      engine.events.on('status', issueReceipt);
      for (const a of o.adapters) {
        await a.start({
          kv: store.kv,
          log: log.child({ platform: a.platform }),
          onTap: async (tap) => {
            const end = metrics.tapSeconds.startTimer({ platform: tap.platform });
            const reply = await handleTap(engine, tap);
            end();
            metrics.taps.inc({ platform: tap.platform, outcome: reply.outcome });
            return reply;
          },
        });
      }
      // Every open case is polled again soon (spread over one minimum interval, so a large store does not stampede).
      await store.rescheduleOpen(engine.now(), Math.min(o.config.pollMinMs, 30_000));
      // Cards that fell behind while we were down are brought up to date; unposted ones are posted.
      await engine.cards.reconcile({ retryPostingOlderThanMs: repostAfterMs });
      watcher.start();
      watching.start();
      reconcileTimer = setInterval(
        () =>
          void engine.cards.reconcile({ retryPostingOlderThanMs: repostAfterMs }).catch(() => {}),
        5000,
      );
      reconcileTimer.unref();
      notifier.start();
      ready = true;
    },
    async stop() {
      ready = false;
      engine.events.off('status', issueReceipt);
      retention?.stop();
      watcher.stop();
      await notifier.stop();
      await watching.stop();
      clearInterval(reconcileTimer);
      // Mounted services first: their open streams (SSE) would otherwise hold the server open.
      for (const m of mounted) m.close();
      await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
      for (const a of o.adapters) await a.stop();
      await dispatcher.close();
      await submitDispatcher.close();
      await store.close();
    },
  };
  return relay;
}
