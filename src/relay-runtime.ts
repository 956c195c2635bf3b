/** A relay's life: start (server, keys, platforms, watchers, timers), readiness, and a graceful stop. */
import { setMaxListeners } from 'node:events';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { Hono } from 'hono';
import type { DeliveryStatus, MessageRef, PlatformAdapter, Tap, TapReply } from './adapter.ts';
import { adapterStrings } from './adapter-kit.ts';
import { createAdapterSignals } from './adapter-signals.ts';
import { bounded } from './bounded.ts';
import { recordDeliveryStatus } from './cases/delivery-status.ts';
import { ALIVE_TTL_MS, aliveKey } from './cases/posting-lease.ts';
import { type ReclaimDeps, reclaimLeases, reclaimPollLeases } from './cases/reclaim.ts';
import { CHANGES_MISSED } from './cases/repository.ts';
import type { Health, Readiness } from './health.ts';
import type { NotifyWorker } from './notify/worker.ts';
import { pacedLoop } from './paced.ts';
import { startPlatform } from './platform-start.ts';
import { inlineActions } from './protocol/actions.ts';
import { BackgroundReceipts } from './receipts/background.ts';
import { createReceiptIssuer, type ReceiptIssuer } from './receipts/issuer.ts';
import { createSigner, loadSigningKey, type ReceiptSigner } from './receipts/keys.ts';
import { type FrontHandler, frontedServer } from './server/gateway-front.ts';
import { detailsLinkKey } from './server/link-key.ts';
import type { Metrics } from './server/metrics.ts';
import type { Services } from './services.ts';
import { startRetention } from './store/retention.ts';
import type { StoredCase } from './store/types.ts';
import { giveUpUndelivered } from './undelivered.ts';
import type { Watcher } from './watch/watcher.ts';
import type { Watching } from './watching.ts';

const STORE_CHECK_TIMEOUT_MS = 2000;
const RECEIPT_DRAIN_MS = 1000; // how long a stop waits for receipts still being issued
const RESTARTING = 'The relay is restarting; tap again in a moment.';

/** The parts a runtime starts and stops. */
export interface RuntimeParts {
  services: Services;
  adapters: PlatformAdapter[];
  health: Health;
  metrics: Metrics;
  notifier: NotifyWorker;
  watching: Watching;
  watcher: Watcher;
  repostAfterMs: number;
  reconcileEveryMs: number;
  drainMs: number;
  startRetry?: { minMs?: number; maxMs?: number } | undefined;
  onFatal?: ((part: string, reason: string) => void) | undefined;
  /** A start-up pass before anything is read: seals answers older rows hold in plain text. */
  sealOldAnswers?: (() => Promise<number>) | undefined;
}

/** The running state of one relay. */
export class RelayRuntime {
  app!: Hono;
  url = '';
  started = false;
  closing = false;
  /** Ends open /wait requests at shutdown. */
  readonly closed = new AbortController();
  /** Taps being handled, so shutdown lets them finish. */
  private readonly taps = new Set<Promise<TapReply>>();
  /** Wakes the start-up retry sleeps at shutdown. */
  private readonly retrySleeps = new Set<() => void>();
  private server: ReturnType<typeof serve> | undefined;
  private timers: NodeJS.Timeout[] = [];
  private reconcileLoop: { stop(): void } | undefined;
  readonly mounted: Array<{ close(): void | Promise<void> }> = [];
  /** Serves the gateway's lean calls below the app (server/gateway-front.ts). */ front?: FrontHandler;
  /** Signed decision receipts: the key is read (or made once and stored) at start. */
  receipts:
    | { issuer: ReceiptIssuer; signer: ReceiptSigner; background: BackgroundReceipts }
    | undefined;
  private retention: { stop(): void } | undefined;
  private stopListening: (() => Promise<void>) | undefined;

  constructor(private readonly p: RuntimeParts) {
    // Every open /wait listens for shutdown on this one signal: many waiting agents are no leak.
    setMaxListeners(0, this.closed.signal);
  }

  private get s(): Services {
    return this.p.services;
  }

