/**
 * The Tasks extension on an upstream, end to end, for a downstream client that does not declare
 * it: an upstream written with the official SDK (McpServer on createMcpHandler, 2026-07-28) that
 * declares `io.modelcontextprotocol/tasks` and answers a tools/call declaring it with a task
 * (`working`); the task goes `input_required` (an elicitation), then, after `tasks/update`, `input_required` again
 * with the answered key still listed next to a new one, then `completed`. Its `tasks/update`
 * bodies are checked with the extension's own schema (`@modelcontextprotocol/ext-tasks`). A real
 * relay with it in `mcp_upstreams`; a person answers each question in the web chat; the official
 * SDK client downstream (both eras) gets the final result. Each key is asked once. A task that
 * suggests polling every minute says its changes with `notifications/tasks` on the stream of the
 * tasks/update that caused them: the gateway follows it without waiting the interval.
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { Client } from '@modelcontextprotocol/client';
import {
  CreateTaskResultV2Schema,
  GetTaskResultV2Schema,
  InputResponsesV2Schema,
} from '@modelcontextprotocol/ext-tasks/core/v2';
import { createMcpHandler, McpServer, type ServerContext } from '@modelcontextprotocol/server';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { TASKS_EXTENSION } from '../../src/mcp/tasks.ts';
import { connectMcp, type Era } from '../helpers/mcp-client.ts';
import { connectTasks } from '../helpers/mcp-tasks-client.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';

type Task = {
  taskId: string;
  env: string;
  step: 'start' | 'confirm' | 'region' | 'done' | 'failed';
  cancelled?: boolean;
  answers: Record<string, any>;
};
const tasks = new Map<string, Task>();
/** What the upstream received: the methods in order, and each tasks/update's params. */
const methods: string[] = [];
const updates: Array<Record<string, any>> = [];
/** The taskId of every tasks/cancel the upstream received. */
const cancelled: string[] = [];

const confirm = (env: string) => ({
  method: 'elicitation/create',
  params: {
    mode: 'form',
    message: `Deploy to ${env}?`,
    requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
  },
});
const region = {
  method: 'elicitation/create',
  params: {
    mode: 'form',
    message: 'Which region?',
    requestedSchema: {
      type: 'object',
      properties: { region: { type: 'string', enum: ['eu', 'us'] } },
    },
  },
};

/** The task as tasks/get shows it (DetailedTask). */
function shown(t: Task) {
  const at = new Date().toISOString();
  const base = {
    taskId: t.taskId,
    createdAt: at,
    lastUpdatedAt: at,
    ttlMs: null,
    // A notify-* task suggests a minute and says its changes with notifications/tasks instead.
    pollIntervalMs: t.env.startsWith('notify') ? 60_000 : 20,
  };
  if (t.step === 'start') t.step = t.env.startsWith('broken') ? 'failed' : 'confirm';
  if (t.step === 'failed')
    return {
      ...base,
      status: 'failed',
      error: { code: -32001, message: `cannot deploy ${t.env}` },
    };
  if (t.cancelled) return { ...base, status: 'cancelled' };
  if (t.step === 'confirm')
    return { ...base, status: 'input_required', inputRequests: { confirm: confirm(t.env) } };
  // The answered key is still listed: the gateway must not ask it again.
  if (t.step === 'region')
    return {
      ...base,
      status: 'input_required',
      inputRequests: { confirm: confirm(t.env), region },
    };
  const ok = t.answers.confirm?.action === 'accept';
  const text = ok ? `deployed ${t.env} to ${t.answers.region?.content?.region}` : 'not deployed';
  return {
    ...base,
    status: 'completed',
    result: { resultType: 'complete', content: [{ type: 'text', text }] },
  };
}

const declaresTasks = (ctx: ServerContext) => {
  const caps = (ctx.mcpReq.envelope as Record<string, any> | undefined)?.[
    'io.modelcontextprotocol/clientCapabilities'
  ];
  return !!caps?.extensions && TASKS_EXTENSION in caps.extensions;
};

