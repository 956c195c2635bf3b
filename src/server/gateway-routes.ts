/**
 * `/mcp/gateway/<name>`: the MCP gateway (mcp-gateway/) in front of upstream `<name>` of
 * RELAY_CONFIG, over Streamable HTTP. The API key rule is the app's (server/app.ts, as for /mcp);
 * in the local default (no key, loopback) the SDK's Host and Origin checks stand in front too.
 */
import {
  hostHeaderValidationResponse,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse,
} from '@modelcontextprotocol/server';
import type { Hono } from 'hono';
import { Gauge, type Registry } from 'prom-client';
import type { AskWaits } from '../mcp/waits.ts';
import type { LeanHandover, McpGateway } from '../mcp-gateway/gateway.ts';
import type { LeanCounts } from '../mcp-gateway/lean-call.ts';
import { ApiError } from './api-error.ts';
import { apiKeyNameOf } from './api-key-name.ts';

/** Where the gateway's upstreams are mounted (`${GATEWAY_PATH}/<name>`). */
export const GATEWAY_PATH = '/mcp/gateway';

/** Lean calls gateway-front.ts sent that answered input_required, by request: the route's now. */
const handovers = new WeakMap<object, LeanHandover>();

/** Leaves `handover` for the route to serve `incoming` with (its SDK path drives the rounds). */
export function leaveHandover(incoming: object, handover: LeanHandover): void {
  handovers.set(incoming, handover);
}

/** The hand-over left for this request (@hono/node-server's env names its IncomingMessage). */
function handoverOf(env: unknown): LeanHandover | undefined {
  const incoming = (env as { incoming?: object } | undefined)?.incoming;
  const h = incoming && handovers.get(incoming);
  if (h && incoming) handovers.delete(incoming);
  return h;
}

/** The Host names and Origins the local default serves the gateway to (PUBLIC_URL's host too). */
export function gatewayAllowed(publicUrl: string | undefined) {
  const extra = publicUrl ? [new URL(publicUrl).hostname.toLowerCase()] : [];
  return {
    hosts: [...localhostAllowedHostnames(), ...extra],
    origins: [...localhostAllowedOrigins(), ...extra],
  };
}

/** Mounts `gateway` at /mcp/gateway/:name; `localOnly` arms the localhost Host and Origin checks. */
export function registerGatewayRoutes(
  app: Hono,
  gateway: McpGateway,
  o: { localOnly: boolean; publicUrl?: string | undefined },
): void {
  const { hosts, origins } = gatewayAllowed(o.publicUrl);
  app.all(`${GATEWAY_PATH}/:name`, async (c) => {
    const req = c.req.raw;
    if (o.localOnly) {
      const refused =
        hostHeaderValidationResponse(req, hosts) ?? originValidationResponse(req, origins);
      if (refused) return refused;
    }
    const name = c.req.param('name');
    // The origin as the client reached the relay: a held call's ask links there (PUBLIC_URL wins).
    const origin = new URL(c.req.url).origin;
    // A lean call served below (gateway-front.ts) that answered input_required: the SDK path's now.
    const who = { keyName: apiKeyNameOf(c), origin };
    const served = gateway.fetch(name, req, who, handoverOf(c.env));
    if (!served)
      throw new ApiError(
        404,
        'not_found',
        `no MCP upstream "${name.slice(0, 64)}" in mcp_upstreams (configured: ${gateway.names.join(', ') || 'none'})`,
      );
    return served;
  });
}

/**
 * The gateway's held tool calls and open elicitations waiting for a person, and the store reads
 * their waits made (zero while nothing changes: the benchmark reads this gauge).
 */
export function registerGatewayMetrics(
  registry: Registry,
  waits: AskWaits[],
  lean?: LeanCounts,
): void {
  new Gauge({
    name: 'hitl_relay_gateway_lean_calls',
    help: 'MCP gateway tools/call taken by the lean pass-through since start (handed_over: answered input_required, sent again by the SDK path)',
    labelNames: ['outcome'],
    registers: [registry],
    collect() {
      this.set({ outcome: 'taken' }, lean?.taken ?? 0);
      this.set({ outcome: 'handed_over' }, lean?.handedOver ?? 0);
    },
  });
  new Gauge({
    name: 'hitl_relay_gateway_waiting',
    help: 'MCP gateway tool calls and elicitations of this process waiting for a person',
    registers: [registry],
    collect() {
      this.set(waits.reduce((n, w) => n + w.open, 0));
    },
  });
  new Gauge({
    name: 'hitl_relay_gateway_wait_reads',
    help: 'Store reads made by waiting MCP gateway calls since start (each follows a change of its ask)',
    registers: [registry],
    collect() {
      this.set(waits.reduce((n, w) => n + w.reads, 0));
    },
  });
}
