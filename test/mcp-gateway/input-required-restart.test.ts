/**
 * A task-less 2026-07-28 `input_required` ask survives a relay restart (issue 33). The upstream
 * is written with the official SDK (McpServer on createMcpHandler, stateless) and mints a new
 * `requestState` (with a planted marker) on every first round; downstream, the official SDK
 * client with a named API key. The relay stops while the card is open and starts again on the
 * same SQLite store; the client's retry of the identical call joins the ask it had before: no
 * second card, the person's answer (given after the retry, or before it) goes upstream with the
 * new round's `requestState` byte for byte. A retry with other arguments or from another key
 * gets its own ask; the leftover is withdrawn when the grace lapses on the relay's (fake) clock.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { createMcpHandler, inputRequired, McpServer } from '@modelcontextprotocol/server';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { ALIVE_TTL_MS } from '../../src/cases/posting-lease.ts';
import { ELICIT_NOT_RETRIED, JOIN_GRACE_MS } from '../../src/mcp-gateway/input-join.ts';
import { connectMcp } from '../helpers/mcp-client.ts';
import { serveMcpHandler } from '../helpers/mcp-upstream.ts';
import { eventually, logLines, type RelayHandle, startRelay } from '../helpers/relay-env.ts';
import { webRoom } from '../helpers/web-room.ts';

const MARKER = `rs-MARKER-${Math.random().toString(36).slice(2)}-"q"\\é\u2028ü`;
const ADMIN = 'admin-key-0123456789abcdef';
const KEYS = { etl: 'etl-key-0123456789abcdef', ci: 'ci-key-0123456789abcdef0' };
const JOINED = 'mcp gateway: a retried call joined the ask it had before';

/** Every requestState the upstream minted, and what it received on each tools/call. */
const minted: string[] = [];
const received: Array<{ params: Record<string, any>; raw: string }> = [];

function upstreamServer() {
  const server = new McpServer({ name: 'mrtr-restart', version: '1.0.0' });
  server.registerTool(
    'deploy',
    { inputSchema: z.object({ env: z.string() }), annotations: { readOnlyHint: true } },
    async ({ env }, ctx) => {
      const state = ctx.mcpReq.requestState<string>();
      const answer = (ctx.mcpReq.inputResponses ?? {}) as Record<string, any>;
      if (state === undefined) {
        const fresh = `${MARKER}|call=${minted.length + 1}|env=${env}`;
        minted.push(fresh);
        return inputRequired({
          requestState: fresh,
          inputRequests: {
            confirm: inputRequired.elicit({
              message: `Deploy to ${env}?`,
              requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
            }),
          },
        });
      }
      const latest = minted.filter((s) => s.endsWith(`env=${env}`)).at(-1);
      const ok = state === latest ? 'latest' : 'stale';
      return { content: [{ type: 'text', text: `${answer.confirm?.action} ${env} (${ok})` }] };
    },
  );
  return server;
}

const dataDir = mkdtempSync(join(tmpdir(), 'hitl-gw-mrtr-restart-'));
let upstreamUrl = '';
let stopUpstream: () => Promise<void>;
/** The relay's clock runs ahead by this much (a restart: past the alive key; the grace). */
let ahead = 0;
const now = () => Date.now() + ahead;
let relay: RelayHandle | undefined;
const clients: Client[] = [];

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
  upstreamUrl = served.url;
  stopUpstream = served.close;
});
afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  await relay?.stop();
  await stopUpstream?.();
  rmSync(dataDir, { recursive: true, force: true });
});

const start = (port?: string) =>
  startRelay({
    adapters: [createWebAdapter()],
    dataDir,
    now,
    env: {
      RELAY_API_KEY: ADMIN,
      RELAY_API_KEYS: `etl=${KEYS.etl},ci=${KEYS.ci}`,
      RELAY_ALLOW_HTTP_LOOPBACK: '1',
      HOST: '127.0.0.1',
      ...(port && { PORT: port }),
    },
    configFile: {
      mcp_upstreams: {
        mrtr: {
          url: upstreamUrl,
          target: 'web:mrtrjoin',
          protocol: '2026-07-28',
          timeout_seconds: 3600,
        },
      },
    },
  });

/** Stops the relay and starts the next process on the same store and port, its clock past the alive key. */
async function restart(): Promise<RelayHandle> {
  const port = new URL((relay as RelayHandle).url).port;
  await (relay as RelayHandle).stop();
  // The clients of the stopped process go with it (each retry connects anew).
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  ahead += ALIVE_TTL_MS + 5000;
  relay = await start(port);
  return relay;
}

const call = async (key: keyof typeof KEYS, env: string) => {
  relay ??= await start();
  const c = await connectMcp(`${(relay as RelayHandle).url}/mcp/gateway/mrtr`, { key: KEYS[key] });
  clients.push(c);
  const done = c.callTool({ name: 'deploy', arguments: { env } });
  done.catch(() => undefined);
  // In a box: an async function's own promise would be a rejection nobody handles yet.
  return { done };
};
const room = webRoom(() => (relay as RelayHandle).url, 'mrtrjoin');
const { messages, tap } = room;
/** The cases the web chat was asked (each one card). */
const cardCases = async () => new Set((await messages()).filter((m) => m.case).map((m) => m.case));
const cardFor = (env: string, not = new Set<string>()) => room.openCard(`Deploy to ${env}?`, not);
const joins = () => logLines.filter((l) => l.includes(JOINED)).length;
const legsOf = (env: string) => received.filter((r) => r.params.arguments?.env === env);

