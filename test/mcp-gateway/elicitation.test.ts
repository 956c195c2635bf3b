/**
 * Elicitation answered in chat, end to end: an upstream written with the official SDK (McpServer
 * on a sessionful 2025-11-25 Streamable HTTP transport, so its `elicitInput` reaches the gateway
 * as a wire `elicitation/create`), a real relay with it in `mcp_upstreams`, the official SDK
 * client downstream at /mcp/gateway/<name>. Each tool elicits one schema shape; a person answers
 * in the web chat; the upstream records exactly what it received: accept with content typed to
 * the schema, decline, or cancel.
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { Client } from '@modelcontextprotocol/client';
import {
  type ElicitRequestFormParams,
  McpServer,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { connectMcp } from '../helpers/mcp-client.ts';
import { eventually, logLines, type RelayHandle, startRelay } from '../helpers/relay-env.ts';

type Schema = ElicitRequestFormParams['requestedSchema'];
/** The schema each tool elicits with. */
const SCHEMAS: Record<string, Schema> = {
  ask_bool: {
    type: 'object',
    properties: { proceed: { type: 'boolean', title: 'Deploy to production' } },
    required: ['proceed'],
  },
  ask_enum: {
    type: 'object',
    properties: {
      region: {
        type: 'string',
        oneOf: [
          { const: 'eu-west', title: 'Europe (West)' },
          { const: 'us east', title: 'US East' },
        ],
      },
    },
  },
  ask_many: {
    type: 'object',
    properties: {
      langs: { type: 'array', items: { type: 'string', enum: ['ts', 'py', 'go'] }, minItems: 1 },
    },
  },
  ask_form: {
    type: 'object',
    properties: {
      name: { type: 'string', title: 'Name', minLength: 2 },
      email: { type: 'string', format: 'email' },
      age: { type: 'integer', minimum: 18, maximum: 120 },
      seats: { type: 'number', default: 2 },
      vip: { type: 'boolean' },
      size: { type: 'string', enum: ['S', 'M', 'L'] },
    },
    required: ['name', 'age'],
  },
};

/** What the upstream received back from each elicitation. */
const answers: Array<{ tool: string; result: unknown }> = [];

function upstreamServer() {
  const server = new McpServer({ name: 'asking-upstream', version: '1.0.0' });
  for (const [tool, requestedSchema] of Object.entries(SCHEMAS))
    server.registerTool(
      tool,
      { description: `elicits ${tool}`, annotations: { readOnlyHint: true } },
      async (ctx) => {
        const result = await ctx.mcpReq.elicitInput({
          mode: 'form',
          message: `Question of ${tool}`,
          requestedSchema,
        });
        answers.push({ tool, result });
        return { content: [{ type: 'text', text: JSON.stringify(result) }] };
      },
    );
  return server;
}

/** A sessionful 2025-era upstream: one server and transport per session. */
async function startUpstream() {
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const fetch = async (req: Request) => {
    const sid = req.headers.get('mcp-session-id');
    const known = sid ? sessions.get(sid) : undefined;
    if (known) return known.handleRequest(req);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, transport),
    });
    await upstreamServer().connect(transport);
    return transport.handleRequest(req);
  };
  const http = serve({ fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((resolve) => http.once('listening', () => resolve()));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    close: async () => {
      await Promise.all([...sessions.values()].map((t) => t.close()));
      // The gateway's standing GET streams would keep the server open.
      (http as unknown as { closeAllConnections(): void }).closeAllConnections();
      await new Promise((r) => http.close(r));
    },
  };
}

let relay: RelayHandle;
let stopUpstream: () => Promise<void>;
let client: Client;
let bare: Client;

