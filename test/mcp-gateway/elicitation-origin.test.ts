/**
 * An elicitation's card says where it came from: which upstream (by its configured name) and
 * which downstream client (its named API key, RELAY_API_KEYS) made the call it came for. End to
 * end: official-SDK upstreams (a 2025-11-25 sessionful one that elicits on its standalone stream,
 * a 2026-07-28 one that answers `input_required`), a real relay in server mode with two named
 * keys, the Telegram fake as the chat, the official SDK client downstream under each key. A
 * 2026-07-28 round is known exactly (it comes inside the client's call); a 2025 request outside
 * any call is put down to the callers in flight, and says "one of" when there are several.
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { Client } from '@modelcontextprotocol/client';
import { createMcpHandler, inputRequired, McpServer } from '@modelcontextprotocol/server';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createTelegramAdapter } from '../../platforms/telegram/index.ts';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { FakeTelegramApi } from '../fakes/telegram-api.ts';
import { connectMcp } from '../helpers/mcp-client.ts';
import { startSessionfulUpstream } from '../helpers/mcp-sessionful-upstream.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';

const CHAT = -1009876543210;
const ADMIN = 'admin-key-0123456789abcdef';
const KEYS = { etl: 'etl-key-0123456789abcdef', ci: 'ci-key-0123456789abcdef0' };
/** Ends each 2025-era elicitation from the upstream's side, by the call's id. */
const giveUp = new Map<string, AbortController>();

function legacyServer() {
  const server = new McpServer({ name: 'legacy-upstream', version: '1.0.0' });
  server.registerTool(
    'ask',
    { inputSchema: z.object({ id: z.string() }), annotations: { readOnlyHint: true } },
    async ({ id }, ctx) => {
      const own = new AbortController();
      giveUp.set(id, own);
      const schema = { type: 'object' as const, properties: { ok: { type: 'boolean' as const } } };
      const r = await ctx.mcpReq
        .elicitInput(
          { mode: 'form', message: `Question ${id}`, requestedSchema: schema },
          { signal: own.signal, timeout: 600_000 },
        )
        .catch(() => ({ action: 'cancel' }));
      return { content: [{ type: 'text', text: JSON.stringify(r) }] };
    },
  );
  // Elicits on the call's own stream (relatedRequestId): known exactly, whoever else is calling.
  server.registerTool(
    'ask_inline',
    { inputSchema: z.object({ id: z.string() }), annotations: { readOnlyHint: true } },
    async ({ id }, ctx) => {
      const schema = { type: 'object' as const, properties: { ok: { type: 'boolean' as const } } };
      const params = { mode: 'form', message: `Question ${id}`, requestedSchema: schema };
      const r = await ctx.mcpReq
        .send({ method: 'elicitation/create', params }, { timeout: 600_000 })
        .catch(() => ({ action: 'cancel' }));
      return { content: [{ type: 'text', text: JSON.stringify(r) }] };
    },
  );
  return server;
}

function modernServer() {
  const server = new McpServer({ name: 'modern-upstream', version: '1.0.0' });
  server.registerTool(
    'ask',
    { inputSchema: z.object({ id: z.string() }), annotations: { readOnlyHint: true } },
    async ({ id }, ctx) => {
      if (ctx.mcpReq.requestState<string>() === undefined)
        return inputRequired({
          requestState: `asked-${id}`,
          inputRequests: {
            ok: inputRequired.elicit({
              message: `Question ${id}`,
              requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
            }),
          },
        });
      return { content: [{ type: 'text', text: 'done' }] };
    },
  );
  return server;
}

let relay: RelayHandle;
let tg: FakeTelegramApi;
let legacy: Awaited<ReturnType<typeof startSessionfulUpstream>>;
let modern: ReturnType<typeof serve>;
const clients: Client[] = [];

