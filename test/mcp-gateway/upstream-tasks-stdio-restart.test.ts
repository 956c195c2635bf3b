/**
 * A stdio upstream's tasks across a relay restart (issue 33). The relay spawns its stdio
 * upstreams, so the child ends with the relay and the next process's `tasks/get` goes to a new
 * child. Two upstreams of the same official-SDK Tasks server (fixtures/stdio-tasks-upstream.ts):
 * `keeper` keeps its tasks in a file (a server whose tasks outlive its process), `forgetter` keeps
 * them in memory. Downstream, the official Tasks requester (ext-tasks on the SDK client) holds the
 * gateway's task of each. The relay stops while both tasks wait on a person; the next process on
 * the same SQLite store resumes: keeper's ask stays open, is answered in the web chat of the
 * second process and reaches the new child with tasks/update, and the client's task completes;
 * forgetter's new child does not know the task, so its ask is withdrawn with the child's reason on
 * the card and in the history, and the client's task fails saying why. No tasks/cancel is sent.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { ALIVE_TTL_MS } from '../../src/cases/posting-lease.ts';
import { connectTasks } from '../helpers/mcp-tasks-client.ts';
import { type RelayHandle, startRelay } from '../helpers/relay-env.ts';
import { webRoom } from '../helpers/web-room.ts';

const dir = mkdtempSync(join(tmpdir(), 'hitl-gw-stdio-restart-'));
const CHILD = resolve('test/mcp-gateway/fixtures/stdio-tasks-upstream.ts');
const RECORD = { keeper: join(dir, 'keeper.jsonl'), forgetter: join(dir, 'forgetter.jsonl') };
const STATE = join(dir, 'keeper-tasks.json');
const ROOM = 'stdio-restart';
let relay: RelayHandle;

/** What the children of upstream `name` received, in order (every process appends). */
const received = (name: keyof typeof RECORD): Array<Record<string, any>> =>
  readFileSync(RECORD[name], 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

const upstream = (name: keyof typeof RECORD, env: Record<string, string>) => ({
  command: process.execPath,
  args: ['--import', 'tsx', CHILD],
  env: { TASKS_RECORD: RECORD[name], ...env },
  target: `web:${ROOM}`,
  protocol: '2026-07-28',
  timeout_seconds: 600,
});
const start = (o: { port?: string; now?: () => number } = {}) =>
  startRelay({
    adapters: [createWebAdapter()],
    dataDir: dir,
    ...(o.now && { now: o.now }),
    ...(o.port && { env: { PORT: o.port } }),
    configFile: {
      mcp_upstreams: {
        keeper: upstream('keeper', { TASKS_STATE: STATE }),
        forgetter: upstream('forgetter', {}),
      },
    },
  });

beforeAll(async () => {
  writeFileSync(RECORD.keeper, '');
  writeFileSync(RECORD.forgetter, '');
  relay = await start();
});
afterAll(async () => {
  await relay?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const room = webRoom(() => relay.url, ROOM);
/** Spawning a tsx child per upstream and process takes seconds on a busy machine. */
const SLOW = 30_000;
const card = (text: string) => room.openCard(text, undefined, SLOW);

it("TASKS-STDIO-RESTART-1 a child that keeps its tasks: the ask survives the restart and the new child gets the answer; a child that forgets: the ask is withdrawn with the child's reason, the client's task fails", {
  timeout: 120_000,
}, async () => {
  const keeper = await connectTasks(() => `${relay.url}/mcp/gateway/keeper`, 'gateway');
  const forgetter = await connectTasks(() => `${relay.url}/mcp/gateway/forgetter`, 'gateway');
  try {
    const kept = await keeper.session.callTool('deploy', { env: 'kept' });
    const lost = await forgetter.session.callTool('deploy', { env: 'lost' });
    expect([kept.kind, lost.kind]).toEqual(['task', 'task']);
    const keptCard = await card('Deploy to kept?');
    const lostCard = await card('Deploy to lost?');
    const port = new URL(relay.url).port;
    await relay.stop();
    // The stopped process's alive key lapses ALIVE_TTL_MS after its last beat: a clock past that.
    relay = await start({ port, now: () => Date.now() + ALIVE_TTL_MS + 5000 });

    const withdrawn = await relay.until(lostCard.case, (c) => c.status === 'cancelled', SLOW);
    expect(withdrawn.reason).toContain("the MCP server's task could not be read again");
    expect(withdrawn.reason).toContain('unknown task');
    const history = await relay.relay.services.store.listHistory(lostCard.case);
    expect(JSON.stringify(history)).toContain('could not be read again');
    const { outcome: lostOutcome } = await lost.settle();
    expect(lostOutcome.status, JSON.stringify(lostOutcome)).toBe('failed');
    expect(JSON.stringify(lostOutcome)).toContain('unknown task');

    expect((await relay.get(keptCard.case)).status).not.toBe('cancelled');
    // Ann answers the card the first process posted, in the web chat of the second.
    await room.tap(keptCard, 'confirm');
    await room.tap(await card('Which region?'), 'select', { selected: 'eu' });
    const { outcome } = await kept.settle();
    expect(outcome.status, JSON.stringify(outcome)).toBe('completed');
    expect((outcome as { result: any }).result.content).toEqual([
      { type: 'text', text: 'deployed kept to eu' },
    ]);
    const updates = received('keeper').filter((m) => m.method === 'tasks/update');
    expect(updates.map((u) => u.inputResponses)).toEqual([
      { confirm: { action: 'accept', content: { ok: true } } },
      { region: { action: 'accept', content: { region: 'eu' } } },
    ]);
    expect(received('keeper').filter((m) => m.method === 'tools/call')).toHaveLength(1);
    for (const name of ['keeper', 'forgetter'] as const)
      expect(received(name).filter((m) => m.method === 'tasks/cancel')).toEqual([]);
    // Nothing was asked twice: one card per question.
    const cases = new Set((await room.messages()).filter((m) => m.case).map((m) => m.case));
    expect(cases.size).toBe(3);
  } finally {
    await keeper.close();
    await forgetter.close();
  }
});
