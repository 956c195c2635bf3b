/**
 * A thousand MCP calls waiting for people cost the store nothing while nothing changes: each call
 * sleeps on its ask's change event (in-process changes carry the case, so even the cards being
 * posted cost no read). Counted by the relay's own gauges on /metrics (waiting calls, their store
 * reads), across a change elsewhere (another ask answered); then one of the thousand is answered
 * and that call ends with its answer.
 */
import type { Client } from '@modelcontextprotocol/client';
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { connectMcp } from '../helpers/mcp-client.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';

// 1,000 with MCP_WAITS=1000 (minutes on a busy machine); 200 by default keeps the suite quick.
const N = Number(process.env.MCP_WAITS ?? 200);

let relay: RelayHandle;
let client: Client;

/** A gauge of the relay's /metrics. */
async function gauge(name: string): Promise<number> {
  const text = await (await request(`${relay.url}/metrics`)).body.text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  return Number(line?.split(' ')[1] ?? Number.NaN);
}

beforeAll(async () => {
  relay = await startRelay({
    adapters: [createWebAdapter()],
    env: { INTAKE_RATE_LIMIT_PER_MINUTE: '100000' },
  });
  client = await connectMcp(`${relay.url}/mcp?target=web:waits`);
}, 60_000);
afterAll(async () => {
  // The relay first: open calls then end without withdrawing their asks.
  await relay?.stop();
  await client?.close().catch(() => undefined);
});

async function json(method: 'GET' | 'POST', path: string, body?: unknown) {
  const res = await request(`${relay.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return res.body.json() as Promise<any>;
}

it(`${N} open waits read nothing while nothing changes`, { timeout: 180_000 }, async () => {
  const ids: string[] = [];
  const call = (i: number) =>
    client.callTool(
      { name: 'ask_confirm', arguments: { prompt: `Is #${i} fine?` } },
      {
        timeout: 170_000,
        onprogress: (p) => {
          const id = /\(ask ([^)]+)\)/.exec(String(p.message))?.[1];
          if (id) ids.push(id);
        },
      },
    );
  // In batches, so a thousand connections do not overflow the listen backlog at once.
  const calls: ReturnType<typeof call>[] = [];
  for (let i = 0; i < N; i++) {
    calls.push(call(i));
    if (calls.length % 100 === 0)
      await eventually(async () => ids.length === calls.length, 170_000, `${calls.length} waiting`);
  }
  // Each call reports its ask just before it starts to sleep on the ask's change event.
  await eventually(async () => ids.length === N, 170_000, `${N} calls waiting`);
  // Nothing changes any more once every card is posted.
  await eventually(
    async () => {
      const list = (await json('GET', '/web/api/rooms/waits/messages')) as any[];
      return list.filter((m) => m.case).length === N;
    },
    170_000,
    'every card posted',
  );
  await eventually(
    async () => (await gauge('hitl_relay_mcp_waiting_calls')) === N,
    170_000,
    'the gauge',
  );
  const before = await gauge('hitl_relay_mcp_wait_reads');

  // A change elsewhere: another ask is made and answered through the HTTP API.
  const other = await json('POST', '/v1/asks', {
    target: 'web:elsewhere',
    content: { type: 'context', sub_type: 'confirm', prompt: 'Elsewhere?' },
  });
  const messages = await eventually(async () => {
    const list = (await json('GET', '/web/api/rooms/elsewhere/messages')) as any[];
    return list.find((m) => m.case);
  });
  await json('POST', `/web/api/rooms/elsewhere/messages/${messages.id}/actions/confirm`, {
    user: { id: 'ann', name: 'Ann' },
    data: { confirmed: true },
  });
  expect((await json('GET', `/v1/asks/${other.relay.id}/wait?timeout=20`)).status).toBe(
    'completed',
  );

  // Every card was posted and another ask ended meanwhile: the waits read nothing.
  expect(await gauge('hitl_relay_mcp_wait_reads')).toBe(before);
  expect(before).toBe(0);

  // One of the thousand is answered: that call ends with its answer.
  const first = ids[0]!;
  const all = (await json('GET', '/web/api/rooms/waits/messages')) as any[];
  const card = all.find((m) => m.case === first || JSON.stringify(m).includes(first));
  expect(card, 'the card of the first ask').toBeDefined();
  await json('POST', `/web/api/rooms/waits/messages/${card.id}/actions/confirm`, {
    user: { id: 'bo', name: 'Bo' },
    data: { confirmed: true },
  });
  const index = await Promise.race(calls.map((c, i) => c.then(() => i)));
  const result = await calls[index]!;
  expect(result.structuredContent).toMatchObject({ ask_id: first, answer: { confirmed: true } });
});
