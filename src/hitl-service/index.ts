/**
 * The relay's HITL service: a spec v0.8 service built into hitl-relay (store, tokens, poll with
 * ETag, SSE, respond, review pages, callbacks, retention). A profile configures it: the relay's
 * asks service at /asks (src/asks-service/) and the demo at /demo (src/demo/) are the two.
 */
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { Dispatcher } from 'undici';
import { createLogger, type Logger } from '../log.ts';
import { actOnCase } from './act.ts';
import { type CallbackOutcome, CallbackSender } from './callback-sender.ts';
import type { FaultInjector, ServiceDeps } from './context.ts';
import { errorBody } from './context.ts';
import { type CaseSpec, createCase } from './create.ts';
import { registerEventRoutes } from './events.ts';
import { EventHub } from './hub.ts';
import { CaseLifecycle } from './lifecycle.ts';
import type { ServiceProfile } from './profile.ts';
import { RateLimiter } from './respond-limit.ts';
import { type PurgeCounts, startServiceRetention } from './retention.ts';
import { registerPageRoutes } from './routes-page.ts';
import { registerRespondRoutes } from './routes-respond.ts';
import { registerStatusRoute } from './routes-status.ts';
import { type ServiceStore, SqliteServiceStore } from './service-store.ts';
import type { ReviewCreated, ReviewerStep, ReviewerStepResult, Submission } from './types.ts';

export { ReviewerStepError } from './act.ts';
export {
  CALLBACK_EVENT_ID_HEADER,
  type CallbackOutcome,
  signCallback,
} from './callback-sender.ts';
export type { FaultInjector, FaultOutcome, ServiceDeps } from './context.ts';
export type { CaseSpec } from './create.ts';
export type { ProfileCheck, ServiceProfile } from './profile.ts';

/** The Retry-After of an open case's poll unless the service is given another. */
export const POLL_RETRY_AFTER_SECONDS = 30;
export type { PurgeCounts } from './retention.ts';
export type { ServiceStore } from './service-store.ts';
export type {
  Fault,
  FaultKind,
  FaultRoute,
  ReviewCase,
  ReviewCreated,
  ReviewerStep,
  ReviewerStepResult,
  ReviewStatus,
  StoredEvent,
  Submission,
} from './types.ts';

/** Options of the HITL service. */
export interface HitlServiceOptions {
  /** SQLite file; ':memory:' (the default) keeps nothing across restarts. Ignored with `store`. */
  dbPath?: string;
  /** Another store (the relay's asks service on PostgreSQL with replicas); closed by close(). */
  store?: ServiceStore;
  /** Absolute base of every URL handed out, mount path included (e.g. `https://host/demo`). */
  baseUrl?: string;
  /** Where the app is mounted, used with the request's origin when `baseUrl` is not given. */
  mountPath: string;
  /** Shared secret for `X-HITL-Signature` on callbacks; unsigned when absent. */
  callbackSecret?: string;
  /** Connections for callbacks (the relay's guarded agent, URL policy at connect). */
  callbackDispatcher?: Dispatcher;
  /** Told how each callback delivery ended. */
  onCallback?: (outcome: CallbackOutcome) => void;
  /** The clock (ms since epoch); tests inject one to move time. */
  now?: () => number;
  /** `Retry-After` on 202 and on non-terminal poll answers (seconds, default 30). */
  pollRetryAfterSeconds?: number;
  log?: Logger;
  /** What this configuration checks and shows (answer checks, review page controls, next rounds). */
  profile: ServiceProfile;
  /** Broken answers to inject (the demo's test controls); none in the product. */
  faults?: FaultInjector;
  /** More routes on the service's app (the demo's case creation and test controls). */
  routes?: (app: Hono, deps: ServiceDeps) => void;
  /**
   * How long a final case (with its events) and a respond request are kept before a pass deletes
   * them; absent or 0 keeps everything (the standalone demo).
   */
  retentionMs?: number;
  /** Time between retention passes (default hourly). */
  retentionIntervalMs?: number;
}

/** A running HITL service. */
export interface HitlService {
  /** The Hono app; mount it with `app.route(mountPath, service.app)` or serve it alone. */
  app: Hono;
  /** Stops timers, ends SSE streams and pending callbacks, closes the database. */
  close(): Promise<void>;
  /** Resolves once the store is open and other replicas' changes are heard (when it has a feed). */
  ready(): Promise<void>;
  /** Every respond request received, oldest first (bodies and bearer_valid, never a token). */
  submissions(): Promise<Submission[]>;
  /** Takes a reviewer step on a case, as the review page would; rejects with ReviewerStepError. */
  act(caseId: string, step: ReviewerStep | ReviewerStep['step']): Promise<ReviewerStepResult>;
  /** Creates a case in-process (an already validated spec); its 202 body, URLs under `base`. */
  create(spec: CaseSpec, base: string): Promise<ReviewCreated>;
  /** Runs a retention pass now (the timer runs them too); what it deleted. */
  purge(): Promise<PurgeCounts>;
}

/** The service's parts before its routes exist. */
interface Parts {
  deps: ServiceDeps;
  hub: EventHub;
  callbacks: CallbackSender;
  /** The base of the last request seen (in-process steps have no request of their own). */
  lastBase(): string;
}

