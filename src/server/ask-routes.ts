/**
 * `POST /v1/asks` (with Idempotency-Key) and `GET /v1/asks/:id[/wait]`: the HTTP API of asks
 * (asks-service/asks.ts), and mountAskService, the relay's one hook for asks: the HITL service at
 * /asks and this API at /v1/asks. API-key protection and rate limiting are the app's.
 */
import type { Context, Hono } from 'hono';
import type { Registry } from 'prom-client';
import { askContentOf } from '../asks/content.ts';
import {
  type AskDeps,
  agentSubmitToken,
  askView,
  createAsk,
  DEFAULT_ASK_SECONDS,
  MAX_ASK_SECONDS,
} from '../asks-service/asks.ts';
import { recordCallbackOutcome } from '../asks-service/callbacks.ts';
import { discoveryDocument } from '../asks-service/discovery.ts';
import { IdempotencyKey, idempotencyKeyProblem } from '../asks-service/idempotency.ts';
import { mountAsks } from '../asks-service/service.ts';
import type { CardDelivery } from '../cases/card-delivery.ts';
import type { CaseRepository } from '../cases/repository.ts';
import type { RelayConfig } from '../config/config.ts';
import type { Health } from '../health.ts';
import {
  type CallbackOutcome,
  type HitlService,
  POLL_RETRY_AFTER_SECONDS,
} from '../hitl-service/index.ts';
import type { Logger } from '../log.ts';
import { createMcpFront } from '../mcp/front.ts';
import type { McpToolDeps } from '../mcp/tools.ts';
import { createElicitation } from '../mcp-gateway/elicitation.ts';
import { createGateway, type McpGateway } from '../mcp-gateway/gateway.ts';
import { createToolGate } from '../mcp-gateway/tool-gate.ts';
import { createGuardedAgent } from '../net/http.ts';
import { createTextSealer } from '../store/sealer.ts';
import type { StoredCase } from '../store/types.ts';
import { ApiError } from './api-error.ts';
import { registerGatewayMetrics, registerGatewayRoutes } from './gateway-routes.ts';
import { readJsonBody } from './inbound.ts';
import { isLocalOnly } from './loopback-host.ts';
import { registerMcpMetrics, registerMcpRoutes } from './mcp-routes.ts';

/** Registers /v1/asks (API-key protection and rate limiting are the app's, as for /v1/cases). */
export function registerAskRoutes(app: Hono, relay: AskDeps, asks: HitlService): void {
  // Discovery (v0.9 Appendix D names hitl.json; /.well-known/hitl is the same document). Public.
  const discovery = discoveryDocument({
    publicUrl: relay.config.publicUrl,
    pollRetryAfterSeconds: POLL_RETRY_AFTER_SECONDS,
    defaultAskSeconds: DEFAULT_ASK_SECONDS,
    maxAskSeconds: MAX_ASK_SECONDS,
    retentionMs: relay.config.retentionMs,
  });
  for (const path of ['/.well-known/hitl.json', '/.well-known/hitl'])
    app.get(path, (c) => c.json(discovery, 200, { 'cache-control': 'public, max-age=300' }));
  app.post('/v1/asks', async (c) => {
    const raw = await readJsonBody(
      c,
      'send {"target": "<platform>:<address>", "content": <the ask>}',
    );
    // Idempotency-Key: a retried ask answers with the case the first request created.
    const key = c.req.header('idempotency-key');
    let idem: IdempotencyKey | undefined;
    if (key !== undefined) {
      const problem = idempotencyKeyProblem(key);
      if (problem) throw new ApiError(400, 'invalid_idempotency_key', problem);
      idem = new IdempotencyKey(relay.store.kv, key, raw);
      const early = await replayOrRefuse(c, relay, idem);
      if (early) return early;
    }
    let settled = false;
    try {
      const created = await createAsk(relay, asks, raw, new URL(c.req.url).origin);
      if (idem) await idem.settle(created.relay.id);
      settled = true;
      // The 202 carries the case's tokens: never kept by a cache (v0.9 §13.7).
      return c.json(created, 202, { 'retry-after': '30', 'cache-control': 'no-store' });
    } catch (err) {
      if (idem && !settled) await idem.release();
      throw err;
    }
  });

  const read = async (c: Context, found: StoredCase | undefined) => {
    const content = found && askContentOf(found.doc.hitl.context);
    if (!found || !content) throw new ApiError(404, 'not_found', 'no ask with this id');
    return c.json(await askView(relay, found, content));
  };
  app.get('/v1/asks/:id', async (c) => read(c, await relay.store.getCase(c.req.param('id'))));
  app.get('/v1/asks/:id/wait', async (c) => {
    const timeout = Number(c.req.query('timeout') ?? 30);
    if (!Number.isFinite(timeout) || timeout < 0 || timeout > 120)
      throw new ApiError(400, 'invalid_timeout', 'timeout must be 0-120 seconds');
    return read(c, await relay.cases.waitFor(c.req.param('id'), timeout * 1000));
  });
}

