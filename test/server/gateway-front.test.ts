import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { serveMcpHandler } from '../helpers/mcp-upstream.ts';
import { type RelayHandle, startRelay } from '../helpers/relay-env.ts';

const KEY = 'front-test-key-0123456789';
let relay: RelayHandle;
let stopUpstream: () => Promise<void>;

beforeAll(async () => {
  const handler = createMcpHandler(() => {
    const s = new McpServer({ name: 'front-upstream', version: '1.0.0' });
    const readOnly = { annotations: { readOnlyHint: true } };
    const input = { inputSchema: z.object({ text: z.string() }), ...readOnly };
    s.registerTool('echo', input, async (a) => ({ content: [{ type: 'text', text: a.text }] }));
    s.registerTool('wipe', input, async () => ({ content: [{ type: 'text', text: 'wiped' }] }));
    return s;
  });
  const { url, close } = await serveMcpHandler(handler);
  stopUpstream = close;
  const up = { url, protocol: '2026-07-28', tools: { rules: { wipe: 'deny' } } };
  relay = await startRelay({
    adapters: [createWebAdapter()],
    env: { RELAY_API_KEY: KEY, RELAY_ALLOW_HTTP_LOOPBACK: '1' },
    configFile: { mcp_upstreams: { up } },
  });
  // The first call reads the upstream's tools (the SDK path); the lean path needs them known.
  await both(call('echo'), auth(KEY));
});
afterAll(async () => {
  await relay?.stop();
  await stopUpstream?.();
});

const auth = (key: string) => ({ authorization: `Bearer ${key}` });

function call(tool: string, text = 'hi'): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 7,
    method: 'tools/call',
    params: {
      name: tool,
      arguments: { text },
      _meta: {
        'io.modelcontextprotocol/protocolVersion': '2026-07-28',
        'io.modelcontextprotocol/clientInfo': { name: 'front-test', version: '1' },
        'io.modelcontextprotocol/clientCapabilities': {},
      },
    },
  });
}

/** The same request on the wire and to the app's fetch: both answers. */
async function both(body: string, extra: Record<string, string>, tool = 'echo') {
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': 'tools/call',
    'mcp-name': tool,
    // As on the wire: the app's body limit and its MCP body reader go by it.
    'content-length': String(Buffer.byteLength(body)),
    ...extra,
  };
  const url = `${relay.url}/mcp/gateway/up`;
  const wire = await request(url, { method: 'POST', headers, body });
  const viaWire = {
    status: wire.statusCode,
    type: wire.headers['content-type'],
    body: await wire.body.text(),
  };
  const app = await relay.relay.app.fetch(new Request(url, { method: 'POST', headers, body }));
  const viaApp = {
    status: app.status,
    type: app.headers.get('content-type') ?? undefined,
    body: await app.text(),
  };
  return { viaWire, viaApp };
}

describe('the gateway front', () => {
  it('answers an allowed call as the app does (the lean answer)', async () => {
    const { viaWire, viaApp } = await both(call('echo'), auth(KEY));
    expect(viaWire).toEqual(viaApp);
    expect(viaWire.status).toBe(200);
    expect(JSON.parse(viaWire.body).result.content[0].text).toBe('hi');
  });

  it('refuses a request without a valid API key as the app does', async () => {
    for (const extra of [{}, auth('not-the-key-at-all-000'), { authorization: KEY }]) {
      const { viaWire, viaApp } = await both(call('echo'), extra);
      expect(viaWire).toEqual(viaApp);
      expect(viaWire.status).toBe(401);
    }
  });

  it('refuses an oversized body as the app does', async () => {
    const { viaWire, viaApp } = await both(call('echo', 'x'.repeat(1_000_001)), auth(KEY));
    expect(viaWire).toEqual(viaApp);
    expect(viaWire.status).toBe(413);
  });

  it('answers a tool the gate denies as the app does', async () => {
    const { viaWire, viaApp } = await both(call('wipe'), auth(KEY), 'wipe');
    expect(viaWire).toEqual(viaApp);
    expect(JSON.parse(viaWire.body).result?.isError ?? JSON.parse(viaWire.body).error).toBeTruthy();
  });
});