function buildParts(options: HitlServiceOptions): Parts {
  const now = options.now ?? Date.now;
  const log = (options.log ?? createLogger({ level: 'silent' })).child({ component: 'demo' });
  const mountPath = options.mountPath.replace(/\/+$/, '');
  const fixedBase = options.baseUrl?.replace(/\/+$/, '');
  const store = options.store ?? new SqliteServiceStore(options.dbPath ?? ':memory:');
  const hub = new EventHub();
  const callbacks = new CallbackSender({
    log,
    ...(options.callbackSecret && { secret: options.callbackSecret }),
    ...(options.callbackDispatcher && { dispatcher: options.callbackDispatcher }),
    ...(options.onCallback && { onOutcome: options.onCallback }),
  });
  // A hand-moved clock can jump at any moment, so the scheduler looks more often under one.
  const maxTimerMs = options.now ? 50 : undefined;
  const lifecycle = new CaseLifecycle({
    store,
    hub,
    callbacks,
    now,
    log,
    ...(maxTimerMs && { maxTimerMs }),
  });
  let lastBase = fixedBase ?? `http://127.0.0.1${mountPath}`;
  const deps: ServiceDeps = {
    store,
    lifecycle,
    faults: options.faults,
    limiter: new RateLimiter(now),
    now,
    log,
    pollRetryAfterSeconds: options.pollRetryAfterSeconds ?? POLL_RETRY_AFTER_SECONDS,
    profile: options.profile,
    base: (c) => {
      lastBase = fixedBase ?? `${new URL(c.req.url).origin}${mountPath}`;
      return lastBase;
    },
  };
  return { deps, hub, callbacks, lastBase: () => lastBase };
}

function buildApp(parts: Parts, routes: HitlServiceOptions['routes']): Hono {
  const { deps } = parts;
  const app = new Hono();
  app.use(
    '/api/*',
    bodyLimit({
      maxSize: 64 * 1024,
      onError: (c) => c.json(errorBody('payload_too_large', 'The body is too large.'), 413),
    }),
  );
  registerStatusRoute(app, deps);
  registerEventRoutes(app, deps, parts.hub);
  registerRespondRoutes(app, deps);
  registerPageRoutes(app, deps);
  routes?.(app, deps);
  app.notFound((c) => c.json(errorBody('not_found', 'No such route.'), 404));
  app.onError((error, c) => {
    deps.log.error(
      { err: error.message, path: new URL(c.req.url).pathname },
      'demo request failed',
    );
    return c.json(errorBody('internal_error', 'The demo service failed.'), 500);
  });
  return app;
}

/** How long a failed start of the change feed (a store that cannot open yet) waits to try again. */
const LISTEN_RETRY_MS = 5_000;

/**
 * Hears other replicas' commits: their events wake this process's streams and scheduler. `ready`
 * resolves once the feed is up (at once for a store without one); a failure is logged and retried.
 */
function listenForOthers(parts: Parts) {
  const { store, lifecycle, log } = parts.deps;
  let stop: (() => Promise<void>) | undefined;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;
  let heard!: () => void;
  const ready = new Promise<void>((resolve) => {
    heard = resolve;
  });
  const onChange = (caseId: string | null) => {
    if (caseId === null) parts.hub.wakeAll();
    else parts.hub.wake(caseId);
    lifecycle.schedule();
  };
  const attempt = async (listen: NonNullable<ServiceStore['listen']>) => {
    try {
      const s = await listen(onChange);
      if (closed) await s();
      else stop = s;
      heard();
    } catch (error) {
      log.error(
        { err: (error as Error).message },
        `demo service cannot hear other replicas yet; retrying in ${LISTEN_RETRY_MS / 1000} s`,
      );
      if (closed) return;
      retry = setTimeout(() => void attempt(listen), LISTEN_RETRY_MS);
      retry.unref();
    }
  };
  if (store.listen) void attempt(store.listen.bind(store));
  else heard();
  return {
    ready,
    async close() {
      closed = true;
      clearTimeout(retry);
      await stop?.();
    },
  };
}

/** Creates the HITL service. */
export function createHitlService(options: HitlServiceOptions): HitlService {
  const parts = buildParts(options);
  const { deps, hub, callbacks } = parts;
  const { lifecycle, store } = deps;
  const app = buildApp(parts, options.routes);
  // Cases from an earlier run (file database, another replica) may have expiries and reminders due.
  lifecycle.schedule();
  const listening = listenForOthers(parts);
  const retention = startServiceRetention(
    store,
    {
      retentionMs: options.retentionMs ?? 0,
      ...(options.retentionIntervalMs && { intervalMs: options.retentionIntervalMs }),
    },
    deps.now,
    deps.log,
  );
  let closed: Promise<void> | undefined;
  const close = async () => {
    lifecycle.stop();
    hub.closeAll();
    callbacks.close();
    await listening.close();
    await retention.stop();
    await store.close();
  };
  return {
    app,
    close: () => {
      closed ??= close();
      return closed;
    },
    ready: () => listening.ready,
    submissions: () => store.submissions(),
    act: (caseId, step) =>
      actOnCase(deps, caseId, typeof step === 'string' ? { step } : step, parts.lastBase()),
    create: (spec, base) =>
      createCase(lifecycle, spec, base.replace(/\/+$/, ''), deps.now(), deps.profile.specVersion),
    purge: () => retention.pass(),
  };
}
