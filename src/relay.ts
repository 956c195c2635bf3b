/** createRelay(): the whole relay (store, engine, watcher, adapters, HTTP server), embeddable in any Node process. */
import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import type { PlatformAdapter, Tap, TapReply } from './adapter.ts';
import { mountAskService } from './asks/mount.ts';
import { ALIVE_TTL_MS, aliveKey } from './cases/card-delivery.ts';
import { CHANGES_MISSED, Engine } from './cases/engine.ts';
import { reclaimLeases } from './cases/reclaim.ts';
import { startRetention } from './cases/retention.ts';
import { createSealer } from './cases/sealer.ts';
import { openSqliteStore } from './cases/sqlite-store.ts';
import type { Store } from './cases/store.ts';
import { handleTap } from './cases/tap.ts';
import type { StoredCase } from './cases/types.ts';
import type { RelayConfig } from './config/config.ts';
import { PlatformError } from './errors.ts';
import { Health, isNetworkError, type Readiness } from './health.ts';
import { createLogger, type Logger } from './log.ts';
import { createGuardedAgent } from './net/http.ts';
import { NotifyWorker, type NotifyWorkerOptions } from './notify/worker.ts';
import { observe } from './observe.ts';
import { inlineActions } from './protocol/actions.ts';
import { isTerminal } from './protocol/types.ts';
import { createReceiptIssuer, type ReceiptIssuer } from './receipts/issuer.ts';
import { createSigner, loadSigningKey, type ReceiptSigner } from './receipts/keys.ts';
import { createApp, mountRoute } from './server/app.ts';
import { giveUpDelivery } from './server/intake-delivery.ts';
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
  engine: Engine;
  app: Hono;
  /** The base URL once listening. */
  url: string;
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

const STORE_CHECK_TIMEOUT_MS = 2000;