function upstreamServer() {
  const server = new McpServer(
    { name: 'tasks-upstream', version: '1.0.0' },
    { capabilities: { tools: {}, extensions: { [TASKS_EXTENSION]: {} } } },
  );
  server.registerTool(
    'deploy',
    { inputSchema: z.object({ env: z.string() }), annotations: { readOnlyHint: true } },
    async ({ env }) => ({ content: [{ type: 'text', text: `no task for ${env}` }] }),
  );
  const low = server.server;
  const tools = (low as any)._getRequestHandler('tools/call');
  low.removeRequestHandler('tools/call');
  low.setRequestHandler('tools/call', (async (req: any, ctx: ServerContext) => {
    methods.push('tools/call');
    if (!declaresTasks(ctx)) return tools(req, ctx);
    const t: Task = {
      taskId: `task-${tasks.size + 1}`,
      env: req.params.arguments.env,
      step: 'start',
      answers: {},
    };
    tasks.set(t.taskId, t);
    // Created working (a CreateTaskResult carries no inputRequests); the first tasks/get asks.
    const at = new Date().toISOString();
    const created = { createdAt: at, lastUpdatedAt: at, ttlMs: null, pollIntervalMs: 20 };
    return { resultType: 'task', taskId: t.taskId, status: 'working', ...created };
  }) as never);
  const byId = z.looseObject({ taskId: z.string() });
  low.setRequestHandler('tasks/get', { params: byId }, async ({ taskId }) => {
    methods.push('tasks/get');
    return shown(tasks.get(taskId)!) as never;
  });
  // The SDK lifts a request's inputResponses into ctx.mcpReq (as for a 2026-07-28 retry).
  low.setRequestHandler('tasks/update', { params: byId }, async ({ taskId }, ctx) => {
    methods.push('tasks/update');
    const inputResponses = ctx.mcpReq.inputResponses;
    updates.push({ taskId, inputResponses });
    const t = tasks.get(taskId)!;
    const responses = InputResponsesV2Schema.parse(inputResponses) as Record<string, any>;
    Object.assign(t.answers, responses);
    if (t.step === 'confirm' && responses.confirm)
      t.step = responses.confirm.action === 'accept' ? 'region' : 'done';
    else if (t.step === 'region' && responses.region) t.step = 'done';
    // On the stream of this request, before its answer (the gateway reads it there).
    if (t.env.startsWith('notify'))
      await ctx.mcpReq.notify({ method: 'notifications/tasks', params: shown(t) } as never);
    return {} as never;
  });
  low.setRequestHandler('tasks/cancel', { params: byId }, async ({ taskId }) => {
    methods.push('tasks/cancel');
    const t = tasks.get(taskId);
    if (t) t.cancelled = true;
    cancelled.push(taskId);
    return {} as never;
  });
  return server;
}

let relay: RelayHandle;
let stopUpstream: () => Promise<void>;

