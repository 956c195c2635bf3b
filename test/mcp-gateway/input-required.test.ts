import type { Client } from '@modelcontextprotocol/client';
import { createMcpHandler, inputRequired, McpServer } from '@modelcontextprotocol/server';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { connectMcp, type Era } from '../helpers/mcp-client.ts';
import { serveMcpHandler } from '../helpers/mcp-upstream.ts';
import { eventually, logLines, type RelayHandle, startRelay } from '../helpers/relay-env.ts';

/** The planted secret: quotes, a backslash, non-ASCII and a line separator, so re-encoding shows. */
const MARKER = `rs-MARKER-${Math.random().toString(36).slice(2)}-"q"\\é\u2028ü`;
const stateOf = (round: number, env: string) => `${MARKER}|round=${round}|env=${env}`;

/** What the upstream received on each tools/call: the parsed params and the raw body. */
const received: Array<{ params: Record<string, any>; raw: string }> = [];

function upstreamServer() {
  const server = new McpServer({ name: 'mrtr-upstream', version: '1.0.0' });
  server.registerTool(
    'deploy',
    { inputSchema: z.object({ env: z.string() }), annotations: { readOnlyHint: true } },
    async ({ env }, ctx) => {
      const state = ctx.mcpReq.requestState<string>();
      const responses = (ctx.mcpReq.inputResponses ?? {}) as Record<string, any>;
      if (state === undefined)
        return inputRequired({
          requestState: stateOf(1, env),
          inputRequests: {
            confirm: inputRequired.elicit({
              message: `Deploy to ${env}?`,
              requestedSchema: {
                type: 'object',
                properties: { ok: { type: 'boolean', title: 'Go ahead' } },
              },
            }),
          },
        });
      if (state === stateOf(1, env) && responses.confirm?.action === 'accept')
        return inputRequired({
          requestState: stateOf(2, env),
          inputRequests: {
            region: inputRequired.elicit({
              message: 'Which region?',
              requestedSchema: {
                type: 'object',
                properties: { region: { type: 'string', enum: ['eu', 'us'] } },
              },
            }),
          },
        });
      const region = responses.region?.content?.region;
      const verdict = responses.confirm ? responses.confirm.action : `deployed ${env} to ${region}`;
      return {
        content: [
          { type: 'text', text: `${verdict} (state ${state === stateOf(2, env) ? 'ok' : 'bad'})` },
        ],
      };
    },
  );
  // Never satisfied: requestState-only rounds until the client's round cap ends the call.
  server.registerTool('stall', { annotations: { readOnlyHint: true } }, async () =>
    inputRequired({ requestState: stateOf(0, 'stall') }),
  );
  return server;
}

let relay: RelayHandle;
let stopUpstream: () => Promise<void>;

