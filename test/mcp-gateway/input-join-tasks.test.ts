/**
 * Task-less `input_required` rounds of an upstream that declares the Tasks extension join as
 * those of any other upstream do (issue 33). Such an upstream's calls take the gateway's own
 * Tasks path (upstream-tasks.ts, its own JSON-RPC requests) rather than the SDK client's
 * input_required driver; before, its rounds' asks carried no fingerprint, so two identical calls
 * posted two cards, and a retry after a relay restart asked again. The upstream is the official
 * SDK's McpServer (stateless, 2026-07-28, the extension declared) whose tool answers without a
 * task; downstream, the official SDK client in both eras with a named API key.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { createMcpHandler, inputRequired, McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { ALIVE_TTL_MS } from '../../src/cases/posting-lease.ts';
import { TASKS_EXTENSION } from '../../src/mcp/tasks.ts';
import { ELICIT_WITHDRAWN } from '../../src/mcp-gateway/elicitation-lifetime.ts';
import { connectMcp, type Era } from '../helpers/mcp-client.ts';
import { serveMcpHandler } from '../helpers/mcp-upstream.ts';
import { eventually, logLines, type RelayHandle, startRelay } from '../helpers/relay-env.ts';
import { webRoom } from '../helpers/web-room.ts';

const ROOM = 'mrtrtasks';
const KEY = 'etl-key-0123456789abcdef';
const JOINED = 'mcp gateway: a retried call joined the ask it had before';
const QUIT = 'mcp gateway: a caller stopped waiting for an elicitation';

/** Every requestState the upstream minted, and the _meta of every tools/call it received. */
const minted: string[] = [];
const received: Array<{ env: string; state?: string; meta: Record<string, any> }> = [];

function upstreamServer() {
  const server = new McpServer(
    { name: 'mrtr-tasks', version: '1.0.0' },
    { capabilities: { tools: {}, extensions: { [TASKS_EXTENSION]: {} } } },
  );
  server.registerTool(
    'deploy',
    { inputSchema: z.object({ env: z.string() }), annotations: { readOnlyHint: true } },
    async ({ env }, ctx) => {
      const state = ctx.mcpReq.requestState<string>();
      const answer = (ctx.mcpReq.inputResponses ?? {}) as Record<string, any>;
      if (state === undefined) {
        const fresh = `state-${minted.length + 1}-${env}`;
        minted.push(fresh);
        return inputRequired({
          requestState: fresh,
          inputRequests: {
            confirm: inputRequired.elicit({
              message: `Deploy to ${env}?`,
              requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
            }),
          },
        });
      }
      const latest = minted.filter((s) => s.endsWith(`-${env}`)).at(-1);
      const fresh = state === latest ? 'latest' : 'stale';
      return { content: [{ type: 'text', text: `${answer.confirm?.action} ${env} (${fresh})` }] };
    },
  );
  return server;
}

const dataDir = mkdtempSync(join(tmpdir(), 'hitl-gw-mrtr-tasks-'));
let relay: RelayHandle;
let upstreamUrl = '';
/** The relay's clock runs ahead by this much (a restart: past the alive key). */
let ahead = 0;
let stopUpstream: () => Promise<void>;
const clients: Client[] = [];

const start = (port?: string) =>
  startRelay({
    adapters: [createWebAdapter()],
    dataDir,
    now: () => Date.now() + ahead,
    env: {
      RELAY_API_KEY: 'admin-key-0123456789abcdef',
      RELAY_API_KEYS: `etl=${KEY}`,
      RELAY_ALLOW_HTTP_LOOPBACK: '1',
      HOST: '127.0.0.1',
      ...(port && { PORT: port }),
    },
    configFile: {
      mcp_upstreams: {
        mrtr: { url: upstreamUrl, target: `web:${ROOM}`, protocol: '2026-07-28' },
      },
    },
  });

beforeAll(async () => {
  const served = await serveMcpHandler(
    createMcpHandler(() => upstreamServer()),
    (raw) => {
      try {
        const m = JSON.parse(raw);
        if (m.method === 'tools/call')
          received.push({
            env: m.params.arguments?.env,
            state: m.params.requestState,
            meta: m.params._meta ?? {},
          });
      } catch {}
    },
  );
  upstreamUrl = served.url;
  stopUpstream = served.close;
  relay = await start();
});
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  await relay?.stop();
  await stopUpstream?.();
  rmSync(dataDir, { recursive: true, force: true });
});

