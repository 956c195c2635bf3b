/**
 * The MCP server end to end over Streamable HTTP, with the official SDK client against a real relay
 * and the web chat: every kind's tool posts its card, the person answers in the web chat, and the
 * call ends with the typed answer in structuredContent (valid against the tool's outputSchema),
 * who answered, when, where and the ask id; progress arrives while it waits; bad arguments are a
 * tool error naming the field with nothing stored.
 */
import type { Client } from '@modelcontextprotocol/client';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { ALL_KINDS } from '../../src/asks/content.ts';
import { toolOf } from '../../src/mcp/kinds.ts';
import { KINDS } from '../asks/fixtures.ts';
import { connectMcp, type Era, outputValidators, progressLines } from '../helpers/mcp-client.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';

let relay: RelayHandle;

beforeAll(async () => {
  relay = await startRelay({ adapters: [createWebAdapter()] });
});
afterAll(async () => {
  await relay?.stop();
});

async function json(method: 'GET' | 'POST', path: string, body?: unknown) {
  const res = await request(`${relay.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.body.text();
  return { status: res.statusCode, body: text ? JSON.parse(text) : null };
}

/** The card of the ask in `room`, once it is there. */
const card = (room: string) =>
  eventually(
    async () => {
      const r = await json('GET', `/web/api/rooms/${room}/messages`);
      return (r.body as any[]).find((m) => m.case && !m.final);
    },
    10_000,
    `a card in ${room}`,
  );

/** The content arguments of a kind (its fixture without type and sub_type). */
function argumentsOf(kind: keyof typeof KINDS): Record<string, unknown> {
  const { type: _t, sub_type: _s, ...rest } = KINDS[kind].content;
  // The fixtures are in the Python SDK's shape (null for "none"); a model leaves those out.
  return JSON.parse(JSON.stringify(rest, (_k, v) => (v === null ? undefined : v)));
}

describe.each<Era>(['modern', 'legacy'])('%s client', (era) => {
  let client: Client;
  let check: Awaited<ReturnType<typeof outputValidators>>['check'];
  beforeAll(async () => {
    client = await connectMcp(`${relay.url}/mcp`, { era });
    ({ check } = await outputValidators(client));
  });
  afterAll(async () => {
    await client?.close();
  });

  it.each(ALL_KINDS)('%s: asked in the web chat, answered there, typed result', async (kind) => {
    const fx = KINDS[kind];
    const room = `mcp-${era}-${kind.replace(/[^a-z]/g, '-')}`;
    const tool = toolOf(kind).name;
    const progress: string[] = [];
    const call = client.callTool(
      { name: tool, arguments: { ...argumentsOf(kind), target: `web:${room}` } },
      { onprogress: (p) => void progress.push(String(p.message)) },
    );
    const m = await card(room);
    expect(m.ask).toMatchObject({ kind });
    const ok = await json(
      'POST',
      `/web/api/rooms/${room}/messages/${m.id}/actions/${fx.answer.action}`,
      {
        user: { id: 'ann', name: 'Ann' },
        data: fx.answer.data,
      },
    );
    expect(ok.body.outcome, JSON.stringify(ok.body)).toBe('submitted');
    const result = await call;
    expect(result.isError ?? false, JSON.stringify(result.content)).toBe(false);
    const out = result.structuredContent as any;
    expect(check(tool, out)).toBeNull();
    expect(out).toMatchObject({
      kind,
      status: 'completed',
      final: true,
      answer: fx.result,
      answered_by: { name: 'Ann', platform: 'x-web', user_id: 'ann' },
      platform: 'x-web',
      target: `web:${room}`,
    });
    expect(Date.parse(out.answered_at)).not.toBeNaN();
    // The same ask the HTTP API shows: one code path underneath.
    const viaApi = await json('GET', `/v1/asks/${out.ask_id}`);
    expect(viaApi.body).toMatchObject({ kind, status: 'completed', answer: fx.result });
    expect((result.content as any[])[0].text).toContain('Ann on x-web answered');
    expect(progress[0]).toContain(`asked in web:${room}`);
  });
});

describe('tools/list and refusals', () => {
  let client: Client;
  beforeAll(async () => {
    client = await connectMcp(`${relay.url}/mcp`);
  });
  afterAll(async () => {
    await client?.close();
  });
  const stored = async () => (await relay.relay.services.store.listCases({ limit: 1000 })).length;

  it('lists ten ask tools and get_answer, each with input and output schemas and honest hints', async () => {
    const { tools } = await client.listTools();
    const asks = tools.filter((t) => t.name.startsWith('ask_'));
    expect(asks.map((t) => t.name).sort()).toEqual(ALL_KINDS.map((k) => toolOf(k).name).sort());
    for (const t of asks) {
      expect(t.inputSchema.required, t.name).toContain('prompt');
      expect(Object.keys(t.inputSchema.properties ?? {}), t.name).toEqual(
        expect.arrayContaining(['target', 'timeout_seconds', 'on_timeout']),
      );
      expect(t.outputSchema, t.name).toBeDefined();
      expect(t.annotations, t.name).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    }
    expect(tools.find((t) => t.name === 'get_answer')?.annotations?.readOnlyHint).toBe(true);
  });

  it.each([
    ['an invalid option key', { options: [{ key: 'a b', label: 'A' }] }, 'options[0].key'],
    ['an unknown platform', { target: 'nowhere:1' }, 'target'],
    [
      'a duplicate option',
      {
        options: [
          { key: 'a', label: 'A' },
          { key: 'a', label: 'B' },
        ],
      },
      'options[1].key',
    ],
    ['a timeout too long', { timeout_seconds: 99_999_999 }, 'timeout_seconds'],
    ['an unknown argument', { colour: 'red' }, 'colour'],
  ])('refuses %s: a tool error naming the field, nothing stored', async (_why, bad, field) => {
    const before = await stored();
    const result = await client.callTool({
      name: 'ask_choose_one',
      arguments: {
        prompt: 'Pick one',
        options: [{ key: 'a', label: 'A' }],
        target: 'web:refusals',
        ...bad,
      },
    });
    expect(result.isError).toBe(true);
    expect((result.content as any[])[0].text).toContain(field);
    expect(await stored()).toBe(before);
  });

  it('refuses a call without a target when the connection configured none', async () => {
    const result = await client.callTool({
      name: 'ask_confirm',
      arguments: { prompt: 'Is the build green?' },
    });
    expect(result.isError).toBe(true);
    expect((result.content as any[])[0].text).toMatch(/target: is required/);
  });

  it('uses ?target= as the default target, and reports the card posted as progress', async () => {
    const withTarget = await connectMcp(`${relay.url}/mcp?target=web:default-room`);
    const progress: string[] = [];
    const call = withTarget.callTool(
      { name: 'ask_confirm', arguments: { prompt: 'Is the build green?' } },
      { onprogress: (p) => void progress.push(String(p.message)) },
    );
    const m = await card('default-room');
    await json('POST', `/web/api/rooms/default-room/messages/${m.id}/actions/confirm`, {
      user: { id: 'bo', name: 'Bo' },
      data: { confirmed: true },
    });
    const result = await call;
    expect(result.structuredContent).toMatchObject({ answer: { confirmed: true } });
    expect(progress).toContain('posted to web:default-room');
    await withTarget.close();
  });
});

describe('a client that goes away', () => {
  it('2025 era: a dropped connection leaves the ask open; get_answer reads the answer later', async () => {
    const first = await connectMcp(`${relay.url}/mcp`, { era: 'legacy' });
    const progress = progressLines();
    const call = first.callTool(
      {
        name: 'ask_free_text',
        arguments: { ...argumentsOf('context.freetext'), target: 'web:gone' },
      },
      progress,
    );
    const m = await card('gone');
    const askId = await eventually(async () => progress.askId(), 10_000, 'the ask id');
    await first.close();
    await call.catch(() => undefined);
    const open = await json('GET', `/v1/asks/${askId}`);
    expect(open.body.status).toBe('pending');

    const later = await connectMcp(`${relay.url}/mcp`, { era: 'legacy' });
    const pending = await later.callTool({ name: 'get_answer', arguments: { ask_id: askId } });
    expect(pending.structuredContent).toMatchObject({
      status: 'pending',
      final: false,
      answer: null,
    });
    expect((pending.content as any[])[0].text).toContain('get_answer');
    const waiting = later.callTool({
      name: 'get_answer',
      arguments: { ask_id: askId, wait_seconds: 30 },
    });
    await json('POST', `/web/api/rooms/gone/messages/${m.id}/actions/submit`, {
      user: { id: 'ann', name: 'Ann' },
      data: { value: 'Later.' },
    });
    expect((await waiting).structuredContent).toMatchObject({
      ask_id: askId,
      status: 'completed',
      answer: { value: 'Later.' },
    });
    const unknown = await later.callTool({ name: 'get_answer', arguments: { ask_id: 'nope' } });
    expect(unknown.isError).toBe(true);
    expect((unknown.content as any[])[0].text).toContain('ask_id');
    await later.close();
  });

  it('lists the open asks as hitl://asks resources and reads one', async () => {
    const client = await connectMcp(`${relay.url}/mcp`);
    const abort = new AbortController();
    const progress = progressLines();
    const call = client.callTool(
      { name: 'ask_confirm', arguments: { prompt: 'Is it Friday?', target: 'web:resources' } },
      {
        signal: abort.signal,
        onprogress: progress.onprogress,
      },
    );
    await card('resources');
    const askId = await eventually(async () => progress.askId(), 10_000, 'the ask id');
    const { resources } = await client.listResources();
    const mine = resources.find((r) => r.uri === `hitl://asks/${askId}`);
    expect(mine).toMatchObject({ mimeType: 'application/json', title: 'Is it Friday?' });
    const read = await client.readResource({ uri: mine!.uri });
    const doc = JSON.parse((read.contents[0] as { text: string }).text);
    expect(doc).toMatchObject({
      ask_id: askId,
      kind: 'context.confirm',
      status: 'pending',
      target: 'web:resources',
    });
    abort.abort();
    await call.catch(() => undefined);
    await eventually(
      async () => (await json('GET', `/v1/asks/${askId}`)).body.status === 'cancelled',
      10_000,
      'withdrawn',
    );
    const after = await client.listResources();
    expect(after.resources.some((r) => r.uri === `hitl://asks/${askId}`)).toBe(false);
    await client.close();
  });
});