  /** Issues the receipt of a case that just became final (in the background, after its card edit). */
  private readonly issueReceipt = (c: StoredCase) => this.receipts?.background.issue(c);

  /** Handles a tap from an adapter (counted, and waited for at shutdown). */
  readonly onTap = async (tap: Tap): Promise<TapReply> => {
    // Once shutdown began a tap is not submitted at all (never half): the person taps again later.
    if (this.closing) return { outcome: 'failed', text: RESTARTING, card: null };
    const end = this.p.metrics.tapSeconds.startTimer({ platform: tap.platform });
    const work = this.s.taps.handle(tap);
    this.taps.add(work);
    try {
      const reply = await work;
      end();
      this.p.metrics.taps.inc({ platform: tap.platform, outcome: reply.outcome });
      return reply;
    } finally {
      this.taps.delete(work);
    }
  };

  /** Checks the store with a real write: a full disk, a read-only file or a dead database shows here. */
  async checkStore(): Promise<void> {
    const { store, log, instanceId } = this.s;
    const health = this.p.health;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        store.kv.set(`readyz:${instanceId}`, String(Date.now()), 60_000),
        new Promise((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`no answer within ${STORE_CHECK_TIMEOUT_MS} ms`)),
            STORE_CHECK_TIMEOUT_MS,
          );
        }),
      ]);
      const problem = store.fileProblem?.();
      if (problem) throw new Error(problem);
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

  /** Listens, takes the keys, starts platforms, watchers and timers; reconciles cards first. */
  async start(): Promise<void> {
    const { config, store, cards } = this.s;
    const app = this.app;
    this.server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
      const front = this.front && { createServer: frontedServer(this.front) };
      const s = serve(
        { fetch: app.fetch, port: config.port, hostname: config.host, ...front },
        () => resolve(s),
      );
      s.once('error', reject);
    });
    const addr = this.server.address() as AddressInfo;
    this.url = `http://${addr.family === 'IPv6' ? `[${addr.address}]` : addr.address}:${addr.port}`;
    await this.checkStore();
    this.beat();
    await this.reclaim();
    const sealed = await this.p.sealOldAnswers?.();
    if (sealed) this.s.log.info({ cases: sealed }, 'sealed answers stored before RELAY_SECRET_KEY');
    await this.loadKeys();
    const retiredSecrets = this.s.sealer.seal({ submit_token: null, review_url: '' });
    const retention = { retentionMs: config.retentionMs, retiredSecrets };
    this.retention = startRetention(store, retention, this.s.now, this.s.log);
    // Changes other replicas write wake this process's /wait requests (no periodic re-reads).
    const events = this.s.cases.events;
    this.stopListening = await store.listenChanges?.((id) =>
      id === null ? events.emit(CHANGES_MISSED) : events.emit(`change:${id}`),
    );
    events.on('status', this.issueReceipt);
    const deps = this.platformDeps();
    await Promise.all(this.p.adapters.map((a) => startPlatform(deps, a)));
    // Every open case is polled again soon (spread over one minimum interval, so a large store does not stampede).
    await store.rescheduleOpen(this.s.now(), Math.min(config.pollMinMs, 30_000));
    // Cards that fell behind while we were down are brought up to date; unposted ones are posted.
    await cards.reconcile({ retryPostingOlderThanMs: this.p.repostAfterMs });
    this.p.watcher.start();
    this.p.watching.start();
    // Its scans take at most 0.5 % of the time: a large store is looked over less often
    // (src/paced.ts). Paced by the scans, not by the posts and edits a pass waits for.
    this.reconcileLoop = pacedLoop(this.p.reconcileEveryMs, async () => {
      try {
        const pass = await cards.reconcile({ retryPostingOlderThanMs: this.p.repostAfterMs });
        await giveUpUndelivered(this.s, pass.stale);
        return pass.scanMs;
      } catch (err) {
        this.s.log.warn({ err: String(err) }, 'reconcile failed');
        return 0;
      }
    });
    this.p.notifier.start();
    this.started = true;
  }

  /** What every adapter is started with: one set of texts, and change signals from any replica. */
  private platformDeps() {
    const { store, pending } = this.s;
    const signals = createAdapterSignals({
      events: this.s.cases.events,
      missedEvent: CHANGES_MISSED,
      publishRemote: store.publishChange ? (topics) => store.publishChange!(topics) : undefined,
      log: this.s.log,
    });
    return {
      strings: adapterStrings(this.s.strings),
      sealer: (purpose: string) => this.s.sealer.forPurpose(purpose),
      signals,
      store: this.s.store,
      log: this.s.log,
      health: this.p.health,
      onTap: this.onTap,
      mayAnswer: (tap: Tap) => this.s.taps.mayAnswer(tap),
      pending: pending.page.bind(pending),
      inbox: this.s.inbox.page.bind(this.s.inbox),
      deciders: pending.deciders.bind(pending),
      repost: this.s.reposts,
      recordDelivery: (ref: MessageRef, st: DeliveryStatus) =>
        recordDeliveryStatus(this.s, ref, st),
      closing: () => this.closing,
      retrySleeps: this.retrySleeps,
      startRetry: this.p.startRetry,
      onFatal: this.p.onFatal,
    };
  }

  /** Runs `fn` every `ms` (unref'd, cleared at stop). */
  private every(ms: number, fn: () => void): void {
    const timer = setInterval(fn, ms);
    timer.unref();
    this.timers.push(timer);
  }

  /** Alive while this key is renewed: a dead process's half-done posts go to the next reconcile. */
  private beat(): void {
    const { store, instanceId } = this.s;
    const beat = () => void store.kv.set(aliveKey(instanceId), '1', ALIVE_TTL_MS).catch(() => {});
    beat();
    this.every(ALIVE_TTL_MS / 3, beat);
  }

  /**
   * Leases held by processes that are gone are given back before any work starts (issue 18), and
   * poll leases every lease length after (they hold cases for several looks).
   */
  private async reclaim(): Promise<void> {
    const { store, now, log, instanceId, config } = this.s;
    const d: ReclaimDeps = {
      kv: store.kv,
      watch: store,
      now,
      log,
      self: instanceId,
      spreadMs: config.pollMinMs,
    };
    const failed = (err: Error) =>
      log.warn({ err: err.message }, 'reclaiming leases failed; they lapse instead');
    await reclaimLeases(d).catch(failed);
    this.every(config.leaseMs, () => void reclaimPollLeases(d).catch(failed));
  }

  /** The Details-link key and the receipt signing key, shared by every replica and restart. */
  private async loadKeys(): Promise<void> {
    const s = this.s;
    s.render.setLinks(
      s.config.publicUrl ?? this.url,
      await detailsLinkKey(s.config.secretKey, s.store.kv),
    );
    const signer = createSigner(
      await loadSigningKey(s.config.receiptSigningKey, s.config.secretKey, s.store.kv),
    );
    const issuer = createReceiptIssuer({
      store: s.store,
      signer,
      cardOf: (c) => s.render.cardOf(c),
      actionsOffered: (c) =>
        inlineActions(c.doc.hitl, c.doc.inline_submit ?? !!s.sealer.open(c.secrets).submit_token)
          .actions,
      instanceId: s.instanceId,
      now: s.now,
      log: s.log,
      keepMs: s.config.receiptRetentionMs,
    });
    const edited = (id: string) => s.cards.settled(id);
    const background = new BackgroundReceipts({ issuer, edited, log: s.log });
    this.receipts = { signer, issuer, background };
  }

  /** What /readyz answers (the store is checked for real). */
  async readiness(): Promise<Readiness> {
    const h = this.p.health;
    if (!this.closing) {
      await this.checkStore();
      h.runProbes();
    }
    const parts = h.snapshot();
    const notes = h.noteSnapshot();
    return {
      ready: this.started && !this.closing && h.allUp(),
      parts,
      ...(notes ? { notes } : {}),
    };
  }

  /**
   * Graceful stop: refuses new work, answers open /wait requests at once, lets taps in flight
   * finish (bounded), then closes the server, adapters and store; logs each step.
   */
  async stop(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    const t0 = Date.now();
    const step = (msg: string) => this.s.log.info({ ms: Date.now() - t0 }, `shutdown: ${msg}`);
    step('refusing new cases and taps; answering open /wait requests');
    this.closed.abort();
    for (const wake of this.retrySleeps) wake();
    this.s.cases.events.off('status', this.issueReceipt);
    this.retention?.stop();
    this.p.watcher.stop();
    for (const timer of this.timers) clearInterval(timer);
    this.reconcileLoop?.stop();
    // Mounted services first: their open streams (SSE) would otherwise hold the server open.
    const mountedClosed = Promise.all(
      this.mounted.map((m) => Promise.resolve(m.close()).catch(() => {})),
    );
    await this.drain(step);
    // Our poll leases go back now, rather than lapsing: the next process polls these cases at once.
    await bounded(
      this.s.store
        .releaseWatchLeases(this.s.instanceId, this.s.now(), this.s.config.pollMinMs)
        .catch(() => 0),
      500,
    );
    await this.closeServer();
    step('HTTP server closed');
    // A mounted service's own database connections (the asks service on PostgreSQL) end here.
    await bounded(mountedClosed, 2000);
    await this.closeRest(step);
  }

  /** Each step is bounded, so the whole stop fits in 5 s (docker stop sends SIGKILL at 10 s). */
  private async drain(step: (msg: string) => void): Promise<void> {
    const log = this.s.log;
    const drainMs = this.p.drainMs;
    if (this.taps.size) step(`waiting for ${this.taps.size} tap(s) in flight`);
    await Promise.all([
      bounded(this.p.notifier.stop(), 1500).then(
        (ok) => ok || log.warn('shutdown: notify attempt cut'),
      ),
      bounded(this.p.watching.stop(), 1500).then(
        (ok) => ok || log.warn('shutdown: event streams cut'),
      ),
      bounded(Promise.allSettled([...this.taps]), drainMs)
        .then(
          (ok) =>
            ok ||
            log.warn(`shutdown: ${this.taps.size} tap(s) still in flight after ${drainMs} ms`),
        )
        // Then, briefly, the receipts of the cases those taps ended (issued after their edits).
        .then(() => this.receipts?.background.drain(RECEIPT_DRAIN_MS))
        .then(
          (ok) => ok === false && log.warn('shutdown: receipts left to be issued when asked for'),
        ),
    ]);
    step('watchers stopped, taps done');
  }

  private closeServer(): Promise<void> {
    const server = this.server as
      | (ReturnType<typeof serve> & {
          closeIdleConnections?: () => void;
          closeAllConnections?: () => void;
        })
      | undefined;
    return new Promise<void>((resolve) => {
      if (!server) return resolve();
      server.close(() => resolve());
      // Keep-alive sockets with no request would hold close() open; answered waits free theirs.
      server.closeIdleConnections?.();
      const force = setTimeout(() => server.closeAllConnections?.(), 500);
      force.unref();
    });
  }

  /** Adapters, connections (polls or submits under way are cut) and the store. */
  private async closeRest(step: (msg: string) => void): Promise<void> {
    const { log, dispatcher, submitDispatcher, store, instanceId } = this.s;
    for (const a of this.p.adapters)
      await a
        .stop()
        .catch((err) =>
          log.warn({ platform: a.platform, err: String(err) }, 'shutdown: adapter stop failed'),
        );
    step('adapters stopped');
    if (!(await bounded(dispatcher.close(), 300))) await dispatcher.destroy().catch(() => {});
    if (!(await bounded(submitDispatcher.close(), 300)))
      await submitDispatcher.destroy().catch(() => {});
    // Stopped is not alive: the next process adopts what this one left at once, not after a TTL.
    for (const key of [`readyz:${instanceId}`, aliveKey(instanceId)])
      await store.kv.delete(key).catch(() => {});
    await this.stopListening?.();
    await store.close();
    step('store closed; done');
  }
}