const connect = async (era: Era) => {
  const c = await connectMcp(`${relay.url}/mcp/gateway/mrtr`, { era, key: KEY });
  clients.push(c);
  return c;
};
/** One call of `deploy` on `env`; `stop` cancels it. */
const call = (client: Client, env: string) => {
  const stop = new AbortController();
  const done = client.callTool(
    { name: 'deploy', arguments: { env } },
    { signal: stop.signal, timeout: 60_000 },
  );
  done.catch(() => undefined);
  return { done, stop };
};
const room = webRoom(() => relay.url, ROOM);
const { messages, tap } = room;
const cardsFor = (env: string) => room.cards(`Deploy to ${env}?`);
const cardFor = (env: string) => room.openCard(`Deploy to ${env}?`);
const count = (line: string) => logLines.filter((l) => l.includes(line)).length;
/** The gateway sent `env`'s calls on its Tasks path: the extension declared on each request. */
const tookTasksPath = (env: string) => {
  const legs = received.filter((r) => r.env === env);
  expect(legs.length).toBeGreaterThan(0);
  for (const leg of legs)
    expect(
      leg.meta['io.modelcontextprotocol/clientCapabilities']?.extensions?.[TASKS_EXTENSION],
    ).toEqual({});
};

it.each<[Era, Era]>([
  ['modern', 'modern'],
  ['legacy', 'modern'],
])(
  'MRTR-JOIN-TASKS-1 (%s cancels, %s waits) identical calls to a Tasks upstream share one card; the one left gets the answer',
  async (quitter, waiter) => {
    const env = `t1-${quitter}-${waiter}`;
    const [a, b] = [await connect(quitter), await connect(waiter)];
    const first = call(a, env);
    const card = await cardFor(env);
    const joined = count(JOINED);
    const second = call(b, env);
    await eventually(async () => count(JOINED) > joined, 10_000, 'the second call joined');
    const quits = count(QUIT);
    first.stop.abort('the agent gave up');
    await expect(first.done).rejects.toThrow();
    await eventually(async () => count(QUIT) > quits, 10_000, 'the quitter logged');
    expect((await relay.get(card.case)).status).not.toBe('cancelled');
    await tap(card);
    const result = await second.done;
    expect((result.content as any[])[0].text).toBe(`accept ${env} (latest)`);
    expect(await cardsFor(env)).toHaveLength(1);
    tookTasksPath(env);
  },
);

it('MRTR-JOIN-TASKS-2 the last caller cancels: the ask is withdrawn, its card final with the reason', async () => {
  const env = 't2';
  const a = await connect('modern');
  const first = call(a, env);
  const card = await cardFor(env);
  first.stop.abort('the agent gave up');
  await expect(first.done).rejects.toThrow();
  const ended = await relay.until(card.case, (c) => c.status === 'cancelled');
  expect(ended.reason).toBe(ELICIT_WITHDRAWN);
  await eventually(async () => (await messages()).find((m) => m.case === card.case && m.final));
  tookTasksPath(env);
});

it('MRTR-JOIN-TASKS-3 a relay restart mid-question: the retried identical call joins the open ask, no second card, the new round state upstream', async () => {
  const env = 't3';
  const first = call(await connect('modern'), env);
  const card = await cardFor(env);
  const port = new URL(relay.url).port;
  await relay.stop();
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  await expect(first.done).rejects.toThrow();
  ahead += ALIVE_TTL_MS + 5000;
  relay = await start(port);
  const joined = count(JOINED);
  const retry = call(await connect('modern'), env);
  await eventually(async () => count(JOINED) > joined, 10_000, 'the retry joined');
  await tap(card);
  const result = await retry.done;
  expect((result.content as any[])[0].text).toBe(`accept ${env} (latest)`);
  expect(new Set((await cardsFor(env)).map((m) => m.case))).toEqual(new Set([card.case]));
  expect(received.filter((r) => r.env === env).map((r) => r.state)).toEqual([
    undefined,
    undefined,
    minted.at(-1),
  ]);
  tookTasksPath(env);
});
