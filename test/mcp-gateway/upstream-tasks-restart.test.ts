/**
 * An upstream task waiting on a person survives a relay restart (issue 33). The upstream is an
 * official-SDK Tasks server (McpServer on createMcpHandler, 2026-07-28, `io.modelcontextprotocol/
 * tasks`, as in upstream-tasks.test.ts) that outlives the relay; downstream, the official Tasks
 * requester (ext-tasks on the SDK client) holds the gateway's task. The relay stops while two
 * tasks are `input_required`; one of them moves on upstream meanwhile. The next relay process on
 * the same SQLite store resumes: the first task's ask stays open, a person answers it in the web
 * chat, the upstream receives tasks/update once with the answer, and the downstream client's
 * tasks/get completes with the upstream's result; the other ask is withdrawn, the reason in its
 * history. Nothing is asked twice and no tasks/cancel reaches the upstream.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InputResponsesV2Schema } from '@modelcontextprotocol/ext-tasks/core/v2';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { ALIVE_TTL_MS } from '../../src/cases/posting-lease.ts';
import { TASKS_EXTENSION } from '../../src/mcp/tasks.ts';
import { connectTasks } from '../helpers/mcp-tasks-client.ts';
import { serveMcpHandler } from '../helpers/mcp-upstream.ts';
import { freePort, spawnRelay } from '../helpers/process.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';
import { webRoom } from '../helpers/web-room.ts';

type Step = 'asking' | 'moved' | 'done';
const tasks = new Map<string, { env: string; step: Step; answer?: any }>();
const updates: Array<{ taskId: string; inputResponses: unknown }> = [];
const cancels: string[] = [];
/** The tasks/get of a task (by env) waits for `open`; `reached` says one arrived. */
const held = new Map<string, { open: Promise<void>; reached: () => void }>();

function shown(taskId: string) {
  const t = tasks.get(taskId)!;
  const at = new Date().toISOString();
  const base = { taskId, createdAt: at, lastUpdatedAt: at, ttlMs: null, pollIntervalMs: 20 };
  if (t.step === 'moved') return { ...base, status: 'working' };
  if (t.step === 'asking')
    return {
      ...base,
      status: 'input_required',
      inputRequests: {
        confirm: {
          method: 'elicitation/create',
          params: {
            mode: 'form',
            message: `Restart-safe deploy of ${t.env}?`,
            requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } } },
          },
        },
      },
    };
  const text = t.answer?.action === 'accept' ? `deployed ${t.env}` : 'not deployed';
  return {
    ...base,
    status: 'completed',
    result: { resultType: 'complete', content: [{ type: 'text', text }] },
  };
}

function upstreamServer() {
  const server = new McpServer(
    { name: 'tasks-upstream', version: '1.0.0' },
    { capabilities: { tools: {}, extensions: { [TASKS_EXTENSION]: {} } } },
  );
  server.registerTool(
    'deploy',
    { inputSchema: z.object({ env: z.string() }), annotations: { readOnlyHint: true } },
    async () => ({ content: [] }),
  );
  const low = server.server;
  low.removeRequestHandler('tools/call');
  low.setRequestHandler('tools/call', (async (req: any) => {
    const taskId = `rtask-${tasks.size + 1}`;
    tasks.set(taskId, { env: req.params.arguments.env, step: 'asking' });
    const at = new Date().toISOString();
    const created = { createdAt: at, lastUpdatedAt: at, ttlMs: null, pollIntervalMs: 20 };
    return { resultType: 'task', taskId, status: 'working', ...created };
  }) as never);
  const byId = z.looseObject({ taskId: z.string() });
  low.setRequestHandler('tasks/get', { params: byId }, async ({ taskId }) => {
    const gate = held.get(tasks.get(taskId)!.env);
    if (gate) {
      gate.reached();
      await gate.open;
    }
    return shown(taskId) as never;
  });
  low.setRequestHandler('tasks/update', { params: byId }, async ({ taskId }, ctx) => {
    const inputResponses = ctx.mcpReq.inputResponses;
    updates.push({ taskId, inputResponses });
    const responses = InputResponsesV2Schema.parse(inputResponses) as Record<string, any>;
    const t = tasks.get(taskId)!;
    if (t.step === 'asking' && responses.confirm)
      Object.assign(t, { step: 'done', answer: responses.confirm });
    return {} as never;
  });
  low.setRequestHandler('tasks/cancel', { params: byId }, async ({ taskId }) => {
    cancels.push(taskId);
    return {} as never;
  });
  return server;
}

