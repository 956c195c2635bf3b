/** The HTTP API (intake, case status, health, metrics) plus every adapter's routes, on Hono. */
import { timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import { type Context, Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { HttpRoute, InboundResponse, PlatformAdapter } from '../adapter.ts';
import type { Engine } from '../cases/engine.ts';
import { isStoreOutage, storageFailure } from '../cases/store-errors.ts';
import { ValidationError } from '../errors.ts';
import type { Health, Readiness } from '../health.ts';
import { isLoopback, isLoopbackName } from '../net/url-policy.ts';
import { parse202Body, parseHitl } from '../protocol/hitl.ts';
import { toIssues } from '../protocol/issues.ts';
import { caseView } from './case-view.ts';
import { readJsonBody, requireBodyType } from './inbound.ts';
import {
  allRefused,
  fanOut,
  giveUpDelivery,
  notDelivered,
  targetProblems,
} from './intake-delivery.ts';
import { intakeSchema } from './intake-schema.ts';
import type { Metrics } from './metrics.ts';
import { openApiDocument } from './openapi.ts';
import { intakeRateLimit } from './rate-limit.ts';
import { serviceHeaders } from './service-auth.ts';

/** Largest request body any endpoint takes. */
export const MAX_BODY_BYTES = 1_000_000;

/** Builds the app. `extra` mounts more routes (the demo service, the callback receiver). */
export function createApp(o: {
  engine: Engine;
  adapters: PlatformAdapter[];
  metrics: Metrics;
  /** Each part's state: a platform that refused its credentials refuses cases at intake. */
  health?: Health;
  /** What /readyz answers (checks the store for real). */
  readiness: () => Promise<Readiness>;
  /** True once shutdown began: new cases and adapter requests are refused with 503. */
  closing?: () => boolean;
  /** Aborted at shutdown: open /wait requests answer at once with the case as it stands. */
  closed?: AbortSignal;
  mount?: (app: Hono) => void;
}): Hono {
  const { engine, metrics } = o;
  const app = new Hono();
  const apiKey = engine.config.apiKey;

  app.use(
    '*',
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      // The rest of the body is never read, so the connection cannot be reused: say so.
      onError: (c) =>
        c.json(
          { error: 'body_too_large', message: `request body over ${MAX_BODY_BYTES} bytes` },
          413,
          { connection: 'close' },
        ),
    }),
  );
  // Shutting down: nothing new starts (intake, taps, webhooks); reads and open waits still answer.
  app.use('*', async (c, next) => {
    if (c.req.method === 'POST' && o.closing?.())
      return c.json(
        { error: 'shutting_down', message: 'the relay is shutting down; retry shortly' },
        503,
        {
          'retry-after': '5',
          connection: 'close',
        },
      );
    return next();
  });
  // The local default has no key: a web page the person visits could reach it through a name that
  // resolves to 127.0.0.1 (DNS rebinding). Only loopback names (and PUBLIC_URL's host) are served.
  const h = engine.config.host;
  if (!apiKey && (isIP(h) ? isLoopback(h) : isLoopbackName(h)))
    app.use('*', loopbackHostOnly(engine.config.publicUrl));
  app.use('/v1/cases/*', auth);
  app.use('/v1/cases', auth);
  app.use('/v1/asks/*', auth);
  app.use('/v1/asks', auth);
  // Metrics name platforms, targets' counts and error rates: with an API key they need it too.
  app.use('/metrics', auth);
  async function auth(c: Context, next: () => Promise<void>) {
    if (!apiKey) return next();
    const given = /^Bearer (.+)$/.exec(c.req.header('authorization') ?? '')?.[1] ?? '';
    const a = Buffer.from(given);
    const b = Buffer.from(apiKey);
    if (a.length !== b.length || !timingSafeEqual(a, b))
      return c.json(
        { error: 'unauthorized', message: 'send Authorization: Bearer <RELAY_API_KEY>' },
        401,
      );
    return next();
  }
  // After auth, so only a valid key gets a bucket; then the content-type rule for every endpoint.
  app.use('/v1/cases', intakeRateLimit(engine.config.intakeRateLimitPerMinute, engine.now));
  app.use('/v1/asks', intakeRateLimit(engine.config.intakeRateLimitPerMinute, engine.now));
  app.use('*', requireBodyType());

  app.post('/v1/cases', async (c) => {
    // One reader for every JSON route: content type, JSON, then bounded depth and size, refused
    // with the path where it broke before anything walks it.
    const read = await readJsonBody(
      c,
      'send {"target": "<platform>:<address>", "response": <the service\'s 202 body>}',
    );
    if (!read.ok) return read.response;
    const raw = read.value;
    try {
      const input = intakeSchema.safeParse(raw);
      if (!input.success)
        throw new ValidationError('invalid_request', 'invalid request', toIssues(input.error));
      const body = input.data;
      if ((body.response === undefined) === (body.hitl === undefined))
        throw new ValidationError('invalid_request', 'invalid request', [
          {
            path: 'response',
            message: 'give exactly one of response (the whole 202 body) or hitl',
          },
        ]);
      const parsed =
        body.response !== undefined
          ? parse202Body(body.response, 'response')
          : parseHitl(body.hitl, 'hitl');
      // Targets that can never work are refused here, before anything is stored.
      const targets = engine.resolveTargets(body.target);
      const problems = await targetProblems(engine, o.health, targets);
      if (problems.length === targets.length) {
        metrics.notDelivered.inc({ when: 'intake' });
        engine.log.warn({ target: body.target, problems }, 'case refused: no target can show it');
        return c.json(notDelivered(problems), 422);
      }
      const result = await engine.ingest({
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
      });
      metrics.ingested.inc({ created: String(result.created) });
      let stored = result.case;
      // Sent again: a target without a card yet (a new one, or one an outage cut off) gets it now.
      if (!result.created) {
        const usable = targets.filter((t) => !problems.some((p) => p.target === t));
        if (await fanOut(engine, stored, usable))
          stored = (await engine.store.getCase(stored.id)) ?? stored;
      }
      // Every post refused for good (bad room, 401/403, bot not in the channel, chat not found):
      // nobody will see the case, so nothing should wait for it.
      const refused = result.created ? await allRefused(engine, stored, result.messages) : null;
      if (refused) {
        await giveUpDelivery(
          engine,
          stored.id,
          refused.map((p) => `${p.target}: ${p.reason}`).join('; '),
        );
        return c.json(notDelivered(refused, stored.id), 422);
      }
      return c.json(
        await caseView(engine, stored, { messages: result.created ? result.messages : undefined }),
        result.created ? 201 : 200,
      );
    } catch (err) {
      if (err instanceof ValidationError)
        return c.json({ error: err.code, message: err.message, details: err.details }, 400);
      const full = storageFailure(err);
      if (full) {
        engine.log.error({ err: err instanceof Error ? err.message : String(err) }, full.message);
        return c.json(
          {
            error: full.status === 507 ? 'insufficient_storage' : 'store_unavailable',
            message: full.message,
          },
          full.status,
          // Out of room takes an operator; a store that is down comes back by itself.
          { 'retry-after': full.status === 507 ? '30' : '5' },
        );
      }
      throw err;
    }
  });

  app.get('/v1/cases', async (c) => {
    const open = c.req.query('open') === '1' || c.req.query('open') === 'true';
    const limit = Math.min(500, Math.max(1, Number(c.req.query('limit') ?? 50) || 50));
    const offset = Math.max(0, Number(c.req.query('offset') ?? 0) || 0);
    const cases = await engine.store.listCases({ open, limit, offset });
    return c.json({ cases: await Promise.all(cases.map((x) => caseView(engine, x))) });
  });

  app.get('/v1/cases/:id', async (c) => {
    const found = await engine.store.getCase(c.req.param('id'));
    if (!found) return c.json({ error: 'not_found', message: 'no case with this id' }, 404);
    return c.json(await caseView(engine, found, { history: true }));
  });

  // Posts the card again where its message is gone (deleted, bot removed, chat closed).
  app.post('/v1/cases/:id/repost', async (c) => {
    const id = c.req.param('id');
    if (!(await engine.store.getCase(id)))
      return c.json({ error: 'not_found', message: 'no case with this id' }, 404);
    const reposted = await engine.cards.repost(id);
    const found = await engine.store.getCase(id);
    return c.json({ reposted, case: found ? await caseView(engine, found) : null });
  });

  app.get('/v1/cases/:id/wait', async (c) => {
    const timeout = Number(c.req.query('timeout') ?? 30);
    if (!Number.isFinite(timeout) || timeout < 0 || timeout > 120)
      return c.json(
        {
          error: 'invalid_timeout',
          message: 'timeout must be a number of seconds from 0 to 120',
          details: [{ path: 'timeout', message: 'must be a number of seconds from 0 to 120' }],
        },
        400,
      );
    const found = await engine.waitFor(c.req.param('id'), timeout * 1000, o.closed);
    if (!found) return c.json({ error: 'not_found', message: 'no case with this id' }, 404);
    return c.json(await caseView(engine, found, { history: true }));
  });

  app.get('/r/:key/:sig', async (c) => {
    const found = await engine.store.getCaseByKey(c.req.param('key'));
    const expected = found ? engine.detailsUrl(found) : undefined;
    if (!found || !expected?.endsWith(`/${c.req.param('sig')}`))
      return c.json({ error: 'not_found', message: 'unknown or invalid link' }, 404);
    await engine.history(found.id, 'details_opened', {});
    c.header('cache-control', 'no-store');
    c.header('referrer-policy', 'no-referrer');
    return c.redirect(engine.secretsOf(found).review_url, 303);
  });

  app.get('/healthz', (c) => c.json({ ok: true }));
  // Per part {state, reason, since}; 503 until every configured platform and the store are up.
  app.get('/readyz', async (c) => {
    const r = await o.readiness();
    return c.json(r, r.ready ? 200 : 503);
  });
  app.get('/metrics', async (c) =>
    c.body(await metrics.scrape(), 200, { 'content-type': metrics.registry.contentType }),
  );
  app.get('/openapi.json', (c) =>
    c.json(openApiDocument({ config: engine.config, adapters: o.adapters })),
  );

  for (const adapter of o.adapters) for (const route of adapter.routes) mountRoute(app, route);
  o.mount?.(app);

  app.notFound((c) =>
    c.json({ error: 'not_found', message: `no route ${c.req.method} ${c.req.path}` }, 404),
  );
  app.onError((err, c) => {
    if (isStoreOutage(err)) {
      engine.log.warn({ err: err.message, path: c.req.path }, 'store unavailable; answered 503');
      return c.json(
        {
          error: 'store_unavailable',
          message: 'the database is unavailable; retry shortly (see /readyz)',
        },
        503,
        { 'retry-after': '5' },
      );
    }
    engine.log.error({ err: err.message, path: c.req.path }, 'request failed');
    return c.json({ error: 'internal', message: 'internal error' }, 500);
  });
  return app;
}

