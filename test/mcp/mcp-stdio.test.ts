/**
 * `hitl-relay mcp --relay URL` on stdio, driven by the official SDK client's stdio transport (it
 * spawns the real command): the key comes from the environment, the tools are the relay's, a call
 * is answered in the web chat and ends with the typed answer; without the key the relay refuses.
 */
import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';

const KEY = 's'.repeat(32);
let relay: RelayHandle;
let keyed: RelayHandle;

beforeAll(async () => {
  relay = await startRelay({ adapters: [createWebAdapter()] });
  keyed = await startRelay({ adapters: [createWebAdapter()], env: { RELAY_API_KEY: KEY } });
});
afterAll(async () => {
  await relay?.stop();
  await keyed?.stop();
});

function spawnClient(env: Record<string, string>, on: RelayHandle = relay, room?: string) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      resolve('bin/hitl-relay.js'),
      'mcp',
      '--relay',
      on.url,
      '--target',
      `web:${room ?? 'stdio'}`,
    ],
    env: { PATH: process.env.PATH ?? '', ...env },
    stderr: 'pipe',
  });
  // With a room: pinned to 2026-07-28, so the test stays on that revision whatever the default.
  const client = new Client(
    { name: 'stdio-agent', version: '1.0.0' },
    room ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  return { client, transport };
}

it('lists the tools and answers a call through the stdio bridge', { timeout: 60_000 }, async () => {
  const { client, transport } = spawnClient({});
  await client.connect(transport);
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name)).toContain('ask_approval');
  const call = client.callTool({ name: 'ask_approval', arguments: { prompt: 'Merge the PR?' } });
  const auth = { 'content-type': 'application/json' };
  const card = await eventually(async () => {
    const res = await request(`${relay.url}/web/api/rooms/stdio/messages`, { headers: auth });
    return ((await res.body.json()) as any[]).find((m) => m.case);
  });
  await request(`${relay.url}/web/api/rooms/stdio/messages/${card.id}/actions/approve`, {
    method: 'POST',
    headers: auth,
    body: JSON.stringify({ user: { id: 'ann', name: 'Ann' }, data: { decision: 'approve' } }),
  });
  const result = await call;
  expect(result.structuredContent).toMatchObject({
    status: 'completed',
    answer: { decision: 'approve' },
    target: 'web:stdio',
  });
  await client.close();
});

it('reads RELAY_API_KEY from the environment; without it the relay refuses', {
  timeout: 60_000,
}, async () => {
  const withKey = spawnClient({ RELAY_API_KEY: KEY }, keyed);
  await withKey.client.connect(withKey.transport);
  expect((await withKey.client.listTools()).tools.length).toBe(11);
  await withKey.client.close();

  const { client, transport } = spawnClient({}, keyed);
  let stderr = '';
  transport.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  await expect(client.connect(transport)).rejects.toThrow(/401|nauthorized/);
  expect(stderr).toMatch(/401|nauthorized/);
  expect(stderr).not.toContain(KEY);
  await client.close().catch(() => undefined);
});

it('2026-07-28: cancelling a call on stdio withdraws its ask and edits the card', {
  timeout: 60_000,
}, async () => {
  const { client, transport } = spawnClient({}, relay, 'stdio-cancel');
  await client.connect(transport);
  const abort = new AbortController();
  const call = client.callTool(
    { name: 'ask_confirm', arguments: { prompt: 'Is the window 18:00?' } },
    { signal: abort.signal },
  );
  const headers = { 'content-type': 'application/json' };
  const cards = async () => {
    const res = await request(`${relay.url}/web/api/rooms/stdio-cancel/messages`, { headers });
    return ((await res.body.json()) as any[]).filter((m) => m.case);
  };
  const [card] = await eventually(async () => {
    const list = await cards();
    return list.length > 0 && list;
  });
  // The stdio client cancels with notifications/cancelled (there is no per-request stream).
  abort.abort('not needed any more');
  await call.catch(() => undefined);
  await eventually(
    async () => {
      const res = await request(`${relay.url}/v1/asks/${card.case}`, { headers });
      return ((await res.body.json()) as any).status === 'cancelled';
    },
    10_000,
    'the ask withdrawn',
  );
  await eventually(
    async () => JSON.stringify(await cards()).includes('the agent cancelled the request'),
    10_000,
    'the card edited',
  );
  await client.close();
});
