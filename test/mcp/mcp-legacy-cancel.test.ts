/**
 * 2025-era cancels at /mcp when request ids collide. A 2025 client cancels with a
 * `notifications/cancelled` POST that names only its request id, and two fresh official SDK
 * clients have their first call at the same id. Each gets its own `Mcp-Session-Id` at
 * `initialize` (mcp/legacy-session.ts), so one client's cancel withdraws its own ask and leaves the
 * other's open; before, the ambiguous cancel was dropped and neither ask was withdrawn.
 */
import type { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { connectMcp, progressLines } from '../helpers/mcp-client.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';

let relay: RelayHandle;
const clients: Client[] = [];

beforeAll(async () => {
  relay = await startRelay({ adapters: [createWebAdapter()] });
});
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  await relay?.stop();
});

const messages = async (room: string) =>
  (await (await request(`${relay.url}/web/api/rooms/${room}/messages`)).body.json()) as any[];
const asked = (client: Client, room: string) => {
  const stop = new AbortController();
  const progress = progressLines();
  const done = client.callTool(
    { name: 'ask_confirm', arguments: { prompt: `Go ahead in ${room}?`, target: `web:${room}` } },
    { signal: stop.signal, onprogress: progress.onprogress, timeout: 60_000 },
  );
  done.catch(() => undefined);
  const id = eventually(async () => progress.askId(), 10_000, `the ask in ${room}`);
  return { done, stop, id };
};
const statusOf = async (id: string) =>
  ((await (await request(`${relay.url}/v1/asks/${id}`)).body.json()) as any).status;

it('MCP-LEGACY-CANCEL-1 two 2025 clients at the same request id: one cancel withdraws only its own ask', async () => {
  for (let i = 0; i < 2; i++) clients.push(await connectMcp(`${relay.url}/mcp`, { era: 'legacy' }));
  const sessions = clients.map((c) => (c.transport as StreamableHTTPClientTransport).sessionId);
  expect(sessions[0]).toMatch(/^[\x21-\x7e]{16,128}$/);
  expect(sessions[1]).toMatch(/^[\x21-\x7e]{16,128}$/);
  expect(sessions[0]).not.toBe(sessions[1]);
  const mine = asked(clients[0] as Client, 'lc-mine');
  const theirs = asked(clients[1] as Client, 'lc-theirs');
  const [myId, theirId] = [await mine.id, await theirs.id];
  mine.stop.abort('the agent gave up');
  await expect(mine.done).rejects.toThrow();
  await eventually(async () => (await statusOf(myId)) === 'cancelled', 10_000, 'mine withdrawn');
  expect(await statusOf(theirId)).toBe('pending');
  const card = await eventually(
    async () => (await messages('lc-theirs')).find((m) => m.case && !m.final),
    10_000,
    'their card',
  );
  const tap = await request(
    `${relay.url}/web/api/rooms/lc-theirs/messages/${card.id}/actions/confirm`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user: { id: 'ann', name: 'Ann' } }),
    },
  );
  expect(((await tap.body.json()) as any).outcome).toBe('submitted');
  const result = await theirs.done;
  expect(result.structuredContent).toMatchObject({ ask_id: theirId, status: 'completed' });
});