beforeAll(async () => {
  legacy = await startSessionfulUpstream(legacyServer);
  const handler = createMcpHandler(() => modernServer());
  modern = serve({ fetch: (req) => handler.fetch(req), port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((r) => modern.once('listening', () => r()));
  const modernUrl = `http://127.0.0.1:${(modern.address() as AddressInfo).port}/mcp`;
  tg = await FakeTelegramApi.start();
  const telegram = createTelegramAdapter({
    botToken: tg.token,
    apiRoot: tg.apiRoot,
    botInfo: tg.botInfo,
    pace: { perChatIntervalMs: 1, groupWindowMs: 5, globalWindowMs: 1 },
    retry: { retryAfterUnitMs: 1 },
    pollingTimeoutSeconds: 1,
  });
  const target = `telegram:${CHAT}`;
  relay = await startRelay({
    adapters: [createWebAdapter(), telegram],
    env: {
      RELAY_API_KEY: ADMIN,
      RELAY_API_KEYS: `etl=${KEYS.etl},ci=${KEYS.ci}`,
      RELAY_ALLOW_HTTP_LOOPBACK: '1',
      HOST: '127.0.0.1',
    },
    configFile: {
      mcp_upstreams: {
        billing: { url: legacy.url, target, protocol: 'legacy' },
        deploys: { url: modernUrl, target, protocol: '2026-07-28' },
        deploys_web: { url: modernUrl, target: 'web:origin', protocol: '2026-07-28' },
      },
    },
  });
});
afterAll(async () => {
  for (const c of giveUp.values()) c.abort();
  for (const c of clients) await c.close();
  await relay?.stop();
  await tg?.close();
  await legacy?.close();
  await new Promise((r) => modern?.close(r));
});

const connect = async (upstream: string, key: keyof typeof KEYS) => {
  const c = await connectMcp(`${relay.url}/mcp/gateway/${upstream}`, {
    era: 'legacy',
    key: KEYS[key],
  });
  clients.push(c);
  return c;
};
/** The text of the Telegram card of elicitation `id`. */
const cardText = (id: string) =>
  eventually(
    async () =>
      tg
        .calls('sendMessage')
        .map((b) => String(b.text))
        .find((t) => t.includes(`Question ${id}`)),
    15_000,
    `the card of ${id}`,
  );

describe('where an elicitation came from, on its card', () => {
  it('ELICIT-ORIGIN-1 2026-07-28 rounds: each card names its upstream and exactly the client whose call it is', async () => {
    const etl = await connect('deploys', 'etl');
    const ci = await connect('deploys', 'ci');
    void etl.callTool({ name: 'ask', arguments: { id: 'm-etl' } }).catch(() => 0);
    void ci.callTool({ name: 'ask', arguments: { id: 'm-ci' } }).catch(() => 0);
    const [a, b] = await Promise.all([cardText('m-etl'), cardText('m-ci')]);
    expect(a).toContain('Upstream: deploys');
    expect(a).toContain('Called by: client "etl"');
    expect(b).toContain('Upstream: deploys');
    expect(b).toContain('Called by: client "ci"');
  });

  it('ELICIT-ORIGIN-2 2025 requests outside a call: the one caller in flight, else "one of" them', async () => {
    const etl = await connect('billing', 'etl');
    const ci = await connect('billing', 'ci');
    void etl.callTool({ name: 'ask', arguments: { id: 'l-etl' } }).catch(() => 0);
    const first = await cardText('l-etl');
    expect(first).toContain('Upstream: billing');
    expect(first).toContain('Called by: client "etl"');
    void ci.callTool({ name: 'ask', arguments: { id: 'l-ci' } }).catch(() => 0);
    const second = await cardText('l-ci');
    expect(second).toContain('Called by: one of client "ci", client "etl"');
  });

  it("ELICIT-ORIGIN-3 a 2025 request on the call's own stream names exactly its caller, with others in flight", async () => {
    const ci = await connect('billing', 'ci');
    void ci.callTool({ name: 'ask_inline', arguments: { id: 'i-ci' } }).catch(() => 0);
    const text = await cardText('i-ci');
    expect(text).toContain('Upstream: billing');
    expect(text).toContain('Called by: client "ci"');
    expect(text).not.toContain('one of');
  });

  it('ELICIT-ORIGIN-4 the web chat card carries the same lines', async () => {
    const etl = await connect('deploys_web', 'etl');
    void etl.callTool({ name: 'ask', arguments: { id: 'w-etl' } }).catch(() => 0);
    const card = await eventually(
      async () => {
        const res = await request(`${relay.url}/web/api/rooms/origin/messages`);
        const all = (await res.body.json()) as unknown[];
        return all.map((m) => JSON.stringify(m)).find((m) => m.includes('Question w-etl'));
      },
      15_000,
      'the web card of w-etl',
    );
    expect(card).toContain('Upstream: deploys_web');
    expect(card).toContain('Called by: client \\"etl\\"');
  });
});