/** Refuses requests whose Host header is not a loopback name, a loopback address or PUBLIC_URL's host. */
function loopbackHostOnly(publicUrl: string | undefined) {
  const extra = publicUrl ? new URL(publicUrl).hostname.toLowerCase() : undefined;
  return async (c: Context, next: () => Promise<void>) => {
    const raw = (c.req.header('host') ?? '').toLowerCase();
    const name = raw.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
    // No Host at all is an in-process call (an embedder's app.fetch), never a browser.
    const ok =
      raw === '' ||
      name === extra ||
      isLoopbackName(name) ||
      (isIP(name) !== 0 && isLoopback(name));
    if (ok) return next();
    return c.json(
      {
        error: 'forbidden_host',
        message: `Host "${raw.slice(0, 80)}" is not served: without RELAY_API_KEY the relay answers only to loopback names (set PUBLIC_URL for another)`,
      },
      403,
    );
  };
}

/** Serves an adapter's route: the raw body is read once (size-limited above) and handed over. */
export function mountRoute(app: Hono, route: HttpRoute): void {
  app.on(route.method, route.path, async (c) => {
    const headers: Record<string, string> = {};
    c.req.raw.headers.forEach((v, k) => {
      headers[k.toLowerCase()] = v;
    });
    const res = await route.handle({
      method: c.req.method,
      path: c.req.path,
      query: new URL(c.req.url).searchParams,
      headers,
      rawBody: Buffer.from(await c.req.arrayBuffer()),
      params: c.req.param() as Record<string, string>,
      ...peerOf(c.env),
      signal: c.req.raw.signal,
    });
    return toResponse(res);
  });
}

/** The peer's address from @hono/node-server's bindings (absent elsewhere). */
function peerOf(env: unknown): { remoteAddress?: string } {
  const address = (env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)
    ?.incoming?.socket?.remoteAddress;
  return address ? { remoteAddress: address } : {};
}

function toResponse(res: InboundResponse): Response {
  const headers = new Headers(res.headers ?? {});
  let body: BodyInit | null = null;
  if (typeof res.body === 'string') body = res.body;
  else if (Buffer.isBuffer(res.body)) body = new Uint8Array(res.body);
  else if (res.body !== undefined) {
    body = JSON.stringify(res.body);
    if (!headers.has('content-type'))
      headers.set('content-type', 'application/json; charset=utf-8');
  }
  return new Response(body, { status: res.status, headers });
}
