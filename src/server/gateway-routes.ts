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
import type { McpGateway } from '../mcp-gateway/gateway.ts';
import { ApiError } from './api-error.ts';

/** Where the gateway's upstreams are mounted (`${GATEWAY_PATH}/<name>`). */
export const GATEWAY_PATH = '/mcp/gateway';

/** Mounts `gateway` at /mcp/gateway/:name; `localOnly` arms the localhost Host and Origin checks. */
export function registerGatewayRoutes(
  app: Hono,
  gateway: McpGateway,
  o: { localOnly: boolean; publicUrl?: string | undefined },
): void {
  const extra = o.publicUrl ? [new URL(o.publicUrl).hostname.toLowerCase()] : [];
  const hosts = [...localhostAllowedHostnames(), ...extra];
  const origins = [...localhostAllowedOrigins(), ...extra];
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
    const served = gateway.fetch(name, req, { keyName: null, origin });
    if (!served)
      throw new ApiError(
        404,
        'not_found',
        `no MCP upstream "${name.slice(0, 64)}" in mcp_upstreams (configured: ${gateway.names.join(', ') || 'none'})`,
      );
    return served;
  });
}
