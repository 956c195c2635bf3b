/**
 * Joined callers of a task-less 2026-07-28 `input_required` round (issue 33). Identical calls
 * from one API key share one ask (input-join.ts): the upstream is the official SDK's McpServer
 * (stateless, 2026-07-28) and the downstream clients are the official SDK client in both eras.
 * One caller that cancels (2026-07-28: closes its stream; 2025: `notifications/cancelled`) must
 * not take the question away from a caller still waiting on it; the last one to cancel withdraws
 * it (card final, reason given). A 2025 client that only disconnects leaves the ask open for its
 * retry, as a held tool call does, and withdrawn when no retry came within the grace. Two 2025
 * clients of one key at the same request id are told apart by the session id the gateway gave
 * each. Every caller that stops waiting is logged.
 */
import type { Client } from '@modelcontextprotocol/client';
import { createMcpHandler, inputRequired, McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { ELICIT_WITHDRAWN } from '../../src/mcp-gateway/elicitation-lifetime.ts';
import {
  ELICIT_NOT_RETRIED_AFTER_DISCONNECT,
  JOIN_GRACE_MS,
} from '../../src/mcp-gateway/input-join.ts';
import { connectMcp, type Era } from '../helpers/mcp-client.ts';
import { serveMcpHandler } from '../helpers/mcp-upstream.ts';
import { eventually, logLines, type RelayHandle, startRelay } from '../helpers/relay-env.ts';
import { webRoom } from '../helpers/web-room.ts';

const ROOM = 'mrtrcancel';
const KEY = 'etl-key-0123456789abcdef';
const JOINED = 'mcp gateway: a retried call joined the ask it had before';
const QUIT = 'mcp gateway: a caller stopped waiting for an elicitation';

function upstreamServer() {
  const server = new McpServer({ name: 'mrtr-cancel', version: '1.0.0' });
  server.registerTool(
    'deploy',
    { inputSchema: z.object({ env: z.string() }), annotations: { readOnlyHint: true } },
    async ({ env }, ctx) => {
      const answer = (ctx.mcpReq.inputResponses ?? {}) as Record<string, any>;
      if (ctx.mcpReq.requestState<string>() === undefined)
        return inputRequired({
          requestState: `state-${env}`,
          inputRequests: {
            confirm: inputRequired.elicit({
              message: `Deploy to ${env}?`,
              requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
            }),
          },
        });
      return { content: [{ type: 'text', text: `${answer.confirm?.action} ${env}` }] };
    },
  );
  return server;
}

let relay: RelayHandle;
/** The relay's clock runs ahead by this much (the grace of a kept ask). */
let ahead = 0;
let stopUpstream: () => Promise<void>;
const clients: Client[] = [];

beforeAll(async () => {
  const served = await serveMcpHandler(createMcpHandler(() => upstreamServer()));
  stopUpstream = served.close;
  relay = await startRelay({
    adapters: [createWebAdapter()],
    now: () => Date.now() + ahead,
    env: {
      RELAY_API_KEY: 'admin-key-0123456789abcdef',
      RELAY_API_KEYS: `etl=${KEY}`,
      RELAY_ALLOW_HTTP_LOOPBACK: '1',
      HOST: '127.0.0.1',
    },
    configFile: {
      mcp_upstreams: {
        mrtr: { url: served.url, target: `web:${ROOM}`, protocol: '2026-07-28' },
      },
    },
  });
});
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  await relay?.stop();
  await stopUpstream?.();
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
/** Two identical calls on `env`: the second joined the first's ask (one card). */
async function joinedPair(eras: [Era, Era], env: string) {
  const [a, b] = [await connect(eras[0]), await connect(eras[1])];
  const first = call(a, env);
  const card = await cardFor(env);
  const before = count(JOINED);
  const second = call(b, env);
  await eventually(async () => count(JOINED) > before, 10_000, 'the second call joined');
  return { first, second, card };
}

it.each<[Era, Era]>([
  ['modern', 'modern'],
  ['legacy', 'legacy'],
  ['legacy', 'modern'],
])(
  'MRTR-JOIN-1 (%s cancels, %s waits) one joined caller cancels: the ask stays open for the other, who gets the answer',
  async (quitter, waiter) => {
    const env = `j1-${quitter}-${waiter}`;
    const { first, second, card } = await joinedPair([quitter, waiter], env);
    const quits = count(QUIT);
    first.stop.abort('the agent gave up');
    await expect(first.done).rejects.toThrow();
    await eventually(async () => count(QUIT) > quits, 10_000, 'the quitter logged');
    expect((await relay.get(card.case)).status).not.toBe('cancelled');
    await tap(card);
    expect(((await second.done).content as any[])[0].text).toBe(`accept ${env}`);
    expect(await cardsFor(env)).toHaveLength(1);
  },
);

it.each<Era>(['modern', 'legacy'])(
  'MRTR-JOIN-2 (%s) every joined caller cancels: the last one withdraws the ask, its card says why',
  async (era) => {
    const env = `j2-${era}`;
    const { first, second, card } = await joinedPair([era, era], env);
    first.stop.abort('gave up');
    await expect(first.done).rejects.toThrow();
    second.stop.abort('gave up too');
    await expect(second.done).rejects.toThrow();
    const ended = await relay.until(card.case, (c) => c.status === 'cancelled');
    expect(ended.reason).toBe(ELICIT_WITHDRAWN);
    await eventually(async () => (await messages()).find((m) => m.case === card.case && m.final));
  },
);

it('MRTR-JOIN-3 a 2025 client that only disconnects leaves the ask open: its retry joins it and gets the answer', async () => {
  const env = 'j3';
  const a = await connect('legacy');
  const first = call(a, env);
  const card = await cardFor(env);
  await a.close();
  await expect(first.done).rejects.toThrow();
  const before = count(JOINED);
  const retry = call(await connect('legacy'), env);
  await eventually(async () => count(JOINED) > before, 10_000, 'the retry joined');
  expect((await relay.get(card.case)).status).not.toBe('cancelled');
  await tap(card);
  expect(((await retry.done).content as any[])[0].text).toBe(`accept ${env}`);
  expect(await cardsFor(env)).toHaveLength(1);
});

it('MRTR-JOIN-4 a 2025 client disconnects and never retries: the kept ask is withdrawn when the grace lapses, its card says why', async () => {
  const env = 'j4';
  const a = await connect('legacy');
  const first = call(a, env);
  const card = await cardFor(env);
  await a.close();
  await expect(first.done).rejects.toThrow();
  await eventually(
    async () =>
      logLines.some((l) => l.includes('ask is kept for a retry') && l.includes(card.case)),
    10_000,
    'the ask kept',
  );
  expect((await relay.get(card.case)).status).not.toBe('cancelled');
  ahead += JOIN_GRACE_MS + 1000;
  const ended = await relay.until(card.case, (c) => c.status === 'cancelled', 15_000);
  expect(ended.reason).toBe(ELICIT_NOT_RETRIED_AFTER_DISCONNECT);
  await eventually(async () => (await messages()).find((m) => m.case === card.case && m.final));
});

it("MRTR-JOIN-5 two 2025 clients of one key, each at the same request id with its own ask: a cancel withdraws only the canceller's", async () => {
  const [a, b] = [await connect('legacy'), await connect('legacy')];
  const mine = call(a, 'j5-a');
  const theirs = call(b, 'j5-b');
  const [myCard, theirCard] = [await cardFor('j5-a'), await cardFor('j5-b')];
  mine.stop.abort('gave up');
  await expect(mine.done).rejects.toThrow();
  const ended = await relay.until(myCard.case, (c) => c.status === 'cancelled');
  expect(ended.reason).toBe(ELICIT_WITHDRAWN);
  expect((await relay.get(theirCard.case)).status).not.toBe('cancelled');
  await tap(theirCard);
  expect(((await theirs.done).content as any[])[0].text).toBe('accept j5-b');
});
