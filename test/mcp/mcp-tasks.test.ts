/**
 * The Tasks extension (io.modelcontextprotocol/tasks) with the official Tasks requester on the
 * official SDK client, against a real relay and its web chat: a declaring client's ask_* call is a
 * task at once, tasks/get follows the ask and ends with the typed tool result; tasks/cancel
 * withdraws the ask and edits its card; a client that does not declare the extension gets the
 * spec's errors; and a relay restarted on the same store while the task is open still serves it
 * (answered after the restart, the task completes).
 */
import type { TaskId } from '@modelcontextprotocol/ext-tasks/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { connectMcp, outputValidators } from '../helpers/mcp-client.ts';
import { connectTasks } from '../helpers/mcp-tasks-client.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';
import { tempDirs } from '../helpers/temp.ts';

const temp = tempDirs();

let relay: RelayHandle;

beforeAll(async () => {
  relay = await startRelay({ adapters: [createWebAdapter()] });
});
afterAll(async () => {
  await relay?.stop();
});

async function json(on: RelayHandle, method: 'GET' | 'POST', path: string, body?: unknown) {
  const res = await fetch(`${on.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return text ? JSON.parse(text) : null;
}

/** The cards in `room` (web chat). */
const cards = async (on: RelayHandle, room: string) =>
  ((await json(on, 'GET', `/web/api/rooms/${room}/messages`)) as any[]).filter((m) => m.case);

/** The person taps `action` on the one card in `room`. */
async function answer(on: RelayHandle, room: string, action: string, data: unknown) {
  const [card] = await eventually(async () => {
    const list = await cards(on, room);
    return list.length > 0 && list;
  });
  const tap = await json(
    on,
    'POST',
    `/web/api/rooms/${room}/messages/${card.id}/actions/${action}`,
    {
      user: { id: 'ann', name: 'Ann' },
      data,
    },
  );
  expect(tap.outcome, JSON.stringify(tap)).toBe('submitted');
}

describe('a client that declares the Tasks extension', () => {
  it('gets a task at once; tasks/get follows the ask and ends with the typed result', async () => {
    const t = await connectTasks(() => `${relay.url}/mcp`);
    const { check } = await outputValidators(t.client);
    const execution = await t.session.callTool('ask_approval', {
      prompt: 'Deploy to production?',
      target: 'web:tasks-done',
    });
    expect(execution.kind).toBe('task');
    const created = t.seen.find((m) => m.method === 'tools/call')!.result;
    expect(created).toMatchObject({ resultType: 'task', status: 'working' });
    expect(created.statusMessage).toContain('web:tasks-done');
    expect(created.pollIntervalMs).toBeGreaterThanOrEqual(1000);
    // The task is the ask: the same id on the HTTP API.
    const ask = await json(relay, 'GET', `/v1/asks/${execution.handle!.taskId}`);
    expect(ask).toMatchObject({ kind: 'approval.binary', status: 'pending' });
    const working = await t.session.task(execution.handle!.taskId).snapshot();
    expect(working.status).toBe('working');

    await answer(relay, 'tasks-done', 'approve', { decision: 'approve' });
    const { outcome } = await execution.settle();
    expect(
      outcome.status,
      JSON.stringify([outcome, (outcome as any).error?.message, t.seen.at(-1)]),
    ).toBe('completed');
    const result = (outcome as { result: any }).result;
    expect(check('ask_approval', result.structuredContent)).toBeNull();
    expect(result.structuredContent).toMatchObject({
      ask_id: execution.handle!.taskId,
      status: 'completed',
      answer: { decision: 'approve' },
      answered_by: { name: 'Ann' },
    });
    const last = t.seen.filter((m) => m.method === 'tasks/get').at(-1)!.result;
    expect(last).toMatchObject({ resultType: 'complete', status: 'completed' });
    await t.close();
  });

  it('tasks/cancel withdraws the ask and its card says so', async () => {
    const t = await connectTasks(() => `${relay.url}/mcp`);
    const execution = await t.session.callTool('ask_confirm', {
      prompt: 'Is the window 18:00?',
      target: 'web:tasks-cancel',
    });
    const id = execution.handle!.taskId;
    await eventually(async () => (await cards(relay, 'tasks-cancel')).length === 1);
    await execution.cancel();
    await eventually(
      async () => (await json(relay, 'GET', `/v1/asks/${id}`)).status === 'cancelled',
      10_000,
      'the ask withdrawn',
    );
    await eventually(
      async () =>
        JSON.stringify(await cards(relay, 'tasks-cancel')).includes(
          'the agent cancelled the request',
        ),
      10_000,
      'the card edited',
    );
    const view = await t.session.task(id).snapshot();
    expect(view.status).toBe('cancelled');
    await t.close();
  });

  it('an unknown task id is -32602; a client without the extension gets -32021', async () => {
    const t = await connectTasks(() => `${relay.url}/mcp`);
    await expect(t.session.task('hc_nope' as TaskId).snapshot()).rejects.toMatchObject({
      code: -32602,
    });
    await t.close();
    // The plain SDK client (no extension declared) calling tasks/get directly.
    const plain = await connectMcp(`${relay.url}/mcp`);
    const { z } = await import('zod');
    await expect(
      plain.request({ method: 'tasks/get', params: { taskId: 'hc_nope' } } as never, z.any()),
    ).rejects.toMatchObject({ code: -32021 });
    await plain.close();
  });
});

it('a relay restarted on the same store while a task is open: the task completes after it', async () => {
  const dataDir = temp.make('mcp-task-restart-');
  let first: RelayHandle | undefined = await startRelay({
    adapters: [createWebAdapter()],
    dataDir,
  });
  let url = `${first.url}/mcp`;
  const t = await connectTasks(() => url);
  const execution = await t.session.callTool('ask_free_text', {
    prompt: 'Which region?',
    input: { label: 'Region' },
    target: 'web:tasks-restart',
  });
  expect(execution.kind, JSON.stringify(t.seen)).toBe('task');
  if (execution.kind !== 'task') return;
  const reference = execution.serializeReference();
  await eventually(async () => (await cards(first!, 'tasks-restart')).length === 1);
  // Handed off, not closed: ext-tasks cancels the unsettled tasks of a session that closes.
  await execution.detach();
  await execution.result().catch(() => undefined);
  await t.close();
  await first.stop();
  first = undefined;

  // The same address, as a restarted relay has (its asks' poll URLs name it).
  const port = new URL(url).port;
  const second = await startRelay({ adapters: [createWebAdapter()], dataDir, env: { PORT: port } });
  try {
    url = `${second.url}/mcp`;
    const again = await connectTasks(() => url);
    const resumed = await again.session.resumeTask(reference);
    expect((await again.session.task(reference.taskId).snapshot()).status).toBe('working');
    await answer(second, 'tasks-restart', 'submit', { value: 'eu-west' });
    const { outcome } = await resumed.settle();
    expect(outcome.status).toBe('completed');
    expect((outcome as { result: any }).result.structuredContent).toMatchObject({
      ask_id: reference.taskId,
      answer: { value: 'eu-west' },
    });
    await again.close();
  } finally {
    await second.stop();
  }
});