/** Resolves true when `work` settles within `ms`, false when it does not (it goes on unawaited). */
function bounded(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    work.then(
      () => true,
      () => true,
    ),
    new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), ms);
    }),
  ]).finally(() => clearTimeout(timer));
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
  const instanceId = `${process.pid}-${randomBytes(3).toString('hex')}`;
  const engine = new Engine({
    store,
    sealer: createSealer(o.config.secretKey),
    adapters,
    config: o.config,
    log,
    dispatcher,
    submitDispatcher,
    instanceId,
    ...(o.now ? { now: o.now } : {}),
  });
  const health = new Health();
  health.set('store', 'starting', 'not checked yet');
  for (const a of o.adapters) health.set(`platform:${a.platform}`, 'starting', 'not started yet');
  const notifier = new NotifyWorker(engine, {}, o.notify);
  // SSE streams, the callback receiver and reminders; the poll loop consults them after each look.
  const watching = createWatching(engine, o.streams);
  const metrics = createMetrics(store, () => watching.streams.count);
  observe(engine, metrics);
  const watcher = new Watcher(engine, o.watcher, watching.hooks);
  let started = false;
  let closing = false;
  /** Ends open /wait requests at shutdown. */
  const closed = new AbortController();
  /** Taps being handled, so shutdown lets them finish. */
  const taps = new Set<Promise<TapReply>>();
  /** Wakes the start-up retry sleeps at shutdown. */
  const retrySleeps = new Set<() => void>();
  let server: ReturnType<typeof serve> | undefined;
  let reconcileTimer: NodeJS.Timeout | undefined;
  let aliveTimer: NodeJS.Timeout | undefined;
  const mounted: Array<{ close(): void }> = [];
  // Signed decision receipts: the key is read (or made once and stored) at start.
  let receipts: { issuer: ReceiptIssuer; signer: ReceiptSigner } | undefined;
  let retention: { stop(): void } | undefined;
  let stopListening: (() => Promise<void>) | undefined;
  const issueReceipt = (c: StoredCase) => {
    if (receipts && isTerminal(c.status))
      receipts.issuer.receiptOf(c.id, c).catch((err: Error) => {
        log.warn(
          { case: c.id, err: err.message },
          'receipt not issued; it is issued when asked for',
        );
      });
  };

  async function checkStore(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    try {
      // A real write (not a flag set once): a full disk, a read-only file or a dead database shows here.
      await Promise.race([
        store.kv.set(`readyz:${instanceId}`, String(Date.now()), 60_000),
        new Promise((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`no answer within ${STORE_CHECK_TIMEOUT_MS} ms`)),
            STORE_CHECK_TIMEOUT_MS,
          );
        }),
      ]);
      if (health.get('store')?.state !== 'up') log.info('store is writable');
      health.set('store', 'up');
    } catch (err) {
      const reason = `store not writable: ${err instanceof Error ? err.message : String(err)}`;
      if (health.get('store')?.reason !== reason) log.warn({ part: 'store' }, reason);
      health.set('store', 'down', reason);
    } finally {
      clearTimeout(timer);
    }
  }

  const app = createApp({
    engine,
    adapters: o.adapters,
    metrics,
    health,
    readiness: () => relay.readiness(),
    closing: () => closing,
    closed: closed.signal,
    mount: (a: Hono) => {
      mountRoute(a, watching.callbackRoute);
      registerReceiptRoutes(a, store, () => receipts);
      mounted.push(mountAskService(a, engine, log, health));
      const m = o.mount?.(a);
      if (m) mounted.push(m);
    },
  });
  const repostAfterMs = o.repostAfterMs ?? 30_000;

  const onTap = async (tap: Tap): Promise<TapReply> => {
    // Once shutdown began a tap is not submitted at all (never half): the person taps again later.
    if (closing)
      return {
        outcome: 'failed',
        text: 'The relay is restarting; tap again in a moment.',
        card: null,
      };
    const end = metrics.tapSeconds.startTimer({ platform: tap.platform });
    const work = handleTap(engine, tap);
    taps.add(work);
    try {
      const reply = await work;
      end();
      metrics.taps.inc({ platform: tap.platform, outcome: reply.outcome });
      return reply;
    } finally {
      taps.delete(work);
    }
  };

  /** Starts one adapter; resolves after the first attempt, retrying passing failures in the background. */
  function startPlatform(a: PlatformAdapter): Promise<void> {
    const part = `platform:${a.platform}`;
    const plog = log.child({ platform: a.platform });
    const minMs = o.startRetry?.minMs ?? 1000;
    const maxMs = o.startRetry?.maxMs ?? 60_000;
    return new Promise<void>((firstAttemptDone) => {
      void (async () => {
        let delay = minMs;
        for (let attempt = 1; !closing; attempt++) {
          try {
            await a.start({
              kv: store.kv,
              log: plog,
              onTap,
              reportDown: (reason) =>
                reason === null ? health.set(part, 'up') : health.set(part, 'failed', reason),
            });
            health.set(part, 'up');
            if (attempt > 1)
              plog.info({ attempt }, `${a.platform} is up after ${attempt} attempts`);
            break;
          } catch (err) {
            const passing = err instanceof PlatformError ? err.retryable : isNetworkError(err);
            const why = err instanceof Error ? err.message : String(err);
            if (!passing) {
              const fix = a.credentialEnv ? `check ${a.credentialEnv}` : 'check its configuration';
              const reason = `${why}; ${fix} and restart`;
              health.refuse(part, reason);
              plog.error(
                { part, env: a.credentialEnv },
                `${a.platform} refused to start: ${reason}`,
              );
              o.onFatal?.(part, reason);
              break;
            }
            // Jitter, so replicas that lost the network together do not retry in step.
            const wait = Math.round(delay * (0.8 + Math.random() * 0.4));
            health.set(part, 'down', `${why}; retrying`);
            plog.warn(
              { part, attempt, retry_in_ms: wait },
              `${a.platform} start failed (attempt ${attempt}): ${why}; retrying in ${wait} ms`,
            );
            firstAttemptDone();
            await new Promise<void>((resolve) => {
              const wake = () => {
                clearTimeout(timer);
                retrySleeps.delete(wake);
                resolve();
              };
              const timer = setTimeout(wake, wait);
              timer.unref();
              retrySleeps.add(wake);
            });
            delay = Math.min(maxMs, delay * 2);
          }
        }
        firstAttemptDone();
      })();
    });
  }

  /** Cases that no target has shown within the delivery timeout end their waiters (delivery_failed). */
  async function giveUpUndelivered(): Promise<void> {
    const cutoff = engine.now() - o.config.deliveryTimeoutMs;
    const ids = new Set(
      (await store.staleMessages(500)).filter((m) => m.state === 'posting').map((m) => m.case_id),
    );
    for (const id of ids) {
      const c = await store.getCase(id);
      if (!c || isTerminal(c.status) || c.doc.delivery_failed || c.created_at > cutoff) continue;
      const messages = await store.listMessages(id);
      if (messages.some((m) => m.state === 'posted')) continue;
      const errors = messages.map((m) => `${m.target}: ${m.error ?? 'not posted yet'}`).join('; ');
      await giveUpDelivery(
        engine,
        id,
        `not shown within ${Math.round(o.config.deliveryTimeoutMs / 100) / 10} s (${errors})`,
      );
    }
  }
  // A card that arrives after all (the platform came back) takes the given-up mark away again.
  // `c` is the case as the post began. Nothing marks a case given up before it is half the
  // delivery timeout old (the reconcile loop waits the whole timeout; a case whose every post was
  // refused at intake has none that succeeds), so a young case without the mark is not read again.
  engine.events.on('posted', (id: string, c: StoredCase | undefined) => {
    if (c && !c.doc.delivery_failed && engine.now() - c.created_at < o.config.deliveryTimeoutMs / 2)
      return;
    void engine
      .mutate(id, (c) => {
        if (!c.doc.delivery_failed) return false;
        delete c.doc.delivery_failed;
        return true;
      })
      .catch(() => {});
  });

  const relay: Relay = {
    engine,
    app,
    url: '',
    health,
    async start() {
      server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
        const s = serve({ fetch: app.fetch, port: o.config.port, hostname: o.config.host }, () =>
          resolve(s),
        );
        s.once('error', reject);
      });
      const addr = server.address() as AddressInfo;
      relay.url = `http://${addr.family === 'IPv6' ? `[${addr.address}]` : addr.address}:${addr.port}`;
      await checkStore();
      // This process is alive while this key is renewed: posts it leaves half-done when it dies
      // are taken over by the next reconcile once the key lapses.
      const beat = () => void store.kv.set(aliveKey(instanceId), '1', ALIVE_TTL_MS).catch(() => {});
      beat();
      aliveTimer = setInterval(beat, ALIVE_TTL_MS / 3);
      aliveTimer.unref();
      // Leases held by processes that are gone are given back before any work starts (issue 18).
      await reclaimLeases({
        kv: store.kv,
        watch: store,
        now: engine.now,
        log,
        self: instanceId,
      }).catch((err: Error) =>
        log.warn({ err: err.message }, 'reclaiming leases failed; they lapse instead'),
      );
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
      // Changes other replicas write wake this process's /wait requests (no periodic re-reads).
      stopListening = await store.listenChanges?.((id) =>
        id === null ? engine.events.emit(CHANGES_MISSED) : engine.events.emit(`change:${id}`),
      );
      engine.events.on('status', issueReceipt);
      await Promise.all(o.adapters.map((a) => startPlatform(a)));
      // Every open case is polled again soon (spread over one minimum interval, so a large store does not stampede).
      await store.rescheduleOpen(engine.now(), Math.min(o.config.pollMinMs, 30_000));
      // Cards that fell behind while we were down are brought up to date; unposted ones are posted.
      await engine.cards.reconcile({ retryPostingOlderThanMs: repostAfterMs });
      watcher.start();
      watching.start();
      reconcileTimer = setInterval(
        () =>
          void engine.cards
            .reconcile({ retryPostingOlderThanMs: repostAfterMs })
            .then(giveUpUndelivered)
            .catch((err) => log.warn({ err: String(err) }, 'reconcile failed')),
        o.reconcileEveryMs ?? 5000,
      );
      reconcileTimer.unref();
      notifier.start();
      started = true;
    },
    async readiness() {
      if (!closing) await checkStore();
      const parts = health.snapshot();
      const notes = health.noteSnapshot();
      return { ready: started && !closing && health.allUp(), parts, ...(notes ? { notes } : {}) };
    },
    async stop() {
      if (closing) return;
      closing = true;
      const t0 = Date.now();
      const step = (msg: string) => log.info({ ms: Date.now() - t0 }, `shutdown: ${msg}`);
      step('refusing new cases and taps; answering open /wait requests');
      closed.abort();
      for (const wake of retrySleeps) wake();
      engine.events.off('status', issueReceipt);
      retention?.stop();
      watcher.stop();
      clearInterval(reconcileTimer);
      clearInterval(aliveTimer);
      // Mounted services first: their open streams (SSE) would otherwise hold the server open.
      for (const m of mounted) m.close();
      // Each step is bounded, so the whole stop fits in 5 s (docker stop sends SIGKILL at 10 s).
      const drainMs = o.drainMs ?? 2500;
      if (taps.size) step(`waiting for ${taps.size} tap(s) in flight`);
      await Promise.all([
        bounded(notifier.stop(), 1500).then((ok) => ok || log.warn('shutdown: notify attempt cut')),
        bounded(watching.stop(), 1500).then((ok) => ok || log.warn('shutdown: event streams cut')),
        bounded(Promise.allSettled([...taps]), drainMs).then(
          (ok) =>
            ok || log.warn(`shutdown: ${taps.size} tap(s) still in flight after ${drainMs} ms`),
        ),
      ]);
      step('watchers stopped, taps done');
      // Our poll leases go back now, rather than lapsing: the next process polls these cases at once.
      await bounded(
        store.releaseWatchLeases(instanceId).catch(() => 0),
        500,
      );
      await new Promise<void>((resolve) => {
        if (!server) return resolve();
        server.close(() => resolve());
        // Keep-alive sockets with no request would hold close() open; answered waits free theirs.
        (server as { closeIdleConnections?: () => void }).closeIdleConnections?.();
        const force = setTimeout(
          () => (server as { closeAllConnections?: () => void }).closeAllConnections?.(),
          500,
        );
        force.unref();
      });
      step('HTTP server closed');
      for (const a of o.adapters)
        await a
          .stop()
          .catch((err) =>
            log.warn({ platform: a.platform, err: String(err) }, 'shutdown: adapter stop failed'),
          );
      step('adapters stopped');
      // Polls or submits still under way are cut rather than waited for.
      if (!(await bounded(dispatcher.close(), 300))) await dispatcher.destroy().catch(() => {});
      if (!(await bounded(submitDispatcher.close(), 300)))
        await submitDispatcher.destroy().catch(() => {});
      await store.kv.delete(`readyz:${instanceId}`).catch(() => {});
      await stopListening?.();
      await store.close();
      step('store closed; done');
    },
  };
  return relay;
}