/** The answer to a request whose key was seen before (its case, or why not); null for a new one. */
async function replayOrRefuse(c: Context, relay: AskDeps, idem: IdempotencyKey) {
  const claim = await idem.claim();
  if (claim.kind === 'new') return null;
  if (claim.kind === 'conflict')
    throw new ApiError(
      422,
      'idempotency_key_reused',
      'this Idempotency-Key was used for a different request body; use a new key for a new ask',
    );
  if (claim.kind === 'in_progress')
    throw new ApiError(
      409,
      'idempotency_key_in_use',
      'a request with this Idempotency-Key is still being handled; retry in a moment',
      undefined,
      { headers: { 'retry-after': '1' } },
    );
  const found = await relay.store.getCase(claim.id);
  if (!found)
    throw new ApiError(
      409,
      'idempotency_case_gone',
      'the ask this Idempotency-Key created is no longer kept; use a new key',
    );
  // The same 202 as the first time: the hitl object as taken in, its secrets put back.
  const secrets = relay.sealer.open(found.secrets);
  // The agent's own token again, never the relay's (which decides a policy-bound ask).
  const token = agentSubmitToken(secrets);
  const hitl = {
    ...found.doc.hitl,
    review_url: secrets.review_url,
    ...(token ? { submit_token: token } : {}),
  };
  return c.json(
    {
      status: 'human_input_required',
      ...(found.doc.message !== undefined ? { message: found.doc.message } : {}),
      hitl,
      relay: await askView(relay, found),
    },
    202,
    { 'retry-after': '30', 'idempotent-replayed': 'true', 'cache-control': 'no-store' },
  );
}

/** What mountAskService uses of the relay: the asks' needs, the case events, the key rule. */
export type AskServiceDeps = McpToolDeps & {
  cases: McpToolDeps['cases'] & Pick<CaseRepository, 'history' | 'patchDoc'>;
  cards?: Pick<CardDelivery, 'settled'>;
  instanceId?: string;
  config: McpToolDeps['config'] &
    Pick<
      RelayConfig,
      | 'apiKey'
      | 'host'
      | 'intakeRateLimitPerMinute'
      | 'mcpUpstreams'
      | 'allowHosts'
      | 'allowHttpLoopback'
      | 'notify'
    >;
};

/** Spec 9 callbacks of asks: signed with the notify secret the agent verifies notify_url with. */
function callbacksOf(relay: AskServiceDeps, log: Logger) {
  return {
    secret: relay.config.notify?.secret,
    dispatcher: createGuardedAgent(relay.config, { connections: 16 }),
    onOutcome: (o: CallbackOutcome) => void recordCallbackOutcome({ ...relay, log }, o),
  };
}

