/**
 * An elicitation's ask lives no longer than the upstream request that asked it, end to end: an
 * official-SDK upstream (McpServer, sessionful 2025-11-25) whose tool elicits and can give up, a
 * real relay with the web chat, the official SDK client downstream. When the upstream cancels
 * its elicitation, or the downstream client cancels the call that caused it, the ask is withdrawn:
 * the case cancelled with the reason, the card edited to a final card without buttons. On the
 * relay's graceful stop the open asks are withdrawn the same way; an ask a killed relay process
 * left open is withdrawn when the next one starts. Everything waits on events and states.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { McpServer } from '@modelcontextprotocol/server';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { ALIVE_TTL_MS } from '../../src/cases/posting-lease.ts';
import {
  ELICIT_ORPHANED,
  ELICIT_STOPPED,
  ELICIT_WITHDRAWN,
} from '../../src/mcp-gateway/elicitation-lifetime.ts';
import { connectMcp, type Era } from '../helpers/mcp-client.ts';
import { startSessionfulUpstream } from '../helpers/mcp-sessionful-upstream.ts';
import { freePort, spawnRelay } from '../helpers/process.ts';
import { eventually, logLines, type RelayHandle, startRelay } from '../helpers/relay-env.ts';

const ROOM = 'lifetime';
/** The upstream's own way to give up each elicitation, by the call's `id`. */
const giveUp = new Map<string, AbortController>();
/** How each elicitation ended at the upstream (its result, or the error it got). */
const ended = new Map<string, string>();

function upstreamServer() {
  const server = new McpServer({ name: 'patient-upstream', version: '1.0.0' });
  server.registerTool(
    'ask_then_maybe_give_up',
    { inputSchema: z.object({ id: z.string() }), annotations: { readOnlyHint: true } },
    async ({ id }, ctx) => {
      const own = new AbortController();
      giveUp.set(id, own);
      // A well-behaved server stops asking when its own call is cancelled.
      const signal = AbortSignal.any([own.signal, ctx.mcpReq.signal]);
      const result = await ctx.mcpReq
        .elicitInput(
          {
            mode: 'form',
            message: `Question ${id}`,
            requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
          },
          { signal, timeout: 600_000 },
        )
        .then(JSON.stringify, (err: Error) => `error: ${err.message}`);
      ended.set(id, result);
      return { content: [{ type: 'text', text: result }] };
    },
  );
  return server;
}

let upstream: Awaited<ReturnType<typeof startSessionfulUpstream>>;
const dataDir = mkdtempSync(join(tmpdir(), 'hitl-elicit-life-'));
const configFile = () => ({
  mcp_upstreams: {
    patient: { url: upstream.url, target: `web:${ROOM}`, protocol: 'legacy', timeout_seconds: 600 },
  },
});
const start = (extra: { now?: () => number; port?: string } = {}) =>
  startRelay({
    adapters: [createWebAdapter()],
    dataDir,
    configFile: configFile(),
    ...(extra.now && { now: extra.now }),
    ...(extra.port && { env: { PORT: extra.port } }),
  });

