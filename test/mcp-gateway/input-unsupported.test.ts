/** Input requests the gateway does not answer in chat (sampling, roots) on a 2026-07-28 upstream. */
import type { Client } from '@modelcontextprotocol/client';
import { createMcpHandler, inputRequired, McpServer } from '@modelcontextprotocol/server';
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { connectMcp } from '../helpers/mcp-client.ts';
import { serveMcpHandler } from '../helpers/mcp-upstream.ts';
import { type RelayHandle, startRelay } from '../helpers/relay-env.ts';

/** One tool per input request the gateway does not declare; each asks once (it is refused). */
function upstreamServer() {
  const server = new McpServer({ name: 'asks-more', version: '1.0.0' });
  const asks = {
    summarise: {
      llm: inputRequired.createMessage({
        messages: [{ role: 'user', content: { type: 'text', text: 'Summarise' } }],
        maxTokens: 50,
      }),
    },
    where: { dirs: inputRequired.listRoots() },
  };
  for (const [name, inputRequests] of Object.entries(asks))
    server.registerTool(name, { annotations: { readOnlyHint: true } }, async () =>
      inputRequired({ requestState: 'rs-SECRET', inputRequests }),
    );
  return server;
}

let relay: RelayHandle;
let stopUpstream: () => Promise<void>;
let client: Client;
beforeAll(async () => {
  const served = await serveMcpHandler(createMcpHandler(() => upstreamServer()));
  stopUpstream = served.close;
  relay = await startRelay({
    adapters: [createWebAdapter()],
    configFile: {
      mcp_upstreams: { more: { url: served.url, target: 'web:more', protocol: '2026-07-28' } },
    },
  });
  client = await connectMcp(`${relay.url}/mcp/gateway/more`, { era: 'modern' });
});
afterAll(async () => {
  await client?.close();
  await relay?.stop();
  await stopUpstream?.();
});

const cards = async () => {
  const res = await request(`${relay.url}/web/api/rooms/more/messages`);
  return (JSON.parse(await res.body.text()) as any[]).filter((m) => m.case);
};

// The gateway answers elicitation in chat; sampling and roots it cannot answer for a person, so it
// declares neither upstream, and a conforming upstream refuses the input request itself.
it.each([
  ['summarise', 'sampling/createMessage', 'sampling'],
  ['where', 'roots/list', 'roots'],
])(
  "INPUT-UNSUP (%s) an input request for %s: the client gets the upstream's capability error, no card is posted",
  async (tool, method, capability) => {
    const err = await client.callTool({ name: tool, arguments: {} }).then(
      () => undefined,
      (e: Error & { code?: number; data?: any }) => e,
    );
    expect(err?.code).toBe(-32021);
    expect(err?.message).toContain(`(${method})`);
    expect(err?.data).toEqual({ requiredCapabilities: { [capability]: {} } });
    expect(JSON.stringify({ m: err?.message, d: err?.data })).not.toContain('rs-SECRET');
    expect(await cards()).toEqual([]);
  },
);
