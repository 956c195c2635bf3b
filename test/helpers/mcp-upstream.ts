/**
 * An upstream MCP server for gateway tests, written with the official SDK (low-level Server, so
 * pages and progress are exactly what a test says) and served over Streamable HTTP on loopback by
 * the SDK's createMcpHandler (both eras). It records what reached it: every tools/call with its
 * arguments and request headers, and every cancellation.
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import {
  createMcpHandler,
  Server,
  type ServerContext,
  type Tool,
} from '@modelcontextprotocol/server';

/** One call the upstream received. */
export interface ReceivedCall {
  name: string;
  args: Record<string, unknown>;
  headers: Record<string, string>;
}

/** The running upstream. */
export interface TestUpstream {
  url: string;
  calls: ReceivedCall[];
  /** Reasons of calls the client cancelled (their signal aborted). */
  cancelled: string[];
  /** Register more handlers on every instance (elicitation tests). */
  extend(fn: (server: Server) => void): void;
  close(): Promise<void>;
}

/** The tools, served in two pages of two and one. */
export const UPSTREAM_TOOLS: Tool[] = [
  {
    name: 'echo',
    description: 'echoes',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'slow',
    description: 'waits with progress until cancelled',
    inputSchema: { type: 'object' },
  },
  { name: 'fail', description: 'a tool error', inputSchema: { type: 'object' } },
];

function headersOf(ctx: ServerContext): Record<string, string> {
  const out: Record<string, string> = {};
  ctx.http?.req?.headers.forEach((v, k) => {
    out[k] = v;
  });
  return out;
}

/** Starts the upstream on 127.0.0.1. */
export async function startUpstream(): Promise<TestUpstream> {
  const calls: ReceivedCall[] = [];
  const cancelled: string[] = [];
  const extensions: Array<(s: Server) => void> = [];
  // A 2025 client's cancel reaches another (stateless) instance: the open slow calls by request id.
  const open = new Map<string, (reason: string) => void>();
  const handler = createMcpHandler(({ era }) => {
    const server = new Server(
      { name: 'test-upstream', version: '3.1.4' },
      {
        capabilities: { tools: { listChanged: true }, resources: {}, prompts: {} },
        instructions: 'the upstream instructions',
      },
    );
    server.setRequestHandler('tools/list', async (req) => {
      const page = req.params?.cursor === 'page-2' ? 1 : 0;
      return page === 0
        ? { tools: UPSTREAM_TOOLS.slice(0, 2), nextCursor: 'page-2' }
        : { tools: UPSTREAM_TOOLS.slice(2) };
    });
    server.setRequestHandler('tools/call', async (req, ctx) => {
      const args = (req.params.arguments ?? {}) as Record<string, unknown>;
      calls.push({ name: req.params.name, args, headers: headersOf(ctx) });
      if (req.params.name === 'echo')
        return { content: [{ type: 'text', text: `echo: ${String(args.text)}` }] };
      if (req.params.name === 'fail')
        return { isError: true, content: [{ type: 'text', text: 'the upstream tool failed' }] };
      if (req.params.name === 'slow') {
        const token = ctx.mcpReq._meta?.progressToken;
        if (token !== undefined)
          await ctx.mcpReq.notify({
            method: 'notifications/progress',
            params: { progressToken: token, progress: 1, total: 2, message: 'half way' },
          });
        await new Promise<void>((resolve) => {
          const end = (reason: string) => {
            open.delete(String(ctx.mcpReq.id));
            cancelled.push(reason);
            resolve();
          };
          open.set(String(ctx.mcpReq.id), end);
          ctx.mcpReq.signal.addEventListener('abort', () =>
            end(String(ctx.mcpReq.signal.reason ?? 'aborted')),
          );
        });
        return { content: [{ type: 'text', text: 'cancelled' }] };
      }
      throw new Error(`no tool ${req.params.name}`);
    });
    server.setRequestHandler('resources/list', async () => ({
      resources: [{ uri: 'test://doc', name: 'doc', mimeType: 'text/plain' }],
    }));
    server.setRequestHandler('resources/read', async (req) => ({
      contents: [
        { uri: req.params.uri, mimeType: 'text/plain', text: `contents of ${req.params.uri}` },
      ],
    }));
    server.setRequestHandler('prompts/list', async () => ({
      prompts: [{ name: 'greet', arguments: [{ name: 'who', required: true }] }],
    }));
    server.setRequestHandler('prompts/get', async (req) => ({
      messages: [
        { role: 'user', content: { type: 'text', text: `hello ${req.params.arguments?.who}` } },
      ],
    }));
    if (era === 'legacy')
      server.setNotificationHandler('notifications/cancelled', (n) => {
        open.get(String(n.params.requestId))?.(n.params.reason ?? 'cancelled');
      });
    for (const fn of extensions) fn(server);
    return server;
  });
  const served = await serveMcpHandler(handler);
  return {
    url: served.url,
    calls,
    cancelled,
    extend: (fn) => void extensions.push(fn),
    close: served.close,
  };
}

/** An SDK handler (createMcpHandler) served over Streamable HTTP on 127.0.0.1, at `<url>`. */
export interface ServedMcp {
  url: string;
  close(): Promise<void>;
}

/**
 * Serves `handler` on a free loopback port at /mcp. `onBody` hears each request's raw body before
 * the SDK reads it (a test that checks bytes, e.g. requestState echoed exactly).
 */
export async function serveMcpHandler(
  handler: ReturnType<typeof createMcpHandler>,
  onBody?: (raw: string) => void,
): Promise<ServedMcp> {
  const fetch = async (req: Request) => {
    if (onBody) onBody(await req.clone().text());
    return handler.fetch(req);
  };
  const http = serve({ fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((resolve) => http.once('listening', () => resolve()));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    async close() {
      await handler.close();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
