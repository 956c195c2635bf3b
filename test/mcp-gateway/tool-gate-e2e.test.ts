/**
 * The tool gate end to end: an upstream written with the official SDK (McpServer) offering a
 * destructive tool, a real relay with it in `mcp_upstreams`, the official SDK client downstream
 * at /mcp/gateway/<name> (both eras). The call is held and shown in the web chat with every
 * argument; the person's edit the tool's schema refuses is refused at the tap; the approved
 * (edited) arguments reach the upstream exactly once; a rejection reaches the client as a tool
 * error naming who refused, and the upstream sees nothing; a read-only tool passes unheld.
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { Client } from '@modelcontextprotocol/client';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { sha256Of } from '../../src/receipts/receipt.ts';
import { connectMcp, type Era } from '../helpers/mcp-client.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';

/** What reached the upstream: each tools/call with its arguments. */
const received: Array<{ tool: string; args: Record<string, unknown> }> = [];

function upstreamServer() {
  const server = new McpServer({ name: 'files-upstream', version: '1.0.0' });
  server.registerTool(
    'delete_files',
    {
      description: 'Deletes files under a directory',
      inputSchema: z.object({
        dir: z.string().regex(/^\/srv\//),
        max: z.number().int().min(1),
        older_than_days: z.number().int(),
        patterns: z.array(z.string()),
      }),
      annotations: { destructiveHint: true, readOnlyHint: false },
    },
    async (args) => {
      received.push({ tool: 'delete_files', args });
      return { content: [{ type: 'text', text: `deleted up to ${args.max} in ${args.dir}` }] };
    },
  );
  server.registerTool(
    'list_files',
    { inputSchema: z.object({ dir: z.string() }), annotations: { readOnlyHint: true } },
    async (args) => {
      received.push({ tool: 'list_files', args });
      return { content: [{ type: 'text', text: `a.txt b.txt in ${args.dir}` }] };
    },
  );
  return server;
}

let relay: RelayHandle;
let stopUpstream: () => Promise<void>;

beforeAll(async () => {
  const handler = createMcpHandler(() => upstreamServer());
  const http = serve({ fetch: (r) => handler.fetch(r), port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((resolve) => http.once('listening', () => resolve()));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  stopUpstream = async () => {
    await handler.close();
    await new Promise((r) => http.close(r));
  };
  relay = await startRelay({
    adapters: [createWebAdapter()],
    configFile: {
      mcp_upstreams: {
        files: {
          url,
          target: 'web:gate-e2e',
          tools: { rules: { delete_files: { policy: 'approve', edit: ['dir', 'max'] } } },
        },
      },
    },
  });
});
afterAll(async () => {
  await relay?.stop();
  await stopUpstream?.();
});

async function json(method: 'GET' | 'POST', path: string, body?: unknown) {
  const res = await request(`${relay.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.body.text();
  return { status: res.statusCode, body: text ? JSON.parse(text) : null };
}
const ROOM = 'gate-e2e';
const seen = new Set<string>();
const newCard = () =>
  eventually(async () => {
    const list = (await json('GET', `/web/api/rooms/${ROOM}/messages`)).body as any[];
    return list.find((m) => m.case && !m.final && !seen.has(m.case));
  });
const tap = (m: any, action: string, data?: unknown) =>
  json('POST', `/web/api/rooms/${ROOM}/messages/${m.id}/actions/${action}`, {
    user: { id: 'ann', name: 'Ann' },
    ...(data !== undefined ? { data } : {}),
  });

describe.each<Era>(['modern', 'legacy'])('%s client', (era) => {
  let client: Client;
  beforeAll(async () => {
    client = await connectMcp(`${relay.url}/mcp/gateway/files`, { era });
  });
  afterAll(async () => {
    await client?.close();
  });

  it('GATE-E2E-1 held in the web chat, edited, approved: the upstream gets exactly the approved arguments, once', async () => {
    const dir = `/srv/tmp-${era}`;
    const args = { dir, max: 100, older_than_days: 30, patterns: ['*.log', '*.tmp'] };
    const before = received.length;
    const call = client.callTool({ name: 'delete_files', arguments: args });
    const card = await newCard();
    seen.add(card.case);
    const shown = JSON.stringify(card);
    for (const s of ['delete_files', 'files', dir, '100', '30', '*.log'])
      expect(shown).toContain(s);
    // Nothing reached the upstream while the person decides.
    expect(received.length).toBe(before);
    const refused = await tap(card, 'approve', { decision: 'approve', values: { max: 2.5 } });
    expect(JSON.stringify(refused.body)).toContain('must be integer');
    const ok = await tap(card, 'approve', {
      decision: 'approve',
      values: { dir: `${dir}/old`, max: 10 },
    });
    expect(ok.body.outcome, JSON.stringify(ok.body)).toBe('submitted');
    const result = await call;
    expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
    expect((result.content as any[])[0].text).toBe(`deleted up to 10 in ${dir}/old`);
    const approved = { ...args, dir: `${dir}/old`, max: 10 };
    expect(received.slice(before)).toEqual([{ tool: 'delete_files', args: approved }]);
    const receipt = (await json('GET', `/v1/cases/${card.case}/receipt`)).body;
    expect(receipt.receipt.tool_call.arguments_sha256).toBe(sha256Of(approved));
  });

  it('GATE-E2E-2 rejected: a tool error naming who refused; the upstream sees nothing', async () => {
    const before = received.length;
    const call = client.callTool({
      name: 'delete_files',
      arguments: { dir: '/srv/keep', max: 1, older_than_days: 1, patterns: [] },
    });
    const card = await newCard();
    seen.add(card.case);
    await tap(card, 'reject', { decision: 'reject' });
    const result = await call;
    expect(result.isError).toBe(true);
    expect((result.content as any[])[0].text).toMatch(
      /^Ann \(x-web\) rejected delete_files on files/,
    );
    expect(received.length).toBe(before);
  });

  it('GATE-E2E-3 a read-only tool passes without asking anyone', async () => {
    const result = await client.callTool({ name: 'list_files', arguments: { dir: '/srv' } });
    expect((result.content as any[])[0].text).toBe('a.txt b.txt in /srv');
  });
});
