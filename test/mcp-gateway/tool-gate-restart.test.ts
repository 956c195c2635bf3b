/**
 * A held tool call survives a relay restart: the ask and the gate's marks are in the store, so
 * after the restart the decision is still answerable, the client's identical retry joins it (no
 * second card), and the approved call is sent once, whether the person answers before or after
 * the retry arrives. The original downstream request died with the old process (its client saw
 * the connection close); only a retry can receive the result.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { createToolGate, type GateTool, type ToolGate } from '../../src/mcp-gateway/tool-gate.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'hitl-gate-restart-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

const UPSTREAMS = { files: { target: 'web:held' } };
const tool: GateTool = { name: 'drop_table', annotations: { destructiveHint: true } };

async function start(port?: string): Promise<{ relay: RelayHandle; gate: ToolGate }> {
  const relay = await startRelay({
    adapters: [createWebAdapter()],
    dataDir,
    ...(port ? { env: { PORT: port } } : {}),
  });
  const gate = createToolGate(
    { relay: relay.relay.services, asks: relay.relay.asks!, origin: () => relay.url },
    UPSTREAMS,
  );
  return { relay, gate };
}

const call = (gate: ToolGate, table: string, signal = new AbortController().signal) =>
  gate({ upstream: 'files', tool, args: { table }, client: { keyName: 'etl' }, signal });

async function cards(relay: RelayHandle) {
  const res = await request(`${relay.url}/web/api/rooms/held/messages`);
  return ((await res.body.json()) as any[]).filter((m) => m.case);
}
const confirm = (relay: RelayHandle, m: any) =>
  request(`${relay.url}/web/api/rooms/held/messages/${m.id}/actions/confirm`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user: { id: 'ann', name: 'Ann' } }),
  }).then((r) => r.body.json() as Promise<any>);

it('GATE-RESTART-1 a pending decision survives a restart and its approved call is sent once', async () => {
  const first = await start();
  // Two held calls; their clients' requests end with the old process.
  const gone = new AbortController();
  const a = call(first.gate, 'orders', gone.signal);
  const b = call(first.gate, 'users', gone.signal);
  const held = await eventually(async () => {
    const list = await cards(first.relay);
    return list.length === 2 ? list : undefined;
  });
  gone.abort();
  expect((await a).kind).toBe('refuse');
  expect((await b).kind).toBe('refuse');
  first.gate.close();
  await first.relay.stop();

  const second = await start(new URL(first.relay.url).port);
  try {
    const byTable = (t: string) => held.find((m) => JSON.stringify(m).includes(t));
    // A: the client retries while the decision is still open; it joins, then Ann confirms.
    const open = second.gate.waits.open;
    const retryA = call(second.gate, 'orders');
    await eventually(async () => second.gate.waits.open === open + 1 || undefined);
    expect((await cards(second.relay)).length).toBe(2);
    expect((await confirm(second.relay, byTable('orders'))).outcome).toBe('submitted');
    expect(await retryA).toEqual({ kind: 'send', args: { table: 'orders' } });
    // B: Ann confirms while no client waits; the client's retry then gets the send.
    expect((await confirm(second.relay, byTable('users'))).outcome).toBe('submitted');
    expect(await call(second.gate, 'users')).toEqual({ kind: 'send', args: { table: 'users' } });
    expect((await cards(second.relay)).length).toBe(2);
    for (const m of held) {
      const rows = await second.relay.relay.services.store.listHistory(m.case);
      expect(rows.filter((r) => r.kind === 'tool_call_sent')).toHaveLength(1);
    }
    // Sent once: the same call again is a new question, not a second send of the old approval.
    const again = call(second.gate, 'users');
    await eventually(async () => (await cards(second.relay)).length === 3 || undefined);
    const fresh = (await cards(second.relay)).find((m) => !held.some((h) => h.case === m.case));
    await request(`${second.relay.url}/web/api/rooms/held/messages/${fresh.id}/actions/cancel`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user: { id: 'ann', name: 'Ann' } }),
    }).then((r) => r.body.text());
    expect((await again).kind).toBe('refuse');
  } finally {
    second.gate.close();
    await second.relay.stop();
  }
});
