/**
 * The lean path of /mcp (src/mcp/lean-call.ts) answers what the SDK path answers. Each call is
 * sent twice on the wire, once as the lean path takes it and once with a client capability it
 * leaves to the SDK (`roots: {}`, which changes nothing for an ask tool): a Tasks client's task,
 * a refused target, arguments the schema refuses (the lean path hands those to the SDK, which
 * words the error), and the intake rate limit's refusal. A client without Tasks waits on the
 * lean path too (mcp/lean-wait.ts): the raw bytes of both paths' progress streams and plain
 * answers are compared, and the official SDK client is served, cancelled and answered both ways.
 * The relay's gauge hitl_relay_mcp_lean_calls says which path served each call.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';
import { tempDirs } from '../helpers/temp.ts';

const REVISION = '2026-07-28';
const KEY = 'k'.repeat(32);
let relay: RelayHandle;
let limited: RelayHandle;

beforeAll(async () => {
  relay = await startRelay({ adapters: [createWebAdapter()] });
  limited = await startRelay({
    adapters: [createWebAdapter()],
    env: {
      RELAY_API_KEY: KEY,
      INTAKE_RATE_LIMIT_PER_MINUTE: '2',
      RELAY_ALLOW_HTTP_LOOPBACK: '1',
      HOST: '127.0.0.1',
    },
  });
});
afterAll(async () => {
  await relay?.stop();
  await limited?.stop();
});

const gauge = async (on: RelayHandle, name: string) => {
  const headers = on === limited ? { authorization: `Bearer ${KEY}` } : undefined;
  const text = await (await request(`${on.url}/metrics`, { headers })).body.text();
  return Number(
    text
      .split('\n')
      .find((l) => l.startsWith(`${name} `))
      ?.split(' ')[1],
  );
};

let id = 0;
/** A tools/call as a 2026-07-28 client sends it; `sdk` adds a capability the lean path leaves alone. */
function post(
  on: RelayHandle,
  name: string,
  args: unknown,
  o: { sdk: boolean; tasks?: boolean; progressToken?: number; signal?: AbortSignal },
) {
  const caps = {
    ...(o.tasks === false ? {} : { extensions: { 'io.modelcontextprotocol/tasks': {} } }),
    ...(o.sdk ? { roots: {} } : {}),
  };
  const token = o.progressToken !== undefined ? { progressToken: o.progressToken } : {};
  return fetch(`${on.url}/mcp`, {
    method: 'POST',
    ...(o.signal ? { signal: o.signal } : {}),
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': REVISION,
      'mcp-method': 'tools/call',
      'mcp-name': name,
      ...(on === limited ? { authorization: `Bearer ${KEY}` } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: ++id,
      method: 'tools/call',
      params: {
        name,
        arguments: args,
        _meta: {
          'io.modelcontextprotocol/protocolVersion': REVISION,
          'io.modelcontextprotocol/clientInfo': { name: 'lean-test', version: '1.0.0' },
          'io.modelcontextprotocol/clientCapabilities': caps,
          ...token,
        },
      },
    }),
  });
}

/** One tools/call as a Tasks client sends it; `sdk` adds a capability the lean path leaves alone. */
async function call(on: RelayHandle, name: string, args: unknown, sdk: boolean) {
  const before = await gauge(on, 'hitl_relay_mcp_lean_calls');
  const res = await post(on, name, args, { sdk });
  const body = await res.json();
  const lean = (await gauge(on, 'hitl_relay_mcp_lean_calls')) - before;
  expect(body.id).toBe(id);
  return {
    status: res.status,
    type: res.headers.get('content-type'),
    body: { ...body, id: 0 },
    lean,
  };
}

/** Both paths' answers to the same call. */
async function both(on: RelayHandle, name: string, args: unknown) {
  return { lean: await call(on, name, args, false), sdk: await call(on, name, args, true) };
}