beforeAll(async () => {
  const up = await startUpstream();
  stopUpstream = up.close;
  relay = await startRelay({
    adapters: [createWebAdapter()],
    configFile: {
      mcp_upstreams: {
        asking: { url: up.url, target: 'web:elicit', protocol: 'legacy', timeout_seconds: 10 },
        untargeted: { url: up.url, protocol: 'legacy' },
      },
    },
  });
  client = await connectMcp(`${relay.url}/mcp/gateway/asking`, { era: 'legacy' });
  bare = await connectMcp(`${relay.url}/mcp/gateway/untargeted`, { era: 'legacy' });
});
afterAll(async () => {
  await client?.close();
  await bare?.close();
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
const ROOM = 'elicit';
const seen = new Set<string>();
const newCard = () =>
  eventually(async () => {
    const list = (await json('GET', `/web/api/rooms/${ROOM}/messages`)).body as any[];
    const m = list.find((x) => x.case && !x.final && !seen.has(x.case));
    if (m) seen.add(m.case);
    return m;
  });
const tap = async (m: any, action: string, data?: unknown) => {
  const r = await json('POST', `/web/api/rooms/${ROOM}/messages/${m.id}/actions/${action}`, {
    user: { id: 'ann', name: 'Ann' },
    ...(data !== undefined ? { data } : {}),
  });
  expect(r.body.outcome, JSON.stringify(r.body)).toBe('submitted');
};
/** Calls `tool`, lets `answer` act on its card, and returns what the upstream received. */
async function elicit(tool: string, answer: (card: any) => Promise<void>) {
  const before = answers.length;
  const call = client.callTool({ name: tool, arguments: {} });
  const card = await newCard();
  expect(JSON.stringify(card)).toContain(`Question of ${tool}`);
  await answer(card);
  const result = await call;
  expect(answers.length).toBe(before + 1);
  expect((result.content as any[])[0].text).toBe(JSON.stringify(answers[before]?.result));
  return { card, got: answers[before]?.result };
}

describe('form-mode elicitation answered in the web chat', () => {
  it('ELICIT-1 one boolean → confirm: Confirm reaches the upstream as accept {field: true}', async () => {
    const { card, got } = await elicit('ask_bool', (c) => tap(c, 'confirm'));
    expect(JSON.stringify(card)).toContain('Deploy to production');
    expect(got).toEqual({ action: 'accept', content: { proceed: true } });
  });

  it('ELICIT-2 one boolean → confirm: Decline reaches the upstream as decline', async () => {
    const { got } = await elicit('ask_bool', (c) => tap(c, 'cancel'));
    expect(got).toEqual({ action: 'decline' });
  });

  it('ELICIT-3 one enum (oneOf) → choose one: the enum value (not the option key) comes back', async () => {
    const { card, got } = await elicit('ask_enum', async (c) => {
      expect(JSON.stringify(c)).toContain('US East');
      await tap(c, 'select', { selected: 'option_2' });
    });
    expect(JSON.stringify(card)).toContain('Europe (West)');
    expect(got).toEqual({ action: 'accept', content: { region: 'us east' } });
  });

  it('ELICIT-4 array of enum → choose several: a list of the enum values', async () => {
    const { got } = await elicit('ask_many', (c) => tap(c, 'select', { selected: ['go', 'ts'] }));
    expect(got).toEqual({ action: 'accept', content: { langs: ['ts', 'go'] } });
  });

  it('ELICIT-5 several fields → form: formats and bounds shown, values typed, default filled in', async () => {
    const { card, got } = await elicit('ask_form', (c) =>
      tap(c, 'submit', {
        values: { name: 'Ann', email: 'ann@example.org', age: 40, vip: true, size: 'M' },
      }),
    );
    const shown = JSON.stringify(card);
    for (const s of ['email', '18–120', 'whole number', 'default: 2', 'at least 2 characters'])
      expect(shown).toContain(s);
    expect(got).toEqual({
      action: 'accept',
      content: { name: 'Ann', email: 'ann@example.org', age: 40, seats: 2, vip: true, size: 'M' },
    });
  });

  it('ELICIT-6 an answer outside the schema (age below minimum) is never accepted: cancel', async () => {
    const { got } = await elicit('ask_form', (c) =>
      tap(c, 'submit', { values: { name: 'Bo', age: 12 } }),
    );
    expect(got).toEqual({ action: 'cancel' });
  });

  it('ELICIT-8 an upstream with no target: cancel, and a log line naming the missing target', async () => {
    const before = answers.length;
    const result = await bare.callTool({ name: 'ask_bool', arguments: {} });
    expect(answers.slice(before)).toEqual([{ tool: 'ask_bool', result: { action: 'cancel' } }]);
    expect((result.content as any[])[0].text).toBe('{"action":"cancel"}');
    const line = logLines.find((l) => l.includes('elicitation cancelled'));
    expect(line).toContain('"upstream":"untargeted"');
    expect(line).toContain('mcp_upstreams.<name>.target');
  });
});
