/** The HTTP API (intake, case status, health, metrics) plus every adapter's routes, on Hono. */
import { timingSafeEqual } from 'node:crypto';
import { type Context, Hono } from 'hono';
import type { PlatformAdapter } from '../adapter.ts';
import type { RouteDocs } from '../adapter-definition.ts';
import type { CardDelivery } from '../cases/card-delivery.ts';
import type { CardRenderer } from '../cases/card-render.ts';
import { caseView } from '../cases/case-view.ts';
import type { Intake } from '../cases/intake.ts';
import type { CaseRepository } from '../cases/repository.ts';
import type { Targets } from '../cases/targets.ts';
import type { RelayConfig } from '../config/config.ts';
import { ValidationError } from '../errors.ts';
import type { Health, Readiness } from '../health.ts';
import { parseTrustedProxies } from '../net/trusted-proxy.ts';
import { warningsSent } from '../policy/expiry-warning.ts';
import { parse202Body, parseHitl } from '../protocol/hitl.ts';
import { toIssues } from '../protocol/issues.ts';
import type { Sealer } from '../store/sealer.ts';
import type { Store } from '../store/store.ts';
import { storageFailure } from '../store/store-errors.ts';
import type { StoredCase } from '../store/types.ts';
import { apiDocsRoutes } from './api-docs.ts';
import './api-key-name.ts';
import { ApiError, apiErrorHandler } from './api-error.ts';
import { bearerAuth } from './bearer-auth.ts';
import { limitBody, readJsonBody, requireBodyType } from './inbound.ts';
import {
  allRefused,
  fanOut,
  giveUpDelivery,
  type IntakeDeliveryDeps,
  notDelivered,
  targetProblems,
} from './intake-delivery.ts';
import { intakeSchema } from './intake-schema.ts';
import { isLocalOnly, loopbackHostOnly } from './loopback-host.ts';
import type { Metrics } from './metrics.ts';
import { mountRoute } from './mount-route.ts';
import { openApiDocument } from './openapi.ts';
import { intakeRateLimit } from './rate-limit.ts';
import { retiredPage } from './retired-page.ts';
import { serviceHeaders } from './service-auth.ts';

/** Largest request body any endpoint takes. */
export const MAX_BODY_BYTES = 1_000_000;

/** What the HTTP API touches. */
export interface AppDeps extends IntakeDeliveryDeps {
  config: RelayConfig;
  store: Pick<Store, 'getCase' | 'getCaseByKey' | 'listCases' | 'listMessages' | 'listHistory'>;
  targets: Pick<Targets, 'resolveTargets'>;
  intake: Pick<Intake, 'ingest'>;
  cases: Pick<CaseRepository, 'mutate' | 'history' | 'waitFor'>;
  cards: Pick<CardDelivery, 'deliver' | 'repost'>;
  render: Pick<CardRenderer, 'detailsUrl'>;
  sealer: Pick<Sealer, 'open'>;
}

/** Options of createApp. */
export interface AppOptions {
  services: AppDeps;
  adapters: PlatformAdapter[];
  /** What each platform's routes are, for /openapi.json (keyed by platform). */
  routeDocs?: Readonly<Record<string, RouteDocs>>;
  metrics: Metrics;
  /** Each part's state: a platform that refused its credentials refuses cases at intake. */
  health?: Health;
  /** What /readyz answers (checks the store for real). */
  readiness: () => Promise<Readiness>;
  /** True once shutdown began: new cases and adapter requests are refused with 503. */
  closing?: () => boolean;
  /** Aborted at shutdown: open /wait requests answer at once with the case as it stands. */
  closed?: AbortSignal;
  /** Mounts more routes (the demo service, the callback receiver). */
  mount?: (app: Hono) => void;
}

/** Builds the app. */
export function createApp(o: AppOptions): Hono {
  const app = new Hono();
  guard(app, o);
  app.post('/v1/cases', (c) => intake(c, o));
  caseRoutes(app, o);
  opsRoutes(app, o);
  const proxies = parseTrustedProxies(o.services.config.trustProxy.join(','));
  for (const adapter of o.adapters)
    for (const route of adapter.routes) mountRoute(app, route, proxies);
  o.mount?.(app);
  app.notFound((c) =>
    new ApiError(404, 'not_found', `no route ${c.req.method} ${c.req.path}`).respond(c),
  );
  app.onError(apiErrorHandler(o.services.log));
  return app;
}

const TOO_LARGE = new ApiError(
  413,
  'body_too_large',
  `request body over ${MAX_BODY_BYTES} bytes`,
  undefined,
  { headers: { connection: 'close' } },
);