beforeAll(async () => {
  const handler = createMcpHandler(() => upstreamServer());
  const http = serve({ fetch: (r) => handler.fetch(r), port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((resolve) => http.once('listening', () => resolve()));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  stopUpstream = async () => {
    await handler.close();
    await new Promise((r) => http.close(r));
  };
  relay = await startRelay({
    adapters: [createWebAdapter()],
    configFile: {
      mcp_upstreams: {
        tasky: { url, target: 'web:tasks', protocol: '2026-07-28', timeout_seconds: 30 },
      },
    },
  });
});
afterAll(async () => {
  await relay?.stop();
  await stopUpstream?.();
});

async function json(method: 'GET' | 'POST', path: string, body?: unknown) {
  const res = await request(`${relay.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.statusCode, text: await res.body.text() };
}
const messages = async () =>
  JSON.parse((await json('GET', '/web/api/rooms/tasks/messages')).text) as any[];
const seen = new Set<string>();
const newCard = () =>
  eventually(async () => {
    const m = (await messages()).find((x) => x.case && !x.final && !seen.has(x.case));
    if (m) seen.add(m.case);
    return m;
  });
const tap = async (m: any, action: string, data?: unknown) => {
  const r = await json('POST', `/web/api/rooms/tasks/messages/${m.id}/actions/${action}`, {
    user: { id: 'ann', name: 'Ann' },
    ...(data !== undefined ? { data } : {}),
  });
  expect(JSON.parse(r.text).outcome, r.text).toBe('submitted');
};

describe.each(['modern', 'legacy'] as Era[])('an upstream task (downstream %s)', (era) => {
  let client: Client;
  beforeAll(async () => {
    client = await connectMcp(`${relay.url}/mcp/gateway/tasky`, { era });
  });
  afterAll(async () => client?.close());

  it(`TASKS-UP-1 (${era}) input_required polled, each key asked once in the web chat, answered with tasks/update; the client gets the final result`, async () => {
    const from = { methods: methods.length, updates: updates.length };
    const env = `prod-${era}`;
    const call = client.callTool({ name: 'deploy', arguments: { env } });
    const first = await newCard();
    expect(JSON.stringify(first)).toContain(`Deploy to ${env}?`);
    await tap(first, 'confirm');
    const second = await newCard();
    expect(JSON.stringify(second)).toContain('Which region?');
    await tap(second, 'select', { selected: 'eu' });
    const result = await call;
    expect(result.content).toEqual([{ type: 'text', text: `deployed ${env} to eu` }]);
    expect(updates.slice(from.updates)).toEqual([
      {
        taskId: expect.any(String),
        inputResponses: { confirm: { action: 'accept', content: { ok: true } } },
      },
      {
        taskId: expect.any(String),
        inputResponses: { region: { action: 'accept', content: { region: 'eu' } } },
      },
    ]);
    const mine = methods.slice(from.methods);
    expect(mine[0]).toBe('tools/call');
    expect(mine.filter((m) => m === 'tools/call')).toHaveLength(1);
    expect(mine).toContain('tasks/get');
    // Every open question had a card; none was asked twice (the repeated key included).
    const cards = (await messages()).filter(
      (m) => m.case && [first.case, second.case].includes(m.case),
    );
    expect(new Set(cards.map((m) => m.case)).size).toBe(2);
    expect((await messages()).filter((m) => m.case && !seen.has(m.case))).toEqual([]);
  });

  it(`TASKS-UP-2 (${era}) Decline reaches the task as decline; the result is the task's`, async () => {
    const from = updates.length;
    const call = client.callTool({ name: 'deploy', arguments: { env: `qa-${era}` } });
    await tap(await newCard(), 'cancel');
    const result = await call;
    expect(result.content).toEqual([{ type: 'text', text: 'not deployed' }]);
    expect(updates.slice(from).map((u) => u.inputResponses)).toEqual([
      { confirm: { action: 'decline' } },
    ]);
  });

  it(`TASKS-UP-3 (${era}) the task failed: the client gets its error`, async () => {
    const call = client.callTool({ name: 'deploy', arguments: { env: `broken-${era}` } });
    await expect(call).rejects.toThrow(`cannot deploy broken-${era}`);
  });

  it(`TASKS-UP-4 (${era}) the client cancels while the task waits on a person: tasks/cancel reaches the upstream, the ask is withdrawn`, async () => {
    const env = `cancel-${era}`;
    const stop = new AbortController();
    const call = client.callTool(
      { name: 'deploy', arguments: { env } },
      { signal: stop.signal, timeout: 60_000 },
    );
    call.catch(() => undefined);
    const card = await newCard();
    expect(JSON.stringify(card)).toContain(`Deploy to ${env}?`);
    const task = [...tasks.values()].find((t) => t.env === env)!;
    stop.abort('the agent gave up');
    await expect(call).rejects.toThrow();
    // The upstream's record of the tasks/cancel (before the fix it was sent with the call's
    // aborted signal, so it never left the gateway).
    await eventually(async () => cancelled.includes(task.taskId), 30_000, 'tasks/cancel upstream');
    const ended = await relay.until(card.case, (c) => c.status === 'cancelled', 30_000);
    expect(ended.reason).toContain('no longer needed');
    await eventually(
      async () => (await messages()).find((m) => m.case === card.case && m.final),
      30_000,
      'the withdrawn card',
    );
  });
});

