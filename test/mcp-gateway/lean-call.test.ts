/**
 * The gateway's lean pass-through (mcp-gateway/lean-call.ts), end to end: an upstream written with
 * the official SDK (McpServer on createMcpHandler, 2026-07-28, stateless) reached twice, as `lean`
 * and as `sdk` (`lean: false`: the SDK path only); the same downstream calls through each. The lean
 * path is taken (the relay's `hitl_relay_gateway_lean_calls` counter) and its answers, errors,
 * `_meta` envelope and the headers reaching the upstream are those of the SDK path; an
 * `input_required` answer and an event-stream answer are handed over as the SDK path serves them.
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { Client } from '@modelcontextprotocol/client';
import {
  createMcpHandler,
  inputRequired,
  McpServer,
  ProtocolError,
} from '@modelcontextprotocol/server';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { connectMcp } from '../helpers/mcp-client.ts';
import { type RelayHandle, startRelay } from '../helpers/relay-env.ts';

type Seen = { body: Record<string, any>; headers: Record<string, string> };
/** Every tools/call the upstream received: its parsed body and headers. */
const received: Seen[] = [];
const readOnly = { annotations: { readOnlyHint: true } };

function upstreamServer() {
  const s = new McpServer({ name: 'lean-upstream', version: '2.0.1' });
  s.registerTool(
    'echo',
    { inputSchema: z.object({ text: z.string() }), ...readOnly },
    async (a) => ({
      content: [{ type: 'text', text: `echo: ${a.text}` }],
      structuredContent: { said: a.text },
    }),
  );
  s.registerTool('fail', readOnly, async () => ({
    isError: true,
    content: [{ type: 'text', text: 'the upstream tool failed' }],
  }));
  s.registerTool('refuse', readOnly, async () => {
    throw new ProtocolError(-32602, 'bad call', { why: 'planted' });
  });
  s.registerTool('chatty', readOnly, async (ctx) => {
    await ctx.mcpReq.notify({
      method: 'notifications/message',
      params: { level: 'info', data: 'working' },
    });
    return { content: [{ type: 'text', text: 'done talking' }] };
  });
  s.registerTool('confirm', readOnly, async (ctx) => {
    if (ctx.mcpReq.requestState<string>() === undefined)
      return inputRequired({ requestState: 'round-1' });
    return { content: [{ type: 'text', text: `state ${ctx.mcpReq.requestState<string>()}` }] };
  });
  return s;
}

let relay: RelayHandle;
let stopUpstream: () => Promise<void>;
const clients: Record<string, Client> = {};

