/**
 * The MCP server on two relays sharing one PostgreSQL (each its own DATA_DIR): a tool call held
 * open on replica A is answered through replica B's web chat and ends at A with the typed answer
 * (A hears of it through the database's change feed); a task created at A is read, answered and
 * completed at B; a 2025-era call at B is answered the same way. The HTTP server keeps no session,
 * so no request needs the replica that served the one before.
 */
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { openPostgresStore } from '../../src/store/postgres-store.ts';
import { connectMcp, progressLines } from '../helpers/mcp-client.ts';
import { connectTasks } from '../helpers/mcp-tasks-client.ts';
import { freshSchemaUrl } from '../helpers/postgres.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';

let url: string;
let a: RelayHandle;
let b: RelayHandle;

async function replica(): Promise<RelayHandle> {
  const relay = await startRelay({
    adapters: [createWebAdapter()],
    store: await openPostgresStore(url),
    env: { DATABASE_URL: url },
  });
  await eventually(
    async () => ((await (await request(`${relay.url}/readyz`)).body.json()) as any).ready,
    10_000,
    'the replica ready',
  );
  return relay;
}

beforeAll(async () => {
  url = await freshSchemaUrl();
  [a, b] = [await replica(), await replica()];
}, 30_000);
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
});

async function json(on: RelayHandle, method: 'GET' | 'POST', path: string, body?: unknown) {
  const res = await request(`${on.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return res.body.json() as Promise<any>;
}

/** The person answers the card in `room` through `on`'s web chat. */
async function answerAt(on: RelayHandle, room: string, action: string, data: unknown) {
  const card = await eventually(async () => {
    const list = (await json(on, 'GET', `/web/api/rooms/${room}/messages`)) as any[];
    return list.find((m) => m.case && !m.final);
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
  return card;
}

it('a call waiting on replica A is answered in replica B’s web chat and ends at A', async () => {
  for (const era of ['modern', 'legacy'] as const) {
    const room = `replicas-${era}`;
    const client = await connectMcp(`${a.url}/mcp`, { era });
    const progress = progressLines();
    const call = client.callTool(
      { name: 'ask_approval', arguments: { prompt: `Ship it (${era})?`, target: `web:${room}` } },
      progress,
    );
    const card = await answerAt(b, room, 'approve', { decision: 'approve' });
    const result = await call;
    expect(result.structuredContent, era).toMatchObject({
      ask_id: card.case,
      status: 'completed',
      answer: { decision: 'approve' },
      answered_by: { name: 'Ann' },
    });
    expect(progress.askId()).toBe(card.case);
    await client.close();
  }
});

it('a task created at replica A is read, answered and completed at replica B', async () => {
  const atA = await connectTasks(() => `${a.url}/mcp`, 'replica-a');
  const execution = await atA.session.callTool('ask_choose_one', {
    prompt: 'Which region?',
    options: [
      { key: 'eu', label: 'Europe' },
      { key: 'us', label: 'Americas' },
    ],
    target: 'web:replicas-task',
  });
  expect(execution.kind).toBe('task');
  const taskId = execution.handle!.taskId;
  // Handed off, not closed: ext-tasks cancels the unsettled tasks of a session that closes.
  await execution.detach();
  await execution.result().catch(() => undefined);
  await atA.close();

  const atB = await connectTasks(() => `${b.url}/mcp`, 'replica-b');
  expect((await atB.session.task(taskId).snapshot()).status).toBe('working');
  await answerAt(b, 'replicas-task', 'select', { selected: 'eu' });
  const outcome = await atB.session.task(taskId).result();
  expect(outcome.status).toBe('completed');
  expect((outcome as { result: any }).result.structuredContent).toMatchObject({
    ask_id: taskId,
    answer: { selected: 'eu' },
  });
  await atB.close();
});
