/**
 * The relay reads a /mcp body once, ahead of the SDK (mcp/request-body.ts), and hands it over
 * parsed. Every other body must get exactly the answer the SDK gives on its own: a body that is
 * not JSON, an empty one, a chunked one (no Content-Length) and one of another type. Each is
 * sent to the relay and, for comparison, to a bare SDK handler (createMcpHandler) served on its
 * own loopback port.
 */
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { serve } from '@hono/node-server';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { type RelayHandle, startRelay } from '../helpers/relay-env.ts';

const MODERN = '2026-07-28';
const envelope = {
  'io.modelcontextprotocol/protocolVersion': MODERN,
  'io.modelcontextprotocol/clientInfo': { name: 'test', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const modernList = JSON.stringify({
  jsonrpc: '2.0',
  id: 7,
  method: 'tools/list',
  params: { _meta: envelope },
});
const legacyList = JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tools/list', params: {} });

const headersOf = (revision: string, type = 'application/json') => ({
  'content-type': type,
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': revision,
  ...(revision === MODERN ? { 'mcp-method': 'tools/list' } : {}),
});

/** A body sent in one piece (Content-Length) or chunked (a stream body has no length). */
async function post(url: string, body: string, o: { chunked?: boolean; type?: string } = {}) {
  const revision = body.includes(MODERN) ? MODERN : '2025-11-25';
  const res = await request(url, {
    method: 'POST',
    headers: headersOf(revision, o.type),
    body: o.chunked ? Readable.from([Buffer.from(body)]) : body,
  });
  const text = await res.body.text();
  return { status: res.statusCode, type: res.headers['content-type'], text };
}

/** The JSON-RPC message of an answer (JSON or one SSE frame), without the server's own names. */
function messageOf(text: string): unknown {
  const data = text.includes('data: ') ? text.split('data: ')[1]!.split('\n')[0]! : text;
  if (!data) return null;
  const m = JSON.parse(data) as { result?: { tools?: unknown[] } };
  return m.result?.tools ? { ...m, result: { tools: m.result.tools.length } } : m;
}

describe('/mcp bodies the relay does not read itself', () => {
  let relay: RelayHandle;
  let bare: { url: string; close(): void };
  beforeAll(async () => {
    relay = await startRelay({ adapters: [createWebAdapter()] });
    const handler = createMcpHandler(() => new McpServer({ name: 'bare', version: '1.0.0' }));
    const server = serve({ fetch: (r) => handler.fetch(r), port: 0, hostname: '127.0.0.1' });
    await new Promise<void>((r) => server.once('listening', () => r()));
    const port = (server.address() as AddressInfo).port;
    bare = { url: `http://127.0.0.1:${port}/mcp`, close: () => server.close() };
  });
  afterAll(async () => {
    await relay?.stop();
    bare?.close();
  });

  it('answers a body that is not JSON, or empty, exactly as the SDK does', async () => {
    for (const body of ['{not json', '', '[1,', 'null']) {
      const ours = await post(`${relay.url}/mcp`, body);
      const sdk = await post(bare.url, body);
      expect({ body, status: ours.status }).toEqual({ body, status: sdk.status });
      expect(messageOf(ours.text)).toEqual(messageOf(sdk.text));
    }
  });

  it('serves a chunked body (no Content-Length) through the SDK, both eras', async () => {
    for (const body of [modernList, legacyList]) {
      const ours = await post(`${relay.url}/mcp`, body, { chunked: true });
      expect(ours.status).toBe(200);
      expect((messageOf(ours.text) as { result: { tools: number } }).result.tools).toBe(11);
      const read = await post(`${relay.url}/mcp`, body);
      expect(read.status).toBe(200);
      expect(messageOf(read.text)).toEqual(messageOf(ours.text));
    }
  });

  it('leaves a JSON media type with parameters to the same path as plain JSON', async () => {
    const ours = await post(`${relay.url}/mcp`, modernList, {
      type: 'application/json; charset=utf-8',
    });
    expect(ours.status).toBe(200);
    expect((messageOf(ours.text) as { result: { tools: number } }).result.tools).toBe(11);
  });
});