beforeAll(async () => {
  upstream = await startSessionfulUpstream(upstreamServer);
});
afterAll(async () => {
  for (const c of giveUp.values()) c.abort();
  await upstream?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const messages = async (url: string) => {
  const res = await request(`${url}/web/api/rooms/${ROOM}/messages`);
  return (await res.body.json()) as any[];
};
/** The open card of elicitation `id`. */
const cardOf = (url: string, id: string) =>
  eventually(
    async () =>
      (await messages(url)).find((m) => m.case && !m.final && m.text.includes(`Question ${id}`)),
    15_000,
    `the card of ${id}`,
  );
/** The card of `caseId` once it is final and has no buttons left. */
async function withdrawnCard(url: string, caseId: string) {
  const m = await eventually(
    async () => (await messages(url)).find((x) => x.case === caseId && x.final),
    15_000,
    'the final card',
  );
  expect(m.actions).toEqual([]);
  expect(m.ask).toBeUndefined();
  return m;
}

describe('while the relay runs', () => {
  let relay: RelayHandle;
  const clients: Partial<Record<Era, Client>> = {};
  beforeAll(async () => {
    relay = await start();
    for (const era of ['legacy', 'modern'] as const)
      clients[era] = await connectMcp(`${relay.url}/mcp/gateway/patient`, { era });
  });
  afterAll(async () => {
    for (const c of Object.values(clients)) await c?.close();
    await relay?.stop();
  });

  it('ELICIT-LIFE-1 the upstream cancels its elicitation: the ask is withdrawn, its card final without buttons', async () => {
    const call = clients.legacy!.callTool({
      name: 'ask_then_maybe_give_up',
      arguments: { id: 'u1' },
    });
    const card = await cardOf(relay.url, 'u1');
    giveUp.get('u1')!.abort('the server found the answer elsewhere');
    const c = await relay.until(card.case, (x) => x.status === 'cancelled', 15_000);
    expect(c.reason).toBe(ELICIT_WITHDRAWN);
    const final = await withdrawnCard(relay.url, card.case);
    expect(JSON.stringify(final)).toContain('no longer needed');
    expect((await call).content).toEqual([
      { type: 'text', text: expect.stringContaining('error') },
    ]);
    await eventually(async () =>
      logLines.some((l) => l.includes(card.case) && l.includes('elicitation withdrawn; its cards')),
    );
  });

  it.each<Era>(['legacy', 'modern'])(
    'ELICIT-LIFE-2 (%s) the downstream client cancels the call that caused it: the ask is withdrawn',
    async (era) => {
      const id = `d-${era}`;
      const stop = new AbortController();
      const call = clients[era]!.callTool(
        { name: 'ask_then_maybe_give_up', arguments: { id } },
        { signal: stop.signal, timeout: 600_000 },
      );
      call.catch(() => undefined);
      const card = await cardOf(relay.url, id);
      stop.abort('the agent gave up');
      await expect(call).rejects.toThrow();
      const c = await relay.until(card.case, (x) => x.status === 'cancelled', 15_000);
      expect(c.reason).toBe(ELICIT_WITHDRAWN);
      await withdrawnCard(relay.url, card.case);
      await eventually(async () => ended.get(id)?.startsWith('error'));
    },
  );
});

it('ELICIT-LIFE-3 the relay stops gracefully: its open elicitation asks are withdrawn, their cards final', async () => {
  const relay = await start();
  const client = await connectMcp(`${relay.url}/mcp/gateway/patient`, { era: 'legacy' });
  const call = client.callTool({ name: 'ask_then_maybe_give_up', arguments: { id: 's3' } });
  call.catch(() => undefined);
  const card = await cardOf(relay.url, 's3');
  await relay.stop();
  await client.close();
  // The next process reads what the stop left: the case ended, its card final.
  const next = await start({ port: new URL(relay.url).port });
  try {
    const c = await next.get(card.case);
    expect(c.status).toBe('cancelled');
    expect(c.reason).toBe(ELICIT_STOPPED);
    await withdrawnCard(next.url, card.case);
  } finally {
    await next.stop();
  }
});

it('ELICIT-LIFE-4 a relay process is killed with an elicitation open: the next one withdraws the orphan at start-up', async () => {
  const file = join(dataDir, 'child-config.json');
  writeFileSync(file, JSON.stringify(configFile()));
  const port = String(await freePort());
  const child = await spawnRelay({
    DATA_DIR: dataDir,
    RELAY_CONFIG: file,
    PORT: port,
    WEB_CHAT: '1',
  });
  let card: any;
  try {
    const client = await connectMcp(`${child.url}/mcp/gateway/patient`, { era: 'legacy' });
    client.callTool({ name: 'ask_then_maybe_give_up', arguments: { id: 'k4' } }).catch(() => 0);
    card = await cardOf(child.url, 'k4');
    await child.kill('SIGKILL');
    await client.close().catch(() => undefined);
  } finally {
    await child.kill('SIGKILL');
  }
  // The killed process's alive key lapses ALIVE_TTL_MS after its last beat: a clock past that.
  const next = await start({ now: () => Date.now() + ALIVE_TTL_MS + 5000, port });
  try {
    const c = await next.until(card.case, (x) => x.status === 'cancelled', 15_000);
    expect(c.reason).toBe(ELICIT_ORPHANED);
    await withdrawnCard(next.url, card.case);
    await eventually(async () =>
      logLines.some((l) => l.includes('withdrew elicitations a previous relay process left open')),
    );
  } finally {
    await next.stop();
  }
});
