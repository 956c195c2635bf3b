/**
 * Issue 33 (identity): named client keys. RELAY_API_KEYS gives each client its own key; any of
 * them opens the API as RELAY_API_KEY does, and what a client does through the MCP gateway is
 * recorded under its name: a held tool call's card and receipt say which client called. A bad
 * entry is refused naming its place and name, never its key.
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { Client } from '@modelcontextprotocol/client';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { readConfig } from '../../src/config/config.ts';
import { ValidationError } from '../../src/errors.ts';
import { connectMcp } from '../helpers/mcp-client.ts';
import { eventually, logLines, type RelayHandle, startRelay } from '../helpers/relay-env.ts';

const RELAY_KEY = 'relay-own-key-0123456789abcdef';
const DESKTOP_KEY = 'desktop-key-9f8e7d6c5b4a39281706';
const CI_KEY = 'ci-key-00112233445566778899aabb';

function refusal(env: Record<string, string>): string {
  try {
    readConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    const d = (err as ValidationError).details;
    expect(d[0]?.path).toBe('RELAY_API_KEYS');
    return d[0]!.message;
  }
  throw new Error('expected a refusal');
}

describe('RELAY_API_KEYS in the configuration', () => {
  it('NAMED-KEYS-1 name=key entries; a bad one is refused by place and name, never by key', () => {
    const c = readConfig({
      RELAY_API_KEY: RELAY_KEY,
      RELAY_API_KEYS: ` claude-desktop=${DESKTOP_KEY}, ci=${CI_KEY} `,
    });
    expect(c.namedApiKeys).toEqual([
      { name: 'claude-desktop', key: DESKTOP_KEY },
      { name: 'ci', key: CI_KEY },
    ]);
    expect(readConfig({ RELAY_API_KEY: RELAY_KEY }).namedApiKeys).toEqual([]);

    const cases: Array<[string, string, RegExp]> = [
      [`a=${DESKTOP_KEY}`, '', /needs RELAY_API_KEY too/],
      [`ci=${CI_KEY},${DESKTOP_KEY}`, RELAY_KEY, /^entry 2 must be name=key/],
      [`bad name=${CI_KEY}`, RELAY_KEY, /^entry 1 must be name=key/],
      ['ci=short-key', RELAY_KEY, /^entry 1 \("ci"\): the key must be at least 16 characters/],
      [`ci=${CI_KEY},ci=${DESKTOP_KEY}`, RELAY_KEY, /^entry 2 \("ci"\): the name is given twice/],
      [`ci=${CI_KEY},cd=${CI_KEY}`, RELAY_KEY, /^entry 2 \("cd"\): the key is used twice/],
      [`ci=${RELAY_KEY}`, RELAY_KEY, /^entry 1 \("ci"\): the key is used twice/],
    ];
    for (const [keys, relayKey, expected] of cases) {
      const message = refusal({
        RELAY_API_KEYS: keys,
        ...(relayKey ? { RELAY_API_KEY: relayKey } : {}),
      });
      expect(message).toMatch(expected);
      for (const key of [DESKTOP_KEY, CI_KEY, RELAY_KEY, 'short-key'])
        expect(message).not.toContain(key);
    }
  });
});

describe('named keys at the API and the gateway', () => {
  const received: Array<Record<string, unknown>> = [];
  let relay: RelayHandle;
  let stopUpstream: () => Promise<void>;
  const clients: Client[] = [];

  beforeAll(async () => {
    const handler = createMcpHandler(() => {
      const server = new McpServer({ name: 'ops-upstream', version: '1.0.0' });
      server.registerTool(
        'restart_service',
        {
          inputSchema: z.object({ service: z.string() }),
          annotations: { destructiveHint: true, readOnlyHint: false },
        },
        async (args) => {
          received.push(args);
          return { content: [{ type: 'text', text: `restarted ${args.service}` }] };
        },
      );
      return server;
    });
    const http = serve({ fetch: (r) => handler.fetch(r), port: 0, hostname: '127.0.0.1' });
    await new Promise<void>((resolve) => http.once('listening', () => resolve()));
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
    stopUpstream = async () => {
      await handler.close();
      await new Promise((r) => http.close(r));
    };
    relay = await startRelay({
      adapters: [createWebAdapter()],
      env: {
        RELAY_ALLOW_HTTP_LOOPBACK: '1',
        HOST: '127.0.0.1',
        RELAY_API_KEY: RELAY_KEY,
        RELAY_API_KEYS: `claude-desktop=${DESKTOP_KEY},ci=${CI_KEY}`,
      },
      configFile: { mcp_upstreams: { ops: { url, target: 'web:named-keys' } } },
    });
  });
  afterAll(async () => {
    for (const c of clients) await c.close();
    await relay?.stop();
    await stopUpstream?.();
  });

  const get = async (path: string, key?: string) =>
    (
      await request(`${relay.url}${path}`, {
        headers: key ? { authorization: `Bearer ${key}` } : {},
      })
    ).statusCode;
  const web = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
    const res = await request(`${relay.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return JSON.parse(await res.body.text());
  };

  it('NAMED-KEYS-2 each named key opens the API as RELAY_API_KEY does; others do not', async () => {
    for (const key of [RELAY_KEY, DESKTOP_KEY, CI_KEY])
      expect(await get('/v1/cases', key)).toBe(200);
    for (const key of [undefined, `${CI_KEY}x`, CI_KEY.slice(0, -1), 'claude-desktop'])
      expect(await get('/v1/cases', key)).toBe(401);
  });

  it('NAMED-KEYS-3 a held call through the gateway says which client called, in the card and the receipt', async () => {
    const seen = new Set<string>();
    const held = async (key: string, service: string) => {
      const client = await connectMcp(`${relay.url}/mcp/gateway/ops`, { key });
      clients.push(client);
      const call = client.callTool({ name: 'restart_service', arguments: { service } });
      const card = await eventually(async () => {
        const list = (await web('GET', '/web/api/rooms/named-keys/messages')) as any[];
        return list.find((m) => m.case && !m.final && !seen.has(m.case));
      });
      seen.add(card.case);
      return { call, card };
    };
    const desktop = await held(DESKTOP_KEY, 'billing');
    expect(JSON.stringify(desktop.card)).toContain('Called by: client \\"claude-desktop\\"');
    const own = await held(RELAY_KEY, 'search');
    expect(JSON.stringify(own.card)).toContain('Called by: a client with the relay API key');

    const ok = await web(
      'POST',
      `/web/api/rooms/named-keys/messages/${desktop.card.id}/actions/confirm`,
      { user: { id: 'ann', name: 'Ann' } },
    );
    expect(ok.outcome, JSON.stringify(ok)).toBe('submitted');
    expect(((await desktop.call).content as any[])[0].text).toBe('restarted billing');
    expect(received).toEqual([{ service: 'billing' }]);
    // The other call, refused: the upstream never sees it.
    await web('POST', `/web/api/rooms/named-keys/messages/${own.card.id}/actions/cancel`, {
      user: { id: 'ann', name: 'Ann' },
    });
    expect((await own.call).isError).toBe(true);
    expect(received).toEqual([{ service: 'billing' }]);
    const receipt = await request(`${relay.url}/v1/cases/${desktop.card.case}/receipt`, {
      headers: { authorization: `Bearer ${CI_KEY}` },
    });
    expect(await receipt.body.text()).toContain('claude-desktop');
    // Names are recorded; keys never reach a log line.
    const logs = logLines.join('\n');
    for (const key of [RELAY_KEY, DESKTOP_KEY, CI_KEY]) expect(logs).not.toContain(key);
  });
});