/** The mounted asks service, and the hooks of the relay's start and stop. */
export interface MountedAsks {
  service: HitlService;
  /** The MCP gateway (/mcp/gateway/<name>), for its pass-through below the web layer. */
  gateway: McpGateway;
  /** The relay started: the gateway withdraws elicitation asks a previous process left open. */
  started(): void;
  /** The relay is stopping (before anything closes): open elicitation asks are withdrawn. */
  stopping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Mounts the service, its API and the MCP server (/mcp) on `app`; close() ends open MCP calls and
 * stops the service's timers and event streams. With DATABASE_URL the service keeps its cases in
 * PostgreSQL, so every replica serves every ask.
 */
export function mountAskService(
  app: Hono,
  relay: AskServiceDeps,
  log: Logger,
  health?: Health,
  registry?: Registry,
): MountedAsks {
  const { dataDir, databaseUrl, retentionMs, secretKey } = relay.config;
  const service = mountAsks(app, {
    dataDir,
    log,
    retentionMs,
    ...(secretKey && { secretKey }),
    ...(databaseUrl && { databaseUrl }),
    ...(health && { health }),
    callbacks: callbacksOf(relay, log),
  });
  registerAskRoutes(app, relay, service);
  const mcp = createMcpFront(relay, service);
  const { publicUrl } = relay.config;
  // The local default (no key, loopback): the same rule as the app's loopbackHostOnly.
  const localOnly = isLocalOnly(relay.config);
  registerMcpRoutes(app, mcp, {
    localOnly,
    publicUrl,
    intakePerMinute: relay.config.intakeRateLimitPerMinute,
    now: relay.now,
  });
  if (registry) registerMcpMetrics(registry, mcp);
  const mounted = mountGateway(app, relay, service, {
    localOnly,
    publicUrl,
    log,
    health,
    registry,
  });
  const { gate, elicitation, gateway } = mounted;
  return {
    service,
    gateway,
    started: () => void elicitation.started(gateway.upstream).catch(() => 0),
    stopping: () => elicitation.stopping(),
    async close() {
      // First: the waits the gateway's close ends are the relay stopping, not clients cancelling.
      gate.close();
      elicitation.close();
      await gateway.close();
      await mcp.close();
      await service.close();
    },
  };
}

/** The purpose the gateway's task results are sealed under. */
const TASKS_SEAL = 'mcp-gateway tasks v1';

/** The MCP gateway (/mcp/gateway/<name>): its tool gate and its elicitations, as asks of `service`. */
function mountGateway(
  app: Hono,
  relay: AskServiceDeps,
  service: HitlService,
  o: { localOnly: boolean; publicUrl: string | undefined; log: Logger } & {
    health?: Health | undefined;
    registry?: Registry | undefined;
  },
) {
  const { log, health, registry, localOnly, publicUrl } = o;
  // The asks' links when no downstream request said where the client reached the relay.
  const origin = () => publicUrl ?? `http://${relay.config.host}`;
  // The tool gate holds an upstream's risky calls as asks of this service (tool-gate.ts).
  const gate = createToolGate({ relay, asks: service, origin }, relay.config.mcpUpstreams);
  // Upstream elicitations become asks in the upstream's target (elicitation.ts).
  const { cards, instanceId } = relay;
  const elicitation = createElicitation({
    ...{ relay, asks: service, origin, cases: relay.cases, cards, instanceId, now: relay.now },
  });
  const gateway = createGateway({
    gate,
    allows: gate.allows,
    prepare: elicitation.prepare,
    // A downstream client's task of the gateway answers after a restart (downstream-tasks.ts).
    tasks: { kv: relay.store.kv, sealer: createTextSealer(relay.config.secretKey, TASKS_SEAL) },
    upstreams: relay.config.mcpUpstreams,
    dispatcher: createGuardedAgent(relay.config),
    policy: relay.config,
    log,
    health,
  });
  registerGatewayRoutes(app, gateway, { localOnly, publicUrl });
  if (registry) registerGatewayMetrics(registry, [gate.waits, elicitation.waits], gateway.lean);
  return { gate, elicitation, gateway };
}
