/**
 * A held tool call whose downstream client cancels, end to end: the official SDK client at
 * /mcp/gateway/<name> in both eras (2026-07-28 cancels by closing the call's stream, 2025 by
 * `notifications/cancelled`), a real relay, an SDK upstream. The ask is withdrawn (the case
 * cancelled with the reason, the card final) and the upstream never receives the call.
 */
import type { Client } from '@modelcontextprotocol/client';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { connectMcp, type Era } from '../helpers/mcp-client.ts';
import { startUpstream, type TestUpstream } from '../helpers/mcp-upstream.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';

let upstream: TestUpstream;
let relay: RelayHandle;
const ROOM = 'held-cancel';

beforeAll(async () => {
  upstream = await startUpstream();
  relay = await startRelay({
    adapters: [createWebAdapter()],
    configFile: {
      mcp_upstreams: {
        held: { url: upstream.url, target: `web:${ROOM}`, tools: { rules: { echo: 'approve' } } },
      },
    },
  });
});
afterAll(async () => {
  await relay?.stop();
  await upstream?.close();
});

const messages = async () => {
  const res = await request(`${relay.url}/web/api/rooms/${ROOM}/messages`);
  return (await res.body.json()) as any[];
};

describe.each<Era>(['modern', 'legacy'])('%s client', (era) => {
  let client: Client;
  beforeAll(async () => {
    client = await connectMcp(`${relay.url}/mcp/gateway/held`, { era });
  });
  afterAll(async () => {
    await client?.close();
  });

  it(`GATE-CANCEL-1 (${era}) the client cancels a held call: the ask is withdrawn, the upstream never sees it`, async () => {
    const text = `cancel-${era}`;
    const stop = new AbortController();
    const call = client.callTool(
      { name: 'echo', arguments: { text } },
      { signal: stop.signal, timeout: 60_000 },
    );
    call.catch(() => undefined);
    const card = await eventually(
      async () =>
        (await messages()).find((m) => m.case && !m.final && JSON.stringify(m).includes(text)),
      10_000,
      'the held call card',
    );
    stop.abort('the agent gave up');
    await expect(call).rejects.toThrow();
    const ended = await relay.until(card.case, (c) => c.status === 'cancelled');
    expect(ended.reason).toContain('MCP client cancelled the tool call');
    await eventually(async () => (await messages()).find((m) => m.case === card.case && m.final));
    expect(upstream.calls.filter((c) => c.args.text === text)).toEqual([]);
  });
});