/** The retry's answer leg: the person's answer, and the state of the retry's own first round. */
function expectAnsweredWithNewState(env: string) {
  const legs = legsOf(env);
  expect(legs.map((l) => l.params.requestState === undefined)).toEqual([true, true, false]);
  const latest = minted.filter((s) => s.endsWith(`env=${env}`)).at(-1) as string;
  expect(legs[2]?.params.requestState).toBe(latest);
  expect(legs[2]?.raw).toContain(`"requestState":${JSON.stringify(latest)}`);
  expect(legs[2]?.params.inputResponses).toEqual({
    confirm: { action: 'accept', content: { ok: true } },
  });
}

it("MRTR-RESTART-1 the retried identical call joins the open ask: no second card; answered after the restart, the upstream gets the new round's requestState", async () => {
  relay = await start();
  const { done: first } = await call('etl', 'a');
  const card = await cardFor('a');
  relay = await restart();
  await expect(first).rejects.toThrow();
  const before = joins();
  const { done: retry } = await call('etl', 'a');
  await eventually(async () => joins() > before, 10_000, 'the retry joined');
  expect(legsOf('a')).toHaveLength(2);
  await tap(card);
  const result = await retry;
  expect((result.content as any[])[0].text).toBe('accept a (latest)');
  expectAnsweredWithNewState('a');
  expect(await cardCases()).toEqual(new Set([card.case]));
});

it('MRTR-RESTART-2 a person answered the old card before the retry: the retry takes that answer, no new card', async () => {
  const cases = await cardCases();
  const { done: first } = await call('etl', 'b');
  const card = await cardFor('b');
  relay = await restart();
  await expect(first).rejects.toThrow();
  await tap(card);
  await relay.until(card.case, (c) => c.status === 'completed');
  const result = await (await call('etl', 'b')).done;
  expect((result.content as any[])[0].text).toBe('accept b (latest)');
  expectAnsweredWithNewState('b');
  expect(await cardCases()).toEqual(new Set([...cases, card.case]));
});

it('MRTR-RESTART-3 other arguments or another API key ask anew; the leftover is withdrawn when the grace lapses', async () => {
  const { done: first } = await call('etl', 'c');
  const card = await cardFor('c');
  relay = await restart();
  await expect(first).rejects.toThrow();
  const before = joins();
  const { done: other } = await call('etl', 'c2');
  const otherCard = await cardFor('c2');
  const { done: byCi } = await call('ci', 'c');
  const ciCard = await cardFor('c', new Set([card.case]));
  expect(ciCard.case).not.toBe(card.case);
  expect(joins()).toBe(before);
  expect((await relay.get(card.case)).status).not.toBe('cancelled');
  ahead += JOIN_GRACE_MS + 1000;
  const withdrawn = await relay.until(card.case, (c) => c.status === 'cancelled', 15_000);
  expect(withdrawn.reason).toBe(ELICIT_NOT_RETRIED);
  await eventually(async () => (await messages()).find((m) => m.case === card.case && m.final));
  // The new asks are this process's own: still open, and answered as usual.
  for (const open of [otherCard, ciCard])
    expect((await relay.get(open.case)).status).not.toBe('cancelled');
  await tap(otherCard);
  await tap(ciCard);
  expect(((await other).content as any[])[0].text).toBe('accept c2 (latest)');
  expect(((await byCi).content as any[])[0].text).toBe('accept c (latest)');
});

it('MRTR-RESTART-4 the planted requestState marker is in no log line, card, case or stored row', async () => {
  const r = relay as RelayHandle;
  const ids = [...(await cardCases())];
  expect(ids.length).toBeGreaterThanOrEqual(4);
  const shown = [
    logLines.join('\n'),
    JSON.stringify(await messages()),
    ...(await Promise.all(ids.map(async (id) => JSON.stringify(await r.get(id))))),
    ...(await Promise.all(
      ids.map(async (id) => JSON.stringify(await r.relay.services.store.listHistory(id))),
    )),
  ].join('\n');
  expect(shown).not.toContain('rs-MARKER');
  expect(shown).not.toContain(JSON.stringify(MARKER).slice(1, -1));
  // Every byte the store wrote (the database and its log): no requestState, in any encoding.
  for (const f of readdirSync(dataDir).filter((n) => n.includes('sqlite'))) {
    const bytes = readFileSync(join(dataDir, f));
    expect(bytes.includes('rs-MARKER'), f).toBe(false);
    expect(bytes.includes(Buffer.from('rs-MARKER', 'utf16le')), f).toBe(false);
  }
  // The ask is labelled with the fingerprint only (a SHA-256, nothing readable).
  const labels = (await r.relay.services.store.getCase(ids[0] as string))?.doc.labels ?? {};
  expect(labels.mcp_input_join).toMatch(/^[0-9a-f]{64}$/);
});
