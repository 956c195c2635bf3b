/**
 * The MCP gateway: one supervised connection per upstream of RELAY_CONFIG's `mcp_upstreams`, and
 * per upstream a web-standard MCP handler (the SDK's createMcpHandler: both protocol eras, a fresh
 * downstream server per HTTP request) that server/gateway-routes.ts mounts at /mcp/gateway/<name>.
 * The upstream's list changes and resource updates reach downstream clients that listen
 * (2026-07-28 `subscriptions/listen`); a 2025-era stateless client reads the lists again.
 */
import {
  createMcpHandler,
  type McpHttpHandler,
  type Notification,
} from '@modelcontextprotocol/server';
import type { Dispatcher } from 'undici';
import type { McpUpstreamConfig } from '../config/mcp-upstreams.ts';
import type { Health } from '../health.ts';
import type { Logger } from '../log.ts';
import { LegacyCancels } from '../mcp/cancels.ts';
import { cancelScope, sessionOf, withSession } from '../mcp/legacy-session.ts';
import { readMcpBody } from '../mcp/request-body.ts';
import type { UrlPolicy } from '../net/url-policy.ts';
import {
  type HeaderOf,
  LeanCounts,
  type LeanPlan,
  type LeanReply,
  leanCall,
  leanPlan,
} from './lean-call.ts';
import { type DownstreamClient, downstreamServer } from './proxy.ts';
import type { GateTool, GateToolCall } from './tool-gate.ts';
import { Upstream, type UpstreamDeps } from './upstream.ts';
import { checkUpstreamUrls } from './upstream-policy.ts';

/** What the gateway needs of the relay. */
export interface GatewayDeps {
  upstreams: Record<string, McpUpstreamConfig>;
  /** The guarded outbound dispatcher (URL policy on every address). */
  dispatcher: Dispatcher;
  /** The URL policy the upstream URLs are checked against before anything starts. */
  policy: UrlPolicy;
  log: Logger;
  health?: Health | undefined;
  /** Decides every downstream tools/call before it goes upstream (tool-gate.ts). */
  gate: GateToolCall;
  /** The gate's rule is `allow`, known without waiting (the lean path: lean-call.ts). */
  allows?: ((upstream: string, tool: GateTool) => boolean) | undefined;
  /** Adds the gateway's request handlers (elicitation) to each upstream client. */
  prepare?: UpstreamDeps['prepare'];
  /** Where the gateway's tasks are kept across restarts (downstream-tasks.ts). */
  tasks?: UpstreamDeps['tasks'];
}

/** The gateway. */
export interface McpGateway {
  /** The configured upstream names. */
  readonly names: string[];
  /**
   * Serves one HTTP request for upstream `name`; undefined when there is no such upstream. With
   * `handover`, the request's lean call answered `input_required`: the SDK path takes it from there.
   */
  fetch(
    name: string,
    request: Request,
    who: DownstreamClient,
    handover?: LeanHandover,
  ): Promise<Response> | undefined;
  /**
   * The lean pass-through of one request's parsed JSON body (server/gateway-raw.ts serves it below
   * the web layer); undefined when it does not apply (then `fetch` serves the request as always).
   */
  passThrough(
    name: string,
    header: HeaderOf,
    body: unknown,
    who: DownstreamClient,
    signal: AbortSignal,
  ): Promise<LeanReply | LeanHandover> | undefined;
  /** The upstream called `name`. */
  upstream(name: string): Upstream | undefined;
  /** How often the lean pass-through was taken, and handed back to the SDK path. */
  readonly lean: LeanCounts;
  /** Closes every downstream exchange and upstream connection (children end). */
  close(): Promise<void>;
}

/** Creates the gateway and starts connecting to every upstream (ValidationError for a refused URL). */
export function createGateway(deps: GatewayDeps): McpGateway {
  checkUpstreamUrls(deps.upstreams, deps.policy);
  const handlers = new Map<string, McpHttpHandler>();
  const upstreams = new Map<string, Upstream>();
  const onNotification = (name: string, n: Notification) => {
    const h = handlers.get(name);
    if (h) relayNotification(h, n);
  };
  for (const [name, config] of Object.entries(deps.upstreams)) {
    const upstream = new Upstream(name, config, {
      dispatcher: deps.dispatcher,
      log: deps.log,
      health: deps.health,
      onNotification,
      ...(deps.prepare && { prepare: deps.prepare }),
      tasks: deps.tasks,
    });
    upstreams.set(name, upstream);
    handlers.set(name, downstreamHandler(name, upstream, deps));
    upstream.start();
  }
  const lean = new LeanCounts();
  return {
    lean,
    names: [...upstreams.keys()],
    upstream: (name) => upstreams.get(name),
    fetch(name, request, who, handover) {
      const h = handlers.get(name);
      if (!h) return undefined;
      // Where this client reached the relay: the links of the upstream's elicitation asks.
      const u = upstreams.get(name);
      if (u && who.origin) u.origin = who.origin;
      return serve(h, request, who, u && { upstream: u, allows: deps.allows, lean }, handover);
    },
    passThrough(name, header, body, who, signal) {
      const u = handlers.has(name) ? upstreams.get(name) : undefined;
      const run =
        u && leanRun({ upstream: u, allows: deps.allows, lean }, header, body, who, signal);
      if (u && run && who.origin) u.origin = who.origin;
      return run;
    },
    async close() {
      await Promise.all([...handlers.values()].map((h) => h.close()));
      await Promise.all([...upstreams.values()].map((u) => u.close()));
    },
  };
}

