/**
 * The MCP gateway's pass-through, end to end: an upstream written with the official SDK on
 * loopback, a real relay with it in `mcp_upstreams`, and the official SDK client downstream at
 * /mcp/gateway/<name>, in both protocol eras against an upstream spoken to in both eras. Tools
 * (pages with their cursors, results, tool errors), resources, prompts, progress and cancellation
 * pass unchanged; the configured headers reach the upstream and no log line.
 */
import type { Client } from '@modelcontextprotocol/client';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { connectMcp, type Era } from '../helpers/mcp-client.ts';
import { startUpstream, type TestUpstream, UPSTREAM_TOOLS } from '../helpers/mcp-upstream.ts';
import { eventually, logLines, type RelayHandle, startRelay } from '../helpers/relay-env.ts';

const SECRET = 'sk-upstream-secret-0123456789';
let upstream: TestUpstream;
const passThrough = () => ({
  url: upstream.url,
  headers: { 'x-upstream-key': SECRET },
  tools: { default: 'allow' },
});
let relay: RelayHandle;

beforeAll(async () => {
  upstream = await startUpstream();
  relay = await startRelay({
    adapters: [createWebAdapter()],
    configFile: {
      // Pass-through is what this file proves: every tool allowed (the gate: tool-gate*.test.ts).
      mcp_upstreams: {
        legacy: { ...passThrough(), protocol: 'legacy' },
        modern: { ...passThrough(), protocol: 'auto' },
      },
    },
  });
});
afterAll(async () => {
  console.log(
    logLines
      .filter((l) => l.includes('gateway') || l.includes('rror'))
      .join('\n')
      .slice(0, 3000),
  );
  await relay?.stop();
  await upstream?.close();
});

describe.each<[Era, string]>([
  ['modern', 'modern'],
  ['legacy', 'modern'],
  ['modern', 'legacy'],
  ['legacy', 'legacy'],
])('%s client, upstream spoken to as %s', (era, name) => {
  let client: Client;
  beforeAll(async () => {
    client = await connectMcp(`${relay.url}/mcp/gateway/${name}`, { era });
  });
  afterAll(async () => {
    await client?.close();
  });

  it("names the upstream's server and instructions", () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'test-upstream', version: '3.1.4' });
    expect(client.getInstructions()).toBe('the upstream instructions');
    expect(client.getServerCapabilities()?.tools).toBeDefined();
  });

  it('passes tools/list page by page with the upstream cursor', async () => {
    const first = await client.request({ method: 'tools/list', params: {} });
    expect(first.tools.map((t) => t.name)).toEqual(['echo', 'slow']);
    expect(first.nextCursor).toBe('page-2');
    const second = await client.request({ method: 'tools/list', params: { cursor: 'page-2' } });
    expect(second.tools.map((t) => t.name)).toEqual(['fail']);
    expect(second.nextCursor).toBeUndefined();
    expect(first.tools[0]).toMatchObject(UPSTREAM_TOOLS[0] as object);
  });

  it('calls a tool with exactly the arguments, the upstream headers added', async () => {
    const before = upstream.calls.length;
    const r = await client.callTool({ name: 'echo', arguments: { text: `hi ${era}` } });
    expect(r.content).toEqual([{ type: 'text', text: `echo: hi ${era}` }]);
    const got = upstream.calls.slice(before);
    expect(got).toHaveLength(1);
    expect(got[0]).toMatchObject({ name: 'echo', args: { text: `hi ${era}` } });
    expect(got[0]?.headers['x-upstream-key']).toBe(SECRET);
  });

  it("passes a tool error as the upstream's result", async () => {
    const r = await client.callTool({ name: 'fail', arguments: {} });
    expect(r.isError).toBe(true);
    expect(r.content).toEqual([{ type: 'text', text: 'the upstream tool failed' }]);
  });

  it('answers a tool the upstream does not have with an MCP error naming the upstream', async () => {
    const before = upstream.calls.length;
    await expect(client.callTool({ name: 'nope', arguments: {} })).rejects.toThrow(
      `upstream MCP server "${name}" has no tool "nope"`,
    );
    expect(upstream.calls.length).toBe(before);
  });

  it('passes resources and prompts', async () => {
    const { resources } = await client.listResources();
    expect(resources).toEqual([{ uri: 'test://doc', name: 'doc', mimeType: 'text/plain' }]);
    const read = await client.readResource({ uri: 'test://doc' });
    expect(read.contents[0]).toMatchObject({ text: 'contents of test://doc' });
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['greet']);
    const p = await client.getPrompt({ name: 'greet', arguments: { who: 'Ann' } });
    expect(p.messages[0]?.content).toEqual({ type: 'text', text: 'hello Ann' });
  });

  it("passes the upstream's progress, and the client's cancel reaches the upstream", async () => {
    const before = upstream.cancelled.length;
    const stop = new AbortController();
    const progress: string[] = [];
    const call = client.callTool(
      { name: 'slow', arguments: {} },
      {
        signal: stop.signal,
        onprogress: (p) => {
          progress.push(`${p.progress}/${p.total} ${p.message}`);
          stop.abort('the person changed their mind');
        },
      },
    );
    await expect(call).rejects.toThrow();
    expect(progress).toEqual(['1/2 half way']);
    await eventually(async () => upstream.cancelled.length > before, 5000, 'the upstream cancel');
  });
});

it('answers an upstream that is not configured with 404 naming the configured ones', async () => {
  const res = await request(`${relay.url}/mcp/gateway/other`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' }),
  });
  expect(res.statusCode).toBe(404);
  expect(JSON.stringify(await res.body.json())).toContain('configured: legacy, modern');
});

it("reports each upstream on /readyz, and no log line holds the upstream's header", async () => {
  const res = await request(`${relay.url}/readyz`);
  const body = (await res.body.json()) as { parts: Record<string, { state: string }> };
  expect(body.parts['mcp-upstream:legacy']?.state).toBe('up');
  expect(body.parts['mcp-upstream:modern']?.state).toBe('up');
  expect(logLines.join('\n')).not.toContain(SECRET);
});