/** Body limit, shutdown, Host check, auth, rate limit and body types, for every route. */
function guard(app: Hono, o: AppOptions): void {
  const { config, now } = o.services;
  app.use(
    '*',
    // The rest of the body is never read, so the connection cannot be reused: say so.
    limitBody(MAX_BODY_BYTES, (c) => TOO_LARGE.respond(c)),
  );
  // Shutting down: nothing new starts (intake, taps, webhooks); reads and open waits still answer.
  app.use('*', async (c, next) => {
    if (c.req.method === 'POST' && o.closing?.())
      throw new ApiError(
        503,
        'shutting_down',
        'the relay is shutting down; retry shortly',
        undefined,
        { headers: { 'retry-after': '5', connection: 'close' } },
      );
    return next();
  });
  // The local default has no key: a web page the person visits could reach it through a name that
  // resolves to 127.0.0.1 (DNS rebinding). Only loopback names (and PUBLIC_URL's host) are served.
  if (isLocalOnly(config)) app.use('*', loopbackHostOnly(config.publicUrl));
  const auth = bearerAuth(config.apiKey, config.namedApiKeys);
  // Metrics name platforms, targets' counts and error rates: with an API key they need it too.
  for (const path of [
    '/v1/cases/*',
    '/v1/cases',
    '/v1/asks/*',
    '/v1/asks',
    '/mcp',
    '/mcp/*',
    '/metrics',
  ])
    app.use(path, auth);
  // After auth, so only a valid key gets a bucket; then the content-type rule for every endpoint.
  app.use('/v1/cases', intakeRateLimit(config.intakeRateLimitPerMinute, now));
  app.use('/v1/asks', intakeRateLimit(config.intakeRateLimitPerMinute, now));
  app.use('*', requireBodyType());
}

/** The intake body, checked: the request's fields and the service's hitl object. */
function parseIntake(raw: unknown) {
  const input = intakeSchema.safeParse(raw);
  if (!input.success)
    throw new ValidationError('invalid_request', 'invalid request', toIssues(input.error));
  const body = input.data;
  if ((body.response === undefined) === (body.hitl === undefined))
    throw new ValidationError('invalid_request', 'invalid request', [
      { path: 'response', message: 'give exactly one of response (the whole 202 body) or hitl' },
    ]);
  const parsed =
    body.response !== undefined
      ? parse202Body(body.response, 'response')
      : parseHitl(body.hitl, 'hitl');
  return { body, parsed };
}

/** `POST /v1/cases`: a service's 202 body (or its hitl object) and where to show it. */
async function intake(c: Context, o: AppOptions): Promise<Response> {
  // One reader for every JSON route: content type, JSON, then bounded depth and size, refused
  // with the path where it broke before anything walks it.
  const raw = await readJsonBody(
    c,
    'send {"target": "<platform>:<address>", "response": <the service\'s 202 body>}',
  );
  try {
    return await ingestCase(c, o, parseIntake(raw));
  } catch (err) {
    const full = storageFailure(err);
    if (!full) throw err;
    o.services.log.error({ err: err instanceof Error ? err.message : String(err) }, full.message);
    throw new ApiError(
      full.status,
      full.status === 507 ? 'insufficient_storage' : 'store_unavailable',
      full.message,
      undefined,
      // Out of room takes an operator; a store that is down comes back by itself.
      { headers: { 'retry-after': full.status === 507 ? '30' : '5' } },
    );
  }
}

/** Stores and posts a checked intake, or refuses it when no target can show it. */
async function ingestCase(
  c: Context,
  o: AppOptions,
  { body, parsed }: ReturnType<typeof parseIntake>,
): Promise<Response> {
  const s = o.services;
  // Targets that can never work are refused here, before anything is stored.
  const targets = s.targets.resolveTargets(body.target);
  const problems = await targetProblems(s, o.health, targets);
  if (problems.length === targets.length) {
    o.metrics.notDelivered.inc({ when: 'intake' });
    s.log.warn({ target: body.target, problems }, 'case refused: no target can show it');
    throw notDelivered(problems);
  }
  const result = await s.intake.ingest({
    target: body.target,
    hitl: parsed.hitl,
    message: parsed.message,
    warnings: parsed.warnings,
    notify_url: body.notify_url,
    notify_on: body.notify_on,
    labels: body.labels,
    ...(body.service_auth ? { service_headers: serviceHeaders(body.service_auth) } : {}),
    ...(body.requested_by ? { requested_by: body.requested_by } : {}),
    ...(body.policy !== undefined ? { policy: body.policy } : {}),
    ...(body.expiry_warning !== undefined ? { expiry_warning: body.expiry_warning } : {}),
  });
  o.metrics.ingested.inc({ created: String(result.created) });
  let stored = result.case;
  // Sent again: a target without a card yet (a new one, or one an outage cut off) gets it now.
  if (!result.created) {
    const usable = targets.filter((t) => !problems.some((p) => p.target === t));
    if (await fanOut(s, stored, usable)) stored = (await s.store.getCase(stored.id)) ?? stored;
  }
  // Every post refused for good (bad room, 401/403, bot not in the channel, chat not found):
  // nobody will see the case, so nothing should wait for it.
  const refused = result.created ? await allRefused(s, stored, result.messages) : null;
  if (refused) {
    await giveUpDelivery(s, stored.id, refused.map((p) => `${p.target}: ${p.reason}`).join('; '));
    throw notDelivered(refused, stored.id);
  }
  return c.json(
    await caseView(s, stored, { messages: result.created ? result.messages : undefined }),
    result.created ? 201 : 200,
  );
}

