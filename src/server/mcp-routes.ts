/**
 * `/mcp`: the relay's MCP server (mcp/front.ts) over Streamable HTTP. The API key rule is the app's
 * (server/app.ts, as for /v1); in the local default (no key, loopback) the SDK's Host and Origin
 * checks stand in front too, so a web page cannot reach it through DNS rebinding or a form post.
 * `?target=platform:address` on the URL is the connection's default target. Asks made through it
 * count against their API key's intake rate limit as POST /v1/asks does (the same token buckets,
 * one set for /mcp), checked per ask a tool call would create, not per MCP message: polling a task
 * or listing tools is not intake.
 */
import {
  hostHeaderValidationResponse,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse,
} from '@modelcontextprotocol/server';
import type { Hono } from 'hono';
import { Gauge, type Registry } from 'prom-client';
import type { McpFront } from '../mcp/front.ts';
import { apiKeyOf, TokenBuckets } from './rate-limit.ts';

/** Where the MCP server is mounted. */
export const MCP_PATH = '/mcp';

/** Mounts `front` at /mcp; `localOnly` arms the localhost Host and Origin checks. */
export function registerMcpRoutes(
  app: Hono,
  front: McpFront,
  o: {
    localOnly: boolean;
    publicUrl?: string | undefined;
    /** INTAKE_RATE_LIMIT_PER_MINUTE (0: no limit). */
    intakePerMinute?: number;
    now?: () => number;
  },
): void {
  const perMinute = o.intakePerMinute ?? 0;
  const buckets = perMinute > 0 ? new TokenBuckets(perMinute, perMinute, o.now) : undefined;
  const extra = o.publicUrl ? [new URL(o.publicUrl).hostname.toLowerCase()] : [];
  const hosts = [...localhostAllowedHostnames(), ...extra];
  const origins = [...localhostAllowedOrigins(), ...extra];
  app.all(MCP_PATH, async (c) => {
    const req = c.req.raw;
    if (o.localOnly) {
      const refused =
        hostHeaderValidationResponse(req, hosts) ?? originValidationResponse(req, origins);
      if (refused) return refused;
    }
    const target = c.req.query('target');
    const key = apiKeyOf(c);
    return front.fetch(req, {
      origin: new URL(c.req.url).origin,
      ...(target ? { defaultTarget: target } : {}),
      ...(buckets ? { admit: () => buckets.take(key) } : {}),
    });
  });
}

/** The MCP calls waiting for a person, and the store reads their waits made (zero while idle). */
export function registerMcpMetrics(registry: Registry, front: McpFront): void {
  new Gauge({
    name: 'hitl_relay_mcp_waiting_calls',
    help: 'MCP tool calls of this process waiting for a person',
    registers: [registry],
    collect() {
      this.set(front.waits.open);
    },
  });
  new Gauge({
    name: 'hitl_relay_mcp_wait_reads',
    help: 'Store reads made by waiting MCP calls since start (each follows a change of its ask)',
    registers: [registry],
    collect() {
      this.set(front.waits.reads);
    },
  });
  new Gauge({
    name: 'hitl_relay_mcp_lean_calls',
    help: 'MCP tools/call requests served by the lean path (no SDK server per request) since start',
    registers: [registry],
    collect() {
      this.set(front.leanCalls);
    },
  });
}