const dataDir = mkdtempSync(join(tmpdir(), 'hitl-gw-task-restart-'));
let upstreamUrl = '';
let stopUpstream: () => Promise<void>;

beforeAll(async () => {
  const served = await serveMcpHandler(createMcpHandler(() => upstreamServer()));
  upstreamUrl = served.url;
  stopUpstream = served.close;
});
afterAll(async () => {
  await stopUpstream?.();
  rmSync(dataDir, { recursive: true, force: true });
});

const start = (o: { port?: string; now?: () => number } = {}) =>
  startRelay({
    adapters: [createWebAdapter()],
    dataDir,
    ...(o.now && { now: o.now }),
    ...(o.port && { env: { PORT: o.port } }),
    configFile: {
      mcp_upstreams: {
        tasky: {
          url: upstreamUrl,
          target: 'web:resume',
          protocol: '2026-07-28',
          timeout_seconds: 600,
        },
      },
    },
  });

const messages = async (relay: RelayHandle) =>
  (await (await request(`${relay.url}/web/api/rooms/resume/messages`)).body.json()) as any[];
const cardFor = (relay: RelayHandle, env: string) =>
  eventually(async () =>
    (await messages(relay)).find((m) => m.case && !m.final && JSON.stringify(m).includes(env)),
  );

it('TASKS-RESTART-1 a task waiting on a person survives a restart: answered after it, tasks/update once, the client gets the result', async () => {
  let relay = await start();
  const t = await connectTasks(() => `${relay.url}/mcp/gateway/tasky`, 'gateway');
  try {
    const kept = await t.session.callTool('deploy', { env: 'kept' });
    const moved = await t.session.callTool('deploy', { env: 'moved' });
    expect([kept.kind, moved.kind]).toEqual(['task', 'task']);
    const keptCard = await cardFor(relay, 'kept');
    const movedCard = await cardFor(relay, 'moved');
    const port = new URL(relay.url).port;
    await relay.stop();
    // Upstream, one task moves on while no relay runs.
    const movedTask = [...tasks].find(([, x]) => x.env === 'moved')![0];
    tasks.get(movedTask)!.step = 'moved';
    // The stopped process's alive key lapses ALIVE_TTL_MS after its last beat: a clock past that.
    relay = await start({ port, now: () => Date.now() + ALIVE_TTL_MS + 5000 });

    const withdrawn = await relay.until(movedCard.case, (c) => c.status === 'cancelled', 30_000);
    expect(withdrawn.reason).toContain("the MCP server's task no longer asks this");
    const open = await relay.get(keptCard.case);
    expect(open.status).not.toBe('cancelled');
    // Ann answers the card the first process posted, in the web chat of the second.
    await webRoom(() => relay.url, 'resume').tap(keptCard);
    const { outcome } = await kept.settle();
    expect(outcome.status, JSON.stringify(outcome)).toBe('completed');
    expect((outcome as { result: any }).result.content).toEqual([
      { type: 'text', text: 'deployed kept' },
    ]);
    const keptTask = [...tasks].find(([, x]) => x.env === 'kept')![0];
    expect(updates.filter((u) => u.taskId === keptTask)).toEqual([
      {
        taskId: keptTask,
        inputResponses: { confirm: { action: 'accept', content: { ok: true } } },
      },
    ]);
    expect(updates.filter((u) => u.taskId === movedTask)).toEqual([]);
    expect(cancels).toEqual([]);
    // Nothing was asked twice: the two cards of the first process are all there are.
    const cases = new Set((await messages(relay)).filter((m) => m.case).map((m) => m.case));
    expect(cases).toEqual(new Set([keptCard.case, movedCard.case]));
    const history = await relay.relay.services.store.listHistory(movedCard.case);
    expect(JSON.stringify(history)).toContain('no longer asks this');
  } finally {
    await t.close();
    await relay.stop();
  }
});