const NOT_FOUND = new ApiError(404, 'not_found', 'no case with this id');

/** /wait's `wake=expiring`: a warning before expiry sent while waiting ends the wait too. */
function wakeOf(wake: string | undefined) {
  if (wake === undefined) return undefined;
  if (wake !== 'expiring')
    throw new ApiError(400, 'invalid_wake', 'wake must be "expiring"', [
      { path: 'wake', message: 'must be "expiring" (or absent: only the end of the case)' },
    ]);
  return (x: StoredCase, first: StoredCase) => warningsSent(x) > warningsSent(first);
}

/** Reading cases, waiting for one, reposting its card, and the Details redirect. */
function caseRoutes(app: Hono, o: AppOptions): void {
  const s = o.services;
  app.get('/v1/cases', async (c) => {
    const open = c.req.query('open') === '1' || c.req.query('open') === 'true';
    const limit = Math.min(500, Math.max(1, Number(c.req.query('limit') ?? 50) || 50));
    const offset = Math.max(0, Number(c.req.query('offset') ?? 0) || 0);
    const cases = await s.store.listCases({ open, limit, offset });
    return c.json({ cases: await Promise.all(cases.map((x) => caseView(s, x))) });
  });
  app.get('/v1/cases/:id', async (c) => {
    const found = await s.store.getCase(c.req.param('id'));
    if (!found) throw NOT_FOUND;
    return c.json(await caseView(s, found, { history: true }));
  });
  // Posts the card again where its message is gone (deleted, bot removed, chat closed).
  app.post('/v1/cases/:id/repost', async (c) => {
    const id = c.req.param('id');
    if (!(await s.store.getCase(id))) throw NOT_FOUND;
    const reposted = await s.cards.repost(id);
    const found = await s.store.getCase(id);
    return c.json({ reposted, case: found ? await caseView(s, found) : null });
  });
  app.get('/v1/cases/:id/wait', async (c) => {
    const timeout = Number(c.req.query('timeout') ?? 30);
    if (!Number.isFinite(timeout) || timeout < 0 || timeout > 120) {
      const message = 'must be a number of seconds from 0 to 120';
      throw new ApiError(400, 'invalid_timeout', `timeout ${message}`, [
        { path: 'timeout', message },
      ]);
    }
    const also = wakeOf(c.req.query('wake'));
    const found = await s.cases.waitFor(c.req.param('id'), timeout * 1000, o.closed, also);
    if (!found) throw NOT_FOUND;
    return c.json(await caseView(s, found, { history: true }));
  });
  app.get('/r/:key/:sig', async (c) => {
    const found = await s.store.getCaseByKey(c.req.param('key'));
    const expected = found ? s.render.detailsUrl(found) : undefined;
    // The whole link compared in constant time (a suffix compare leaks by timing how much matched).
    const given = found
      ? `${expected?.slice(0, expected.lastIndexOf('/') + 1)}${c.req.param('sig')}`
      : '';
    if (!found || !expected || !sameText(expected, given))
      throw new ApiError(404, 'not_found', 'unknown or invalid link');
    c.header('cache-control', 'no-store');
    c.header('referrer-policy', 'no-referrer');
    const retired = found.doc.review_url_retired_at;
    if (retired) return c.html(retiredPage(found, retired), 410);
    await s.cases.history(found.id, 'details_opened', {});
    return c.redirect(s.sealer.open(found.secrets).review_url, 303);
  });
}

/** Health, readiness, metrics, the OpenAPI document and the API reference drawn from it. */
function opsRoutes(app: Hono, o: AppOptions): void {
  app.get('/healthz', (c) => c.json({ ok: true }));
  // Per part {state, reason, since}; 503 until every configured platform and the store are up.
  app.get('/readyz', async (c) => {
    const r = await o.readiness();
    return c.json(r, r.ready ? 200 : 503);
  });
  app.get('/metrics', async (c) =>
    c.body(await o.metrics.scrape(), 200, { 'content-type': o.metrics.registry.contentType }),
  );
  app.get('/openapi.json', (c) =>
    c.json(
      openApiDocument({
        config: o.services.config,
        adapters: o.adapters,
        routeDocs: o.routeDocs,
      }),
    ),
  );
  apiDocsRoutes(app);
}

/** Whether two strings are equal, in time that does not depend on where they differ. */
function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