/** A lean call that answered `input_required`: the SDK path drives its rounds (Upstream.handOver). */
export interface LeanHandover {
  handover: Record<string, unknown>;
  plan: LeanPlan;
}

type LeanSide = { upstream: Upstream; allows: GatewayDeps['allows']; lean: LeanCounts };

/** Sends a request's call the lean way when its plan applies (lean-call.ts); undefined otherwise. */
function leanRun(
  l: LeanSide,
  header: HeaderOf,
  body: unknown,
  who: DownstreamClient,
  signal: AbortSignal,
): Promise<LeanReply | LeanHandover> | undefined {
  const plan = leanPlan(l.upstream, header, body, l.allows);
  if (!plan) return undefined;
  l.lean.taken += 1;
  return leanCall(l.upstream, plan, who.keyName, signal).then((answer) => {
    if (!('handover' in answer)) return answer;
    l.lean.handedOver += 1;
    return { handover: answer.handover, plan };
  });
}

/**
 * Hands one request to `h`, its JSON body read once and handed over parsed (mcp/request-body.ts:
 * without it the SDK clones the request and reads it through a teed web stream).
 */
async function serve(
  h: McpHttpHandler,
  request: Request,
  who: DownstreamClient,
  l?: LeanSide,
  handover?: LeanHandover,
) {
  const read = await readMcpBody(request);
  if (read instanceof Response) return read;
  let pass = handover;
  const run =
    !pass && l && leanRun(l, (n) => request.headers.get(n), read.parsedBody, who, request.signal);
  if (run) {
    const answer = await run;
    if (!('handover' in answer))
      return new Response(answer.text, { headers: { 'content-type': 'application/json' } });
    pass = answer;
  }
  // A 2025 client's session (legacy-session.ts): its cancels are matched within it.
  const session = sessionOf(read.request.headers);
  const caller = session ? { ...who, session } : who;
  // The relay checked the API key in front; this only names the caller to the tool gate.
  const sdk = () =>
    h
      .fetch(read.request, {
        authInfo: {
          token: '',
          clientId: who.keyName ?? 'relay-key',
          scopes: [],
          extra: { who: caller },
        },
        ...(read.parsedBody !== undefined ? { parsedBody: read.parsedBody } : {}),
      })
      .then((response) => withSession(response, read.parsedBody));
  return l && pass ? l.upstream.handOver(pass.plan.call.name, pass.handover, sdk) : sdk();
}

/** One upstream's downstream handler: a fresh server per request, the tool gate in front of calls. */
function downstreamHandler(name: string, upstream: Upstream, deps: GatewayDeps): McpHttpHandler {
  // A 2025 client's cancel arrives in a POST of its own, at another server instance.
  const cancels = new LegacyCancels();
  return createMcpHandler(
    async ({ authInfo, era }) => {
      const who = (authInfo?.extra as { who?: DownstreamClient } | undefined)?.who;
      const caller = who ?? { keyName: null };
      const server = await downstreamServer(upstream, caller, cancels, deps.gate, era);
      if (era === 'legacy')
        server.setNotificationHandler('notifications/cancelled', (n) => {
          const { requestId, reason } = n.params;
          const scope = cancelScope(caller.keyName, caller.session);
          if (requestId !== undefined)
            cancels.cancel(requestId, reason ?? 'cancelled by the client', scope);
        });
      return server;
    },
    {
      onerror: (err) =>
        deps.log.debug({ upstream: name, err: err.message }, 'mcp gateway: request refused'),
    },
  );
}

/** Hands an upstream's change notification to the downstream listeners of its handler. */
function relayNotification(h: McpHttpHandler, n: Notification): void {
  const uri = (n.params as { uri?: unknown } | undefined)?.uri;
  if (n.method === 'notifications/tools/list_changed') h.notify.toolsChanged();
  else if (n.method === 'notifications/prompts/list_changed') h.notify.promptsChanged();
  else if (n.method === 'notifications/resources/list_changed') h.notify.resourcesChanged();
  else if (n.method === 'notifications/resources/updated' && typeof uri === 'string')
    h.notify.resourceUpdated(uri);
}
