/**
 * A sessionful 2025-era upstream for gateway tests: an McpServer (official SDK) per session on
 * the SDK's Streamable HTTP transport, on loopback, so the server's own requests (elicitInput)
 * and notifications reach the gateway as wire messages on the session's streams.
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import {
  type McpServer,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';

/** The running upstream: its URL and how to stop it. */
export interface SessionfulUpstream {
  url: string;
  close(): Promise<void>;
}

/** Serves a fresh `make()` server per session on 127.0.0.1. */
export async function startSessionfulUpstream(make: () => McpServer): Promise<SessionfulUpstream> {
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const fetch = async (req: Request) => {
    const sid = req.headers.get('mcp-session-id');
    const known = sid ? sessions.get(sid) : undefined;
    if (known) return known.handleRequest(req);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, transport),
    });
    await make().connect(transport);
    return transport.handleRequest(req);
  };
  const http = serve({ fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((resolve) => http.once('listening', () => resolve()));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    close: async () => {
      await Promise.all([...sessions.values()].map((t) => t.close()));
      // The gateway's standing GET streams would keep the server open.
      (http as unknown as { closeAllConnections(): void }).closeAllConnections();
      await new Promise((r) => http.close(r));
    },
  };
}
