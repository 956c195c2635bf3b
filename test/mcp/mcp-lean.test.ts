/**
 * The lean path of /mcp (src/mcp/lean-call.ts) answers what the SDK path answers. Each call is
 * sent twice on the wire, once as the lean path takes it and once with a client capability it
 * leaves to the SDK (`roots: {}`, which changes nothing for an ask tool): a Tasks client's task,
 * a refused target, arguments the schema refuses (the lean path hands those to the SDK, which
 * words the error), and the intake rate limit's refusal. The relay's gauge
 * hitl_relay_mcp_lean_calls says which path served each call.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { type RelayHandle, startRelay } from '../helpers/relay-env.ts';

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
/** One tools/call as a Tasks client sends it; `sdk` adds a capability the lean path leaves alone. */
async function call(on: RelayHandle, name: string, args: unknown, sdk: boolean) {
  const caps = {
    extensions: { 'io.modelcontextprotocol/tasks': {} },
    ...(sdk ? { roots: {} } : {}),
  };
  const before = await gauge(on, 'hitl_relay_mcp_lean_calls');
  const res = await fetch(`${on.url}/mcp`, {
    method: 'POST',
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
        },
      },
    }),
  });
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