beforeAll(async () => {
  const handler = createMcpHandler(() => upstreamServer());
  const fetch = async (req: Request) => {
    const raw = await req.clone().text();
    const headers: Record<string, string> = {};
    req.headers.forEach((v, k) => {
      headers[k] = v;
    });
    const body = raw ? JSON.parse(raw) : {};
    if (body.method === 'tools/call') received.push({ body, headers });
    return handler.fetch(req);
  };
  const http = serve({ fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((resolve) => http.once('listening', () => resolve()));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  stopUpstream = async () => {
    await handler.close();
    await new Promise((r) => http.close(r));
  };
  const one = { url, protocol: '2026-07-28', headers: { 'x-upstream-key': 'k-123' } };
  relay = await startRelay({
    adapters: [createWebAdapter()],
    configFile: { mcp_upstreams: { lean: one, sdk: { ...one, lean: false } } },
  });
  for (const name of ['lean', 'sdk'])
    clients[name] = await connectMcp(`${relay.url}/mcp/gateway/${name}`);
  // The first call reads the upstream's tools (the SDK path); the lean path needs them known.
  await clients.lean?.callTool({ name: 'echo', arguments: { text: 'warm' } });
});
afterAll(async () => {
  for (const c of Object.values(clients)) await c.close();
  await relay?.stop();
  await stopUpstream?.();
});

/** The relay's lean counter, by outcome. */
async function lean(outcome: 'taken' | 'handed_over'): Promise<number> {
  const text = await (await request(`${relay.url}/metrics`)).body.text();
  const line = text
    .split('\n')
    .find((l) => l.startsWith(`hitl_relay_gateway_lean_calls{outcome="${outcome}"}`));
  return Number(line?.split(' ').at(-1) ?? Number.NaN);
}

/** A raw 2026-07-28 tools/call to /mcp/gateway/<name>: status, content type, parsed answer. */
async function raw(name: string, tool: string, args: Record<string, unknown>) {
  const body = {
    jsonrpc: '2.0',
    id: 41,
    method: 'tools/call',
    params: {
      name: tool,
      arguments: args,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'raw-agent', version: '9' },
        'io.modelcontextprotocol/clientCapabilities': {},
        'example.com/trace': 'abc',
      },
    },
  };
  const res = await request(`${relay.url}/mcp/gateway/${name}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': tool,
    },
    body: JSON.stringify(body),
  });
  const text = await res.body.text();
  return { status: res.statusCode, type: res.headers['content-type'], answer: answerOf(text) };
}

/** The JSON-RPC answer of a JSON or event-stream body. */
function answerOf(text: string): unknown {
  if (text.startsWith('{')) return JSON.parse(text);
  const data = text.split('\n').filter((l) => l.startsWith('data:'));
  const all = data.map((l) => JSON.parse(l.slice(5)));
  return all.find((m) => 'result' in m || 'error' in m);
}

/** What the upstream received, without the JSON-RPC id (each client numbers its own). */
function lastReceived() {
  const r = received.at(-1) as Seen;
  const { id: _id, ...body } = r.body;
  const { 'content-length': _len, host: _host, connection: _c, ...headers } = r.headers;
  return { body, headers };
}

describe.each([
  ['echo', { text: 'hi "there" é' }],
  ['fail', {}],
  ['refuse', {}],
  ['chatty', {}],
])('tools/call %s', (tool, args) => {
  it('answers through the lean path as through the SDK path, the upstream seeing the same', async () => {
    const taken = await lean('taken');
    const viaSdk = await raw('sdk', tool, args);
    const sdkSeen = lastReceived();
    expect(await lean('taken')).toBe(taken);
    const viaLean = await raw('lean', tool, args);
    const leanSeen = lastReceived();
    expect(await lean('taken')).toBe(taken + 1);
    expect(viaLean.status).toBe(viaSdk.status);
    expect(viaLean.answer).toEqual(viaSdk.answer);
    expect(leanSeen).toEqual(sdkSeen);
    expect(leanSeen.headers['x-upstream-key']).toBe('k-123');
    expect(leanSeen.headers['mcp-name']).toBe(tool);
  });
});

describe('the official SDK client downstream', () => {
  it('gets the same results and errors from both', async () => {
    const taken = await lean('taken');
    for (const [tool, args] of [
      ['echo', { text: 'x' }],
      ['fail', {}],
      ['chatty', {}],
    ] as const) {
      const a = await clients.lean?.callTool({ name: tool, arguments: args });
      const b = await clients.sdk?.callTool({ name: tool, arguments: args });
      expect(a).toEqual(b);
    }
    const err = (name: string) =>
      clients[name]?.callTool({ name: 'refuse', arguments: {} }).then(
        () => 'resolved',
        (e: Error & { code?: number; data?: unknown }) => ({ m: e.message, c: e.code, d: e.data }),
      );
    expect(await err('lean')).toEqual(await err('sdk'));
    expect(await lean('taken')).toBe(taken + 4);
  });

  it('hands an input_required answer to the SDK path, which completes the call', async () => {
    const handed = await lean('handed_over');
    const before = received.length;
    const a = await clients.lean?.callTool({ name: 'confirm', arguments: {} });
    expect(await lean('handed_over')).toBe(handed + 1);
    // Each leg once: the lean send's input_required answer is the SDK path's first leg.
    const legs = received.slice(before).map((r) => r.body.params.requestState ?? null);
    expect(legs).toEqual([null, 'round-1']);
    const b = await clients.sdk?.callTool({ name: 'confirm', arguments: {} });
    expect(a).toEqual(b);
    expect(JSON.stringify(a)).toContain('state round-1');
  });

  it('takes the SDK path for a call with a progress token', async () => {
    const taken = await lean('taken');
    const r = await clients.lean?.callTool(
      { name: 'echo', arguments: { text: 'p' } },
      { onprogress: () => undefined },
    );
    expect(JSON.stringify(r)).toContain('echo: p');
    expect(await lean('taken')).toBe(taken);
  });
});