beforeAll(async () => {
  const served = await serveMcpHandler(
    createMcpHandler(() => upstreamServer()),
    (raw) => {
      try {
        const m = JSON.parse(raw);
        if (m.method === 'tools/call') received.push({ params: m.params, raw });
      } catch {}
    },
  );
  const url = served.url;
  stopUpstream = served.close;
  relay = await startRelay({
    adapters: [createWebAdapter()],
    configFile: {
      mcp_upstreams: {
        mrtr: { url, target: 'web:mrtr', protocol: '2026-07-28', timeout_seconds: 30 },
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
  return { status: res.statusCode, text: await res.body.text() };
}
const messages = async () =>
  JSON.parse((await json('GET', '/web/api/rooms/mrtr/messages')).text) as any[];
const seen = new Set<string>();
const newCard = () =>
  eventually(async () => {
    const m = (await messages()).find((x) => x.case && !x.final && !seen.has(x.case));
    if (m) seen.add(m.case);
    return m;
  });
const tap = async (m: any, action: string, data?: unknown) => {
  const r = await json('POST', `/web/api/rooms/mrtr/messages/${m.id}/actions/${action}`, {
    user: { id: 'ann', name: 'Ann' },
    ...(data !== undefined ? { data } : {}),
  });
  expect(JSON.parse(r.text).outcome, r.text).toBe('submitted');
};

/** Nothing the relay shows or says carries the marker (the JSON-escaped form included). */
async function expectMarkerNowhere(caseIds: string[]) {
  const escaped = JSON.stringify(MARKER).slice(1, -1);
  const shown = [
    logLines.join('\n'),
    JSON.stringify(await messages()),
    ...(await Promise.all(
      caseIds.map(async (id) => (await json('GET', `/v1/cases/${id}?history=true`)).text),
    )),
    ...(await Promise.all(caseIds.map(async (id) => (await json('GET', `/v1/asks/${id}`)).text))),
  ].join('\n');
  expect(shown).not.toContain('rs-MARKER');
  expect(shown).not.toContain(escaped);
}

describe.each(['modern', 'legacy'] as Era[])(
  'input_required answered in the web chat (downstream %s)',
  (era) => {
    let client: Client;
    beforeAll(async () => {
      client = await connectMcp(`${relay.url}/mcp/gateway/mrtr`, { era });
    });
    afterAll(async () => client?.close());

    it(`MRTR-1 (${era}) two rounds: each input request an ask, the retry carries the answers and requestState byte for byte; the client sees the final result`, async () => {
      const before = received.length;
      const env = `prod-${era}`;
      const call = client.callTool({ name: 'deploy', arguments: { env } });
      const first = await newCard();
      expect(JSON.stringify(first)).toContain(`Deploy to ${env}?`);
      await tap(first, 'confirm');
      const second = await newCard();
      expect(JSON.stringify(second)).toContain('Which region?');
      await tap(second, 'select', { selected: 'us' });
      const result = await call;
      expect((result.content as any[])[0].text).toBe(`deployed ${env} to us (state ok)`);
      const legs = received.slice(before);
      expect(legs.map((l) => l.params.requestState)).toEqual([
        undefined,
        stateOf(1, env),
        stateOf(2, env),
      ]);
      // Byte for byte on the wire: the JSON text of the state as the upstream minted it.
      expect(legs[1]?.raw).toContain(`"requestState":${JSON.stringify(stateOf(1, env))}`);
      expect(legs[1]?.params.inputResponses).toEqual({
        confirm: { action: 'accept', content: { ok: true } },
      });
      expect(legs[2]?.params.inputResponses).toEqual({
        region: { action: 'accept', content: { region: 'us' } },
      });
      expect(legs[2]?.params.arguments).toEqual({ env });
      await expectMarkerNowhere([first.case, second.case]);
    });

    it(`MRTR-2 (${era}) Decline reaches the upstream as decline in inputResponses; no second round`, async () => {
      const before = received.length;
      const call = client.callTool({ name: 'deploy', arguments: { env: `qa-${era}` } });
      await tap(await newCard(), 'cancel');
      const result = await call;
      expect((result.content as any[])[0].text).toBe('decline (state bad)');
      const legs = received.slice(before);
      expect(legs).toHaveLength(2);
      expect(legs[1]?.params.inputResponses).toEqual({ confirm: { action: 'decline' } });
      await expectMarkerNowhere([]);
    });
  },
);

it('MRTR-3 an upstream that never stops asking: the client gets an MCP error after the round cap, without the requestState', async () => {
  const client = await connectMcp(`${relay.url}/mcp/gateway/mrtr`, { era: 'modern' });
  try {
    const err = await client.callTool({ name: 'stall', arguments: {} }).then(
      () => undefined,
      (e: Error) => e,
    );
    expect(err?.message).toContain('upstream MCP server "mrtr"');
    expect(err?.message).toContain('still required input after 10 rounds');
    expect(JSON.stringify({ message: err?.message, data: (err as any)?.data })).not.toContain(
      'rs-MARKER',
    );
    await expectMarkerNowhere([]);
  } finally {
    await client.close();
  }
});