it('TASKS-RESTART-2 a person answers while the next process is still reading the task again: the answer is not lost, it reaches the upstream once', async () => {
  let relay = await start();
  const t = await connectTasks(() => `${relay.url}/mcp/gateway/tasky`, 'gateway');
  try {
    const early = await t.session.callTool('deploy', { env: 'early' });
    const card = await cardFor(relay, 'early');
    const port = new URL(relay.url).port;
    await relay.stop();
    // The next process's first tasks/get of the task waits until Ann has answered.
    let release = () => {};
    let reached = () => {};
    const arrived = new Promise<void>((r) => {
      reached = r;
    });
    const open = new Promise<void>((r) => {
      release = r;
    });
    held.set('early', { open, reached });
    relay = await start({ port, now: () => Date.now() + ALIVE_TTL_MS + 5000 });
    await arrived;
    await webRoom(() => relay.url, 'resume').tap(card);
    await relay.until(card.case, (c) => c.status === 'completed');
    held.delete('early');
    release();
    const { outcome } = await early.settle();
    expect(outcome.status, JSON.stringify(outcome)).toBe('completed');
    expect((outcome as { result: any }).result.content).toEqual([
      { type: 'text', text: 'deployed early' },
    ]);
    const task = [...tasks].find(([, x]) => x.env === 'early')![0];
    expect(updates.filter((u) => u.taskId === task)).toEqual([
      { taskId: task, inputResponses: { confirm: { action: 'accept', content: { ok: true } } } },
    ]);
  } finally {
    await t.close();
    await relay.stop();
  }
});

it('TASKS-RESTART-3 a quick restart (the stopped process no longer counted alive): the open ask is adopted at once, not asked again, and answered', async () => {
  let relay = await start();
  const t = await connectTasks(() => `${relay.url}/mcp/gateway/tasky`, 'gateway');
  try {
    const quick = await t.session.callTool('deploy', { env: 'quick' });
    const card = await cardFor(relay, 'quick');
    const port = new URL(relay.url).port;
    await relay.stop();
    // No clock moved: the next process starts at once, as `systemctl restart` does.
    relay = await start({ port });
    const outcome = quick.settle();
    await webRoom(() => relay.url, 'resume').tap(card);
    const { outcome: done } = await outcome;
    expect(done.status, JSON.stringify(done)).toBe('completed');
    expect((done as { result: any }).result.content).toEqual([
      { type: 'text', text: 'deployed quick' },
    ]);
    const cards = (await messages(relay)).filter(
      (m) => m.case && JSON.stringify(m).includes('deploy of quick'),
    );
    expect(new Set(cards.map((m) => m.case))).toEqual(new Set([card.case]));
  } finally {
    await t.close();
    await relay.stop();
  }
});

it("TASKS-RESTART-4 a relay process killed (SIGKILL) and started again at once: its heartbeat still looks alive, yet the client's next tasks/get finds the open ask instead of asking again", {
  timeout: 90_000,
}, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hitl-gw-task-crash-'));
  const config = join(dir, 'relay-config.json');
  const mcp_upstreams = {
    tasky: { url: upstreamUrl, target: 'web:crash', protocol: '2026-07-28' },
  };
  writeFileSync(config, JSON.stringify({ mcp_upstreams }));
  const env = {
    DATA_DIR: dir,
    RELAY_CONFIG: config,
    HOST: '127.0.0.1',
    RELAY_ALLOW_HTTP_LOOPBACK: '1',
    PORT: String(await freePort()),
  };
  let proc = await spawnRelay(env);
  const t = await connectTasks(() => `${proc.url}/mcp/gateway/tasky`, 'gateway');
  try {
    const crash = await t.session.callTool('deploy', { env: 'crash' });
    if (crash.kind !== 'task') throw new Error('the gateway answered without a task');
    const room = webRoom(() => proc.url, 'crash');
    const card = await room.openCard('deploy of crash?', undefined, 30_000);
    // The client keeps its task's reference while the relay is away (the ext-tasks recovery path),
    // so its own polls do not fail against the dead port.
    let ref: Parameters<typeof t.session.resumeTask>[0] | undefined;
    await crash.handoff((r) => {
      ref = r;
    });
    await proc.kill('SIGKILL');
    // The next process starts within ALIVE_TTL_MS: the killed one's asks are not yet orphans.
    proc = await spawnRelay(env);
    const resumed = await t.session.resumeTask(ref!);
    const outcome = resumed.settle();
    await room.tap(card);
    const { outcome: done } = await outcome;
    expect(done.status, JSON.stringify(done)).toBe('completed');
    expect((done as { result: any }).result.content).toEqual([
      { type: 'text', text: 'deployed crash' },
    ]);
    expect(new Set((await room.cards('deploy of crash?')).map((m) => m.case))).toEqual(
      new Set([card.case]),
    );
  } finally {
    await t.close();
    await proc.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
});
