/**
 * `/mcp`: the relay's MCP server (mcp/front.ts) over Streamable HTTP. The API key rule is the app's
 * (server/app.ts, as for /v1); in the local default (no key, loopback) the SDK's Host and Origin
 * checks stand in front too, so a web page cannot reach it through DNS rebinding or a form post.
 * `?target=platform:address` on the URL is the connection's default target.
 */
import {
  hostHeaderValidationResponse,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  originValidationResponse,
} from '@modelcontextprotocol/server';
import type { Hono } from 'hono';
import type { McpFront } from '../mcp/front.ts';

/** Where the MCP server is mounted. */
export const MCP_PATH = '/mcp';

/** Mounts `front` at /mcp; `localOnly` arms the localhost Host and Origin checks. */
export function registerMcpRoutes(
  app: Hono,
  front: McpFront,
  o: { localOnly: boolean; publicUrl?: string | undefined },
): void {
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
    return front.fetch(req, {
      origin: new URL(c.req.url).origin,
      ...(target ? { defaultTarget: target } : {}),
    });
  });
}