describe('the lean path answers as the SDK path does', () => {
  it('a Tasks client gets the same task (the ask stored, its card posted)', async () => {
    const { lean, sdk } = await both(relay, 'ask_confirm', {
      prompt: 'Fine?',
      target: 'web:lean-task',
    });
    expect([lean.lean, sdk.lean]).toEqual([1, 0]);
    for (const r of [lean, sdk]) {
      const ask = await (await fetch(`${relay.url}/v1/asks/${r.body.result.taskId}`)).json();
      expect(ask).toMatchObject({ kind: 'context.confirm', status: 'pending' });
    }
    const strip = (r: typeof lean) => {
      const { taskId, createdAt, lastUpdatedAt, ttlMs, ...rest } = r.body.result;
      expect(typeof taskId).toBe('string');
      expect(Date.parse(createdAt)).toBe(Date.parse(lastUpdatedAt));
      expect(ttlMs).toBeGreaterThan(0);
      return { ...r, body: { ...r.body, result: rest } };
    };
    expect(strip(lean)).toEqual({ ...strip(sdk), lean: 1 });
    expect(lean.body.result).toMatchObject({ resultType: 'task', status: 'working' });
  });

  it('a target it cannot ask in: the same tool error, nothing stored', async () => {
    const { lean, sdk } = await both(relay, 'ask_approval', { prompt: 'Deploy?', target: 'x:y' });
    expect([lean.lean, sdk.lean]).toEqual([1, 0]);
    expect(lean.body.result.isError).toBe(true);
    expect(lean).toEqual({ ...sdk, lean: 1 });
  });

  it('arguments the schema refuses go to the SDK, which words the error', async () => {
    const { lean, sdk } = await both(relay, 'ask_confirm', { prompt: 5, target: 'web:a' });
    expect([lean.lean, sdk.lean]).toEqual([0, 0]);
    expect(lean.body.result.content[0].text).toContain('Input validation error');
    expect(lean).toEqual(sdk);
  });

  it("the intake rate limit's refusal is the same", async () => {
    const args = { prompt: 'Fine?', target: 'web:lean-limit' };
    const first = await both(limited, 'ask_confirm', args);
    expect([first.lean.body.result.resultType, first.sdk.body.result.resultType]).toEqual([
      'task',
      'task',
    ]);
    const { lean, sdk } = await both(limited, 'ask_confirm', args);
    expect([lean.lean, sdk.lean]).toEqual([1, 0]);
    const seconds = (r: typeof lean) => JSON.stringify(r).replace(/\d+/g, 'N');
    expect(lean.body.result._meta['hitl-relay/retry_after_seconds']).toBeGreaterThan(0);
    expect(seconds({ ...lean, lean: 0 })).toBe(seconds(sdk));
  });
});

/** The card of the open ask in `room`, once it is there. */
const card = (room: string) =>
  eventually(
    async () => {
      const res = await fetch(`${relay.url}/web/api/rooms/${room}/messages`);
      return ((await res.json()) as any[]).find((m) => m.case && !m.final);
    },
    10_000,
    `a card in ${room}`,
  );

/** Ann confirms the open ask in `room` in the web chat. */
async function confirm(room: string) {
  const m = await card(room);
  const res = await fetch(`${relay.url}/web/api/rooms/${room}/messages/${m.id}/actions/confirm`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user: { id: 'ann', name: 'Ann' }, data: { confirmed: true } }),
  });
  expect((await res.json()).outcome).toBe('submitted');
}

/** What legitimately differs between two asks: their ids and times. */
const normal = (text: string) =>
  text.replace(/hc_[A-Za-z0-9_-]+/g, 'ASK').replace(/\d{4}-\d\d-\d\dT[\d:.]+Z/g, 'TIME');

/** A call without Tasks on the wire: status, headers (but the date) and every byte of the body. */
async function raw(sdk: boolean, room: string, progressToken?: number) {
  const before = await gauge(relay, 'hitl_relay_mcp_lean_calls');
  const args = { prompt: 'Fine?', target: `web:${room}` };
  const res = post(relay, 'ask_confirm', args, { sdk, tasks: false, progressToken });
  await confirm(room);
  const answered = await res;
  const headers = [...answered.headers].filter(([k]) => k !== 'date');
  const body = normal(await answered.text());
  const lean = (await gauge(relay, 'hitl_relay_mcp_lean_calls')) - before;
  return { status: answered.status, headers, body: body.replace(/"id":\d+}/, '"id":0}'), lean };
}

