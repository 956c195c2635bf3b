/** Small test helpers for the Discord tests: cards, an adapter context, a stand-in HTTP front. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AdapterContext, HttpRoute, Tap, TapReply } from '../../../src/adapter.ts';
import { createLogger } from '../../../src/log.ts';
import type { Card } from '../../../src/render/card.ts';
import { MemoryKeyValue } from '../../../src/store/memory-kv.ts';

/** A pending approval card with approve/reject and a Details link. */
export function makeCard(overrides: Partial<Card> = {}): Card {
  return {
    caseId: 'case_01',
    key: 'k7f3q',
    title: 'Approval needed',
    prompt: 'Deploy v2.3 to production?',
    lines: ['Service: deploy-bot', 'Expires: 10:15 UTC'],
    hint: null,
    actions: [
      { action: 'approve', label: 'Approve', style: 'primary', payload: 'hitl:k7f3q:approve' },
      { action: 'reject', label: 'Reject', style: 'danger', payload: 'hitl:k7f3q:reject' },
    ],
    link: { label: 'Details', url: 'https://service.example/review/abc' },
    status: 'Waiting for a decision',
    final: false,
    ...overrides,
  };
}

/** An AdapterContext whose log lines are kept in `lines`. */
export function makeContext(
  onTap: (tap: Tap) => Promise<TapReply>,
): AdapterContext & { lines: string[] } {
  const lines: string[] = [];
  const log = createLogger({ level: 'debug', destination: { write: (line) => lines.push(line) } });
  return { onTap, kv: new MemoryKeyValue(), log, lines };
}

/** Serves adapter routes on 127.0.0.1 the way the relay's server does (raw body, lower-case headers). */
export async function serveRoutes(
  routes: HttpRoute[],
): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const route = routes.find((r) => r.method === req.method && r.path === url.pathname);
      if (!route) {
        res.writeHead(404).end();
        return;
      }
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
      const out = await route.handle({
        method: req.method ?? 'POST',
        path: url.pathname,
        query: url.searchParams,
        headers,
        rawBody: Buffer.concat(chunks),
        params: {},
      });
      const isObject =
        typeof out.body === 'object' && out.body !== null && !Buffer.isBuffer(out.body);
      res.writeHead(out.status, {
        ...(isObject ? { 'content-type': 'application/json' } : {}),
        ...out.headers,
      });
      res.end(isObject ? JSON.stringify(out.body) : (out.body as string | Buffer | undefined));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
