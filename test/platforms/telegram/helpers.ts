/** Shared bits of the Telegram tests: cards, a quiet logger, the adapter against the fake. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createTelegramAdapter,
  type TelegramAdapter,
  type TelegramAdapterOptions,
} from '../../../platforms/telegram/index.ts';
import type { AdapterContext, HttpRoute, Tap, TapReply } from '../../../src/adapter.ts';
import { createLogger, type Logger } from '../../../src/log.ts';
import type { Card } from '../../../src/render/card.ts';
import { MemoryKeyValue } from '../../../src/store/memory-kv.ts';
import { FakeTelegramApi } from '../../fakes/telegram-api.ts';

/** A pending approval card. */
export function makeCard(overrides: Partial<Card> = {}): Card {
  const key = overrides.key ?? 'k7Qx2';
  return {
    caseId: 'case-123',
    key,
    title: 'Approval needed',
    prompt: 'Deploy v2.4 to production?',
    lines: ['Service: billing', 'Requested by: deploy-bot'],
    hint: null,
    actions: [
      { action: 'approve', label: 'Approve', style: 'primary', payload: `hitl:${key}:approve` },
      { action: 'reject', label: 'Reject', style: 'danger', payload: `hitl:${key}:reject` },
    ],
    link: { label: 'Details', url: 'https://service.example/review/case-123' },
    status: 'Waiting for a decision',
    final: false,
    ...overrides,
  };
}

/** A logger that keeps its lines for inspection. */
export function memoryLogger(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  const log = createLogger({ level: 'debug', destination: { write: (line) => lines.push(line) } });
  return { log, lines };
}

/** Options so that nothing in a test waits for real rate limits. */
export const FAST: Pick<TelegramAdapterOptions, 'pace' | 'retry' | 'pollingTimeoutSeconds'> = {
  pace: { perChatIntervalMs: 1, groupWindowMs: 5, globalWindowMs: 1 },
  retry: { retryAfterUnitMs: 1 },
  pollingTimeoutSeconds: 1,
};

/** The fake, an adapter pointed at it, and an AdapterContext with a recording onTap. */
export interface Setup {
  fake: FakeTelegramApi;
  adapter: TelegramAdapter;
  ctx: AdapterContext;
  taps: Tap[];
  lines: string[];
  /** What the next taps answer; a test may replace it. */
  reply: { fn: (tap: Tap) => Promise<TapReply> };
  close(): Promise<void>;
}

/** Starts the fake and creates (does not start) the adapter. */
export async function setup(options: Partial<TelegramAdapterOptions> = {}): Promise<Setup> {
  const fake = await FakeTelegramApi.start();
  const adapter = createTelegramAdapter({
    botToken: fake.token,
    apiRoot: fake.apiRoot,
    botInfo: fake.botInfo,
    ...FAST,
    ...options,
  });
  const taps: Tap[] = [];
  const reply = {
    fn: async (tap: Tap): Promise<TapReply> => ({
      outcome: 'submitted',
      text: `Done: ${tap.action}`,
      card: null,
    }),
  };
  const { log, lines } = memoryLogger();
  const ctx: AdapterContext = {
    kv: new MemoryKeyValue(),
    log,
    onTap: (tap) => {
      taps.push(tap);
      return reply.fn(tap);
    },
  };
  return {
    fake,
    adapter,
    ctx,
    taps,
    lines,
    reply,
    async close() {
      await adapter.stop();
      await fake.close();
    },
  };
}

/** A bare HTTP server for adapter routes, standing in for the relay's server in adapter tests. */
export async function serveRoutes(
  routes: HttpRoute[],
): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const route = routes.find((r) => r.method === req.method && r.path === url.pathname);
    if (!route) {
      res.writeHead(404).end();
      return;
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === 'string') headers[name] = value;
    }
    const answer = await route.handle({
      method: req.method ?? 'POST',
      path: url.pathname,
      query: url.searchParams,
      headers,
      rawBody: Buffer.concat(chunks),
      params: {},
    });
    const body =
      answer.body === undefined || typeof answer.body === 'string' || Buffer.isBuffer(answer.body)
        ? answer.body
        : JSON.stringify(answer.body);
    res.writeHead(answer.status, answer.headers).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Waits until `check` holds (the fake is asynchronous); fails after a generous deadline. */
export async function until(check: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