describe('a client without Tasks: the lean path writes what the SDK path writes', () => {
  it('with a progress token: the same SSE stream, byte for byte', async () => {
    const lean = await raw(false, 'lean-raw-progress', 7);
    const sdk = await raw(true, 'lean-raw-progress', 7);
    expect([lean.lean, sdk.lean]).toEqual([1, 0]);
    expect(lean).toEqual({ ...sdk, lean: 1 });
    expect(lean.headers).toContainEqual(['content-type', 'text/event-stream']);
    expect(lean.headers).toContainEqual(['cache-control', 'no-cache, no-transform']);
    const frames = lean.body.split('\n\n').filter(Boolean);
    expect(frames.every((f) => f.startsWith('event: message\ndata: '))).toBe(true);
    const messages = frames.map((f) => JSON.parse(f.slice('event: message\ndata: '.length)));
    expect(messages[1]).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 7, progress: 2, message: 'posted to web:lean-raw-progress' },
    });
    expect(messages.at(-1).result).toMatchObject({
      structuredContent: { status: 'completed', answer: { confirmed: true } },
      resultType: 'complete',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'hitl-relay' } },
    });
  });

  it('without one: the same JSON answer once the person answered', async () => {
    const lean = await raw(false, 'lean-raw-plain');
    const sdk = await raw(true, 'lean-raw-plain');
    expect([lean.lean, sdk.lean]).toEqual([1, 0]);
    expect(lean).toEqual({ ...sdk, lean: 1 });
    expect(lean.headers).toContainEqual(['content-type', 'application/json']);
    expect(JSON.parse(lean.body).result.structuredContent.answer).toEqual({ confirmed: true });
  });

  it.each([
    ['lean', false],
    ['SDK', true],
  ])(
    'the SDK client on the %s path: progress, the typed answer, a cancel withdraws',
    async (_p, sdk) => {
      const client = new Client(
        { name: 'lean-sdk-client', version: '1.0.0' },
        {
          versionNegotiation: { mode: { pin: REVISION } },
          ...(sdk ? { capabilities: { roots: {} } } : {}),
        },
      );
      await client.connect(new StreamableHTTPClientTransport(new URL(`${relay.url}/mcp`)));
      const room = `lean-client-${sdk ? 'sdk' : 'lean'}`;
      const before = await gauge(relay, 'hitl_relay_mcp_lean_calls');
      const progress: string[] = [];
      const onprogress = (p: { message?: string }) => void progress.push(String(p.message));
      const args = { prompt: 'Fine?', target: `web:${room}` };
      const answered = client.callTool({ name: 'ask_confirm', arguments: args }, { onprogress });
      await eventually(async () => progress.includes(`posted to web:${room}`), 10_000, 'posted');
      expect(await gauge(relay, 'hitl_relay_mcp_waiting_calls')).toBeGreaterThan(0);
      await confirm(room);
      const result = await answered;
      expect(result.structuredContent).toMatchObject({
        status: 'completed',
        answer: { confirmed: true },
      });
      expect((await gauge(relay, 'hitl_relay_mcp_lean_calls')) - before).toBe(sdk ? 0 : 1);

      const abort = new AbortController();
      const lines: string[] = [];
      const gone = client.callTool(
        { name: 'ask_confirm', arguments: { ...args, prompt: 'Still fine?' } },
        { signal: abort.signal, onprogress: (p) => void lines.push(String(p.message)) },
      );
      await eventually(async () => lines.includes(`posted to web:${room}`), 10_000, 'posted');
      const askId = /\(ask ([^)]+)\)/.exec(lines[0] ?? '')![1]!;
      abort.abort();
      await gone.catch(() => undefined);
      await eventually(
        async () =>
          (await (await fetch(`${relay.url}/v1/asks/${askId}`)).json()).status === 'cancelled',
        10_000,
        'the ask withdrawn',
      );
      await eventually(
        async () => {
          const res = await fetch(`${relay.url}/web/api/rooms/${room}/messages`);
          return (await res.text()).includes('the agent cancelled the request');
        },
        10_000,
        'the card edited',
      );
      await eventually(async () => (await gauge(relay, 'hitl_relay_mcp_waiting_calls')) === 0);
      expect((await gauge(relay, 'hitl_relay_mcp_lean_calls')) - before).toBe(sdk ? 0 : 2);
      await client.close();
    },
  );
});

describe('a relay that stops while a call without Tasks waits', () => {
  const temp = tempDirs();
  it.each([
    ['lean', false],
    ['SDK', true],
  ])('%s path: the stream ends without a result and the ask stays open', async (_p, sdk) => {
    const dataDir = temp.make('mcp-lean-stop-');
    const first = await startRelay({ adapters: [createWebAdapter()], dataDir });
    const args = { prompt: 'Fine?', target: 'web:lean-stop' };
    const res = await post(first, 'ask_confirm', args, { sdk, tasks: false, progressToken: 1 });
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let text = '';
    while (!text.includes('posted to web:lean-stop')) text += (await reader.read()).value ?? '';
    const askId = /\(ask ([^)]+)\)/.exec(text)![1]!;
    expect(await gauge(first, 'hitl_relay_mcp_lean_calls')).toBe(sdk ? 0 : 1);
    await first.stop();
    for (let r = await reader.read(); !r.done; r = await reader.read()) text += r.value;
    expect(text).not.toContain('"result"');
    const second = await startRelay({ adapters: [createWebAdapter()], dataDir });
    try {
      const ask = await (await fetch(`${second.url}/v1/asks/${askId}`)).json();
      expect(ask.status).toBe('pending');
    } finally {
      await second.stop();
    }
  });
});