describe('a downstream client that declares Tasks', () => {
  let t: Awaited<ReturnType<typeof connectTasks>>;
  beforeAll(async () => {
    t = await connectTasks(() => `${relay.url}/mcp/gateway/tasky`, 'gateway');
  });
  afterAll(async () => t?.close());

  it("TASKS-DOWN-1 gets the gateway's task; it stays working while a person answers in chat, then completes with the upstream's result", async () => {
    const env = 'staging-tasks';
    const execution = await t.session.callTool('deploy', { env });
    expect(execution.kind).toBe('task');
    const created = t.seen.filter((m) => m.method === 'tools/call').at(-1)!.result;
    expect(CreateTaskResultV2Schema.safeParse(created).error).toBeUndefined();
    expect(created.status).toBe('working');
    const upstreamTask = [...tasks.values()].find((x) => x.env === env)!;
    // The gateway's own id, mapped to the upstream's (never the upstream's own).
    expect(created.taskId).not.toBe(upstreamTask.taskId);
    const first = await newCard();
    expect(JSON.stringify(first)).toContain(`Deploy to ${env}?`);
    // The upstream waits on input: the client sees working (the gateway asks in chat).
    const waiting = await t.session.task(execution.handle!.taskId).snapshot();
    expect(waiting.status).toBe('working');
    await tap(first, 'confirm');
    await tap(await newCard(), 'select', { selected: 'us' });
    const { outcome } = await execution.settle();
    expect(outcome.status, JSON.stringify(outcome)).toBe('completed');
    expect((outcome as { result: any }).result.content).toEqual([
      { type: 'text', text: `deployed ${env} to us` },
    ]);
    for (const m of t.seen.filter((x) => x.method === 'tasks/get'))
      expect(GetTaskResultV2Schema.safeParse(m.result).error).toBeUndefined();
  });

  it("TASKS-DOWN-2 tasks/cancel of the gateway's task: tasks/cancel reaches the upstream task, its ask is withdrawn", async () => {
    const env = 'cancel-tasks';
    const execution = await t.session.callTool('deploy', { env });
    expect(execution.kind).toBe('task');
    const card = await newCard();
    expect(JSON.stringify(card)).toContain(`Deploy to ${env}?`);
    const upstreamTask = [...tasks.values()].find((x) => x.env === env)!;
    await execution.cancel();
    await eventually(async () => cancelled.includes(upstreamTask.taskId), 30_000, 'tasks/cancel');
    const ended = await relay.until(card.case, (c) => c.status === 'cancelled', 30_000);
    expect(ended.reason).toContain('no longer needed');
    const view = await t.session.task(execution.handle!.taskId).snapshot();
    expect(view.status).toBe('cancelled');
  });
});

it('TASKS-NOTIFY-2 notifications/tasks on a tasks/update stream of an HTTP upstream: the next question and the result without waiting the poll interval', {
  timeout: 25_000,
}, async () => {
  const client = await connectMcp(`${relay.url}/mcp/gateway/tasky`);
  try {
    const env = 'notify-http';
    const call = client.callTool({ name: 'deploy', arguments: { env } });
    // Created with a 20 ms hint, then a minute (the gateway waits at most 30 s): the second
    // question and the result come within the test's 25 s only because the notifications woke it.
    await tap(await newCard(), 'confirm');
    const second = await newCard();
    expect(JSON.stringify(second)).toContain('Which region?');
    await tap(second, 'select', { selected: 'us' });
    expect((await call).content).toEqual([{ type: 'text', text: `deployed ${env} to us` }]);
  } finally {
    await client.close();
  }
});
