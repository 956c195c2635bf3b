/**
 * The Tasks extension on a stdio upstream, end to end: the relay spawns an official-SDK server
 * (fixtures/stdio-tasks-upstream.ts: McpServer under serveStdio, 2026-07-28, declaring
 * `io.modelcontextprotocol/tasks`), and the gateway follows its tasks over the child's stdin and
 * stdout beside the SDK client's own requests, exactly as over HTTP (upstream-tasks.test.ts):
 * tasks/get polling, each input_required key asked once in the web chat, the answers sent with
 * tasks/update (their bodies checked with ext-tasks' schema in the child), completed, failed and
 * cancelled; a downstream cancel reaching the child as tasks/cancel with the ask withdrawn; the
 * official ext-tasks requester downstream getting the gateway's own task; and a task that says
 * its changes with `notifications/tasks` (its poll interval a minute) followed without waiting it.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { connectMcp, type Era } from '../helpers/mcp-client.ts';
import { connectTasks } from '../helpers/mcp-tasks-client.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';

const dir = mkdtempSync(join(tmpdir(), 'hitl-gw-stdio-tasks-'));
const RECORD = join(dir, 'record.jsonl');
const CHILD = resolve('test/mcp-gateway/fixtures/stdio-tasks-upstream.ts');
let relay: RelayHandle;

/** What the child received, in order. */
const received = (): Array<Record<string, any>> =>
  readFileSync(RECORD, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
const taskOf = async (env: string) =>
  eventually(async () => {
    const r = received();
    const at = r.findIndex((x) => x.method === 'tools/call' && x.env === env);
    return at < 0 ? undefined : r.slice(at + 1).find((x) => x.method === 'tasks/get')?.taskId;
  });

beforeAll(async () => {
  writeFileSync(RECORD, '');
  relay = await startRelay({
    adapters: [createWebAdapter()],
    configFile: {
      mcp_upstreams: {
        tasky: {
          command: process.execPath,
          args: ['--import', 'tsx', CHILD],
          env: { TASKS_RECORD: RECORD },
          target: 'web:stdio-tasks',
          protocol: '2026-07-28',
          timeout_seconds: 30,
        },
      },
    },
  });
});
afterAll(async () => {
  await relay?.stop();
  rmSync(dir, { recursive: true, force: true });
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
  JSON.parse((await json('GET', '/web/api/rooms/stdio-tasks/messages')).text) as any[];
const seen = new Set<string>();
const newCard = () =>
  eventually(async () => {
    const m = (await messages()).find((x) => x.case && !x.final && !seen.has(x.case));
    if (m) seen.add(m.case);
    return m;
  });
const tap = async (m: any, action: string, data?: unknown) => {
  const r = await json('POST', `/web/api/rooms/stdio-tasks/messages/${m.id}/actions/${action}`, {
    user: { id: 'ann', name: 'Ann' },
    ...(data !== undefined ? { data } : {}),
  });
  expect(JSON.parse(r.text).outcome, r.text).toBe('submitted');
};

describe.each(['modern', 'legacy'] as Era[])('a stdio upstream task (downstream %s)', (era) => {
  let client: Client;
  beforeAll(async () => {
    client = await connectMcp(`${relay.url}/mcp/gateway/tasky`, { era });
  });
  afterAll(async () => client?.close());

  it(`TASKS-STDIO-1 (${era}) input_required polled over stdio, each key asked once, answered with tasks/update; the client gets the final result`, async () => {
    const from = received().length;
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
    const mine = received().slice(from);
    expect(mine.filter((m) => m.method === 'tasks/update').map((m) => m.inputResponses)).toEqual([
      { confirm: { action: 'accept', content: { ok: true } } },
      { region: { action: 'accept', content: { region: 'eu' } } },
    ]);
    expect(mine[0]?.method).toBe('tools/call');
    expect(mine.filter((m) => m.method === 'tools/call')).toHaveLength(1);
    expect(mine.some((m) => m.method === 'tasks/get')).toBe(true);
    // Every open question had a card; none was asked twice (the repeated key included).
    expect((await messages()).filter((m) => m.case && !seen.has(m.case))).toEqual([]);
  });

  it(`TASKS-STDIO-2 (${era}) Decline reaches the task; a failed task's error reaches the client`, async () => {
    const from = received().length;
    const call = client.callTool({ name: 'deploy', arguments: { env: `qa-${era}` } });
    await tap(await newCard(), 'cancel');
    expect((await call).content).toEqual([{ type: 'text', text: 'not deployed' }]);
    const updates = received()
      .slice(from)
      .filter((m) => m.method === 'tasks/update');
    expect(updates.map((u) => u.inputResponses)).toEqual([{ confirm: { action: 'decline' } }]);
    const broken = client.callTool({ name: 'deploy', arguments: { env: `broken-${era}` } });
    await expect(broken).rejects.toThrow(`cannot deploy broken-${era}`);
  });

  it(`TASKS-STDIO-3 (${era}) the client cancels while the task waits on a person: tasks/cancel reaches the child, the ask is withdrawn`, async () => {
    const env = `cancel-${era}`;
    const stop = new AbortController();
    const call = client.callTool(
      { name: 'deploy', arguments: { env } },
      { signal: stop.signal, timeout: 60_000 },
    );
    call.catch(() => undefined);
    const card = await newCard();
    expect(JSON.stringify(card)).toContain(`Deploy to ${env}?`);
    const taskId = await taskOf(env);
    stop.abort('the agent gave up');
    await expect(call).rejects.toThrow();
    await eventually(
      async () => received().some((m) => m.method === 'tasks/cancel' && m.taskId === taskId),
      30_000,
      'tasks/cancel in the child',
    );
    const ended = await relay.until(card.case, (c) => c.status === 'cancelled', 30_000);
    expect(ended.reason).toContain('no longer needed');
  });
});

describe('a downstream client that declares Tasks, on a stdio upstream', () => {
  let t: Awaited<ReturnType<typeof connectTasks>>;
  beforeAll(async () => {
    t = await connectTasks(() => `${relay.url}/mcp/gateway/tasky`, 'gateway');
  });
  afterAll(async () => t?.close());

  it("TASKS-STDIO-4 gets the gateway's task, working while a person answers, then the child's result; tasks/cancel reaches the child", async () => {
    const env = 'staging-stdio';
    const execution = await t.session.callTool('deploy', { env });
    expect(execution.kind).toBe('task');
    const first = await newCard();
    expect(JSON.stringify(first)).toContain(`Deploy to ${env}?`);
    const waiting = await t.session.task(execution.handle!.taskId).snapshot();
    expect(waiting.status).toBe('working');
    await tap(first, 'confirm');
    await tap(await newCard(), 'select', { selected: 'us' });
    const { outcome } = await execution.settle();
    expect(outcome.status, JSON.stringify(outcome)).toBe('completed');
    expect((outcome as { result: any }).result.content).toEqual([
      { type: 'text', text: `deployed ${env} to us` },
    ]);

    const gone = await t.session.callTool('deploy', { env: 'cancel-stdio-task' });
    const card = await newCard();
    const taskId = await taskOf('cancel-stdio-task');
    await gone.cancel();
    await eventually(
      async () => received().some((m) => m.method === 'tasks/cancel' && m.taskId === taskId),
      30_000,
      'tasks/cancel in the child',
    );
    await relay.until(card.case, (c) => c.status === 'cancelled', 30_000);
    expect((await t.session.task(gone.handle!.taskId).snapshot()).status).toBe('cancelled');
  });
});

it('TASKS-NOTIFY-1 notifications/tasks from a stdio upstream wake the follow: asked and completed long before the poll interval', {
  timeout: 25_000,
}, async () => {
  const client = await connectMcp(`${relay.url}/mcp/gateway/tasky`);
  try {
    const env = 'notify-stdio';
    const from = received().length;
    const call = client.callTool({ name: 'deploy', arguments: { env } });
    // The task suggests polling every minute (the gateway waits at most 30 s): the card, both
    // questions and the result come within the test's 25 s only because the notifications woke it.
    const first = await newCard();
    expect(JSON.stringify(first)).toContain(`Deploy to ${env}?`);
    await tap(first, 'confirm');
    await tap(await newCard(), 'select', { selected: 'eu' });
    expect((await call).content).toEqual([{ type: 'text', text: `deployed ${env} to eu` }]);
    const mine = received().slice(from);
    expect(mine.filter((m) => m.method === 'notifications/tasks').map((m) => m.status)).toEqual([
      'input_required',
      'input_required',
      'completed',
    ]);
  } finally {
    await client.close();
  }
});
