/**
 * /mcp keeps the API key rule of /v1 (Bearer RELAY_API_KEY, compared in constant time), and in the
 * local default (no key, loopback) refuses a Host or Origin that is not this machine: a web page
 * cannot reach the MCP server through DNS rebinding or a cross-site post.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { connectMcp } from '../helpers/mcp-client.ts';
import { type RelayHandle, startRelay } from '../helpers/relay-env.ts';

const LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });
const post = (url: string, headers: Record<string, string>) =>
  request(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-11-25',
      ...headers,
    },
    body: LIST,
  });

describe('with RELAY_API_KEY', () => {
  let relay: RelayHandle;
  beforeAll(async () => {
    relay = await startRelay({
      adapters: [createWebAdapter()],
      env: { RELAY_API_KEY: 'k'.repeat(32) },
    });
  });
  afterAll(async () => {
    await relay?.stop();
  });

  it('refuses a client without the key or with a wrong one (401), serves one with it', async () => {
    await expect(connectMcp(`${relay.url}/mcp`)).rejects.toThrow(/401|Unauthorized/i);
    await expect(connectMcp(`${relay.url}/mcp`, { key: 'x'.repeat(32) })).rejects.toThrow(
      /401|Unauthorized/i,
    );
    const client = await connectMcp(`${relay.url}/mcp`, { key: 'k'.repeat(32) });
    expect((await client.listTools()).tools.length).toBe(11);
    await client.close();
    const raw = await post(`${relay.url}/mcp`, {});
    expect(raw.statusCode).toBe(401);
    expect(await raw.body.text()).not.toContain('k'.repeat(32));
  });
});

describe('the local default (no key, loopback)', () => {
  let relay: RelayHandle;
  beforeAll(async () => {
    relay = await startRelay({ adapters: [createWebAdapter()] });
  });
  afterAll(async () => {
    await relay?.stop();
  });

  it('serves loopback, refuses another Host (DNS rebinding) and a foreign Origin', async () => {
    const ok = await post(`${relay.url}/mcp`, {});
    expect(ok.statusCode).toBe(200);
    await ok.body.text();
    const rebound = await post(`${relay.url}/mcp`, { host: 'evil.example' });
    expect(rebound.statusCode).toBe(403);
    await rebound.body.text();
    const foreign = await post(`${relay.url}/mcp`, { origin: 'https://evil.example' });
    expect(foreign.statusCode).toBe(403);
    await foreign.body.text();
    const local = await post(`${relay.url}/mcp`, { origin: 'http://localhost:5173' });
    expect(local.statusCode).toBe(200);
    await local.body.text();
  });
});
