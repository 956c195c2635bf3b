/**
 * Task status pushes (Tasks extension, 2026-07-28): a `subscriptions/listen` naming `taskIds` (the
 * filter built with the official ext-tasks helper) gets an SSE stream: the acknowledgement naming
 * the tasks honoured, each task's state, a `notifications/tasks` when the person answers in the
 * web chat or the task is cancelled (each checked with ext-tasks' own schema), then the listen's
 * result. Bad listens get the extension's JSON-RPC errors; other listens stay the SDK's.
 */
import type { TaskId } from '@modelcontextprotocol/ext-tasks/core';
import {
  contributeTaskFilterV2,
  isTaskStatusNotificationV2,
  readAcceptedTaskIdsV2,
} from '@modelcontextprotocol/ext-tasks/core/v2';
import { createParser } from 'eventsource-parser';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { connectTasks } from '../helpers/mcp-tasks-client.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';

const REVISION = '2026-07-28';
const TASKS = 'io.modelcontextprotocol/tasks';
let relay: RelayHandle;
let tasks: Awaited<ReturnType<typeof connectTasks>>;

beforeAll(async () => {
  relay = await startRelay({ adapters: [createWebAdapter()] });
  tasks = await connectTasks(() => `${relay.url}/mcp`);
});
afterAll(async () => {
  await tasks?.close();
  await relay?.stop();
});

/** A listen request's body as a 2026-07-28 client frames it. */
function listenBody(id: string, taskIds: unknown, declare = true) {
  const filter = Array.isArray(taskIds)
    ? contributeTaskFilterV2({}, taskIds as string[]).notifications
    : { taskIds };
  return {
    jsonrpc: '2.0',
    id,
    method: 'subscriptions/listen',
    params: {
      notifications: filter,
      _meta: {
        'io.modelcontextprotocol/protocolVersion': REVISION,
        'io.modelcontextprotocol/clientInfo': { name: 'listener', version: '1.0.0' },
        'io.modelcontextprotocol/clientCapabilities': declare
          ? { extensions: { [TASKS]: {} } }
          : {},
      },
    },
  };
}

const post = (body: unknown) =>
  fetch(`${relay.url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': REVISION,
      'mcp-method': 'subscriptions/listen',
    },
    body: JSON.stringify(body),
  });

/** Opens a listen; `messages` fills as frames arrive, `ended` resolves when the stream closes. */
async function listen(id: string, taskIds: readonly string[]) {
  const res = await post(listenBody(id, taskIds));
  expect(res.headers.get('content-type')).toContain('text/event-stream');
  const messages: any[] = [];
  const parser = createParser({ onEvent: (e) => void messages.push(JSON.parse(e.data)) });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const ended = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return messages;
      parser.feed(decoder.decode(value, { stream: true }));
    }
  })();
  return { messages, ended };
}

async function newTask(room: string): Promise<TaskId> {
  const execution = await tasks.session.callTool('ask_approval', {
    prompt: `Deploy ${room}?`,
    target: `web:${room}`,
  });
  expect(execution.kind).toBe('task');
  return execution.handle!.taskId;
}

async function approveIn(room: string) {
  const card = await eventually(async () => {
    const list = (await (
      await fetch(`${relay.url}/web/api/rooms/${room}/messages`)
    ).json()) as any[];
    return list.find((m) => m.case);
  });
  const tap = await fetch(
    `${relay.url}/web/api/rooms/${room}/messages/${card.id}/actions/approve`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user: { id: 'ann', name: 'Ann' }, data: { decision: 'approve' } }),
    },
  );
  expect((await tap.json()).outcome).toBe('submitted');
}

it('TASK-LISTEN-1 acknowledges, tells each state and the answer, then ends with the listen result', async () => {
  const id = await newTask('listen-a');
  const s = await listen('listen-1', [id, 'no-such-task']);
  const working = await eventually(async () => s.messages.length >= 2 && s.messages);
  const [ack, first] = working;
  expect(ack.method).toBe('notifications/subscriptions/acknowledged');
  expect(readAcceptedTaskIdsV2(ack.params)).toEqual([id]);
  expect(ack.params._meta['io.modelcontextprotocol/subscriptionId']).toBe('listen-1');
  expect(isTaskStatusNotificationV2(first)).toBe(true);
  expect(first.params).toMatchObject({ taskId: id, status: 'working' });
  expect(first.params._meta['io.modelcontextprotocol/subscriptionId']).toBe('listen-1');

  await approveIn('listen-a');
  const all = await s.ended;
  const pushes = all.filter((m) => m.method === 'notifications/tasks');
  expect(pushes.every(isTaskStatusNotificationV2)).toBe(true);
  const done = pushes.at(-1);
  expect(done.params).toMatchObject({ taskId: id, status: 'completed' });
  expect(done.params.result.structuredContent).toMatchObject({
    ask_id: id,
    answer: { decision: 'approve' },
    answered_by: { name: 'Ann' },
  });
  // The state tasks/get gives is the one pushed.
  const got = await tasks.session.task(id).snapshot();
  expect(got.status).toBe('completed');
  const last = all.at(-1);
  expect(last).toMatchObject({
    jsonrpc: '2.0',
    id: 'listen-1',
    result: { resultType: 'complete' },
  });
});

it('TASK-LISTEN-2 a cancelled task is pushed as cancelled', async () => {
  const id = await newTask('listen-b');
  const s = await listen('listen-2', [id]);
  await eventually(async () => s.messages.length >= 2);
  await tasks.session.task(id).cancel();
  const all = await s.ended;
  const pushes = all.filter((m) => m.method === 'notifications/tasks');
  expect(pushes.at(-1).params).toMatchObject({ taskId: id, status: 'cancelled' });
});

it('TASK-LISTEN-3 refuses a listen without the extension or with bad taskIds, naming what to send', async () => {
  const undeclared = await (await post(listenBody('l3', ['x'], false))).json();
  expect(undeclared.error.code).toBe(-32021);
  expect(undeclared.error.data.requiredCapabilities.extensions).toHaveProperty(TASKS);
  for (const bad of [
    [],
    'x',
    [1],
    ['a'.repeat(201)],
    Array.from({ length: 101 }, (_, i) => `t${i}`),
  ]) {
    const answer = await (await post(listenBody('l3', bad))).json();
    expect(answer.error.code, JSON.stringify(bad).slice(0, 40)).toBe(-32602);
    expect(answer.error.message).toContain('notifications.taskIds');
  }
  // Only unknown ids: acknowledged with none, and the listen ends at once.
  const s = await listen('l3-none', ['no-such-task']);
  const all = await s.ended;
  expect(readAcceptedTaskIdsV2(all[0].params)).toEqual([]);
  expect(all.at(-1)).toMatchObject({ id: 'l3-none', result: { resultType: 'complete' } });
});
