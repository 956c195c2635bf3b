/**
 * The MCP benchmark's load generator in a process of its own, so the relay's CPU figure counts the
 * relay alone (in one process, the client's JSON, HTTP parsing and timers were part of both sides'
 * figures and hid what the MCP front adds). The same generator drives every front: an ask through
 * MCP `tools/call` in Tasks mode (answered with the task once the card is posted), the same call
 * in progress mode (a client without Tasks: timed to the progress notification that says the card
 * is posted; the stream stays open, as a waiting client keeps it, until `stop`: on 2026-07-28
 * closing it cancels the call, and withdrawing is work the other fronts do not do), and the same ask through
 * `POST /v1/asks` (202 once the card is posted). Only latencies cross the IPC.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';

/** A front an ask goes through: MCP in Tasks mode, MCP in progress mode, `POST /v1/asks`. */
export type McpFront = 'mcp' | 'progress' | 'http';

/**
 * A burst of `n` asks at `concurrency` clients; targets are `web:bench-${i % rooms}`. With more
 * than one front the asks alternate between them ask by ask (ask i takes `fronts[i % length]`).
 */
export interface McpBurst {
  fronts: McpFront[];
  url: string;
  n: number;
  concurrency: number;
  rooms: number;
}

/** A burst's latencies (ms) by front. */
export type McpTimes = Record<McpFront, number[]>;

const noTimes = (): McpTimes => ({ mcp: [], progress: [], http: [] });

/** The parent's handle on the child. */
export interface McpLoad {
  /** Runs a burst; each ask's latency in ms (request sent to answer read), by the front it took. */
  run(burst: McpBurst): Promise<McpTimes>;
  stop(): Promise<void>;
}

/** The MCP revision the calls speak. */
export const REVISION = '2026-07-28';

/** Forks the load generator and waits until it is ready. */
export async function startMcpLoad(): Promise<McpLoad> {
  const child = fork(fileURLToPath(import.meta.url), ['--child'], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let seq = 0;
  const waiting = new Map<number, { resolve(v: McpTimes): void; reject(e: Error): void }>();
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`mcp load generator exited with ${code}`)));
    child.on('message', (m: { ready?: true; id?: number; times?: McpTimes; error?: string }) => {
      if (m.ready) return resolve();
      const w = m.id === undefined ? undefined : waiting.get(m.id);
      if (!w) return;
      waiting.delete(m.id!);
      if (m.error) w.reject(new Error(m.error));
      else w.resolve(m.times ?? noTimes());
    });
  });
  child.removeAllListeners('exit');
  return {
    run: (burst) =>
      new Promise<McpTimes>((resolve, reject) => {
        const id = seq++;
        waiting.set(id, { resolve, reject });
        child.send({ id, burst });
      }),
    async stop() {
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      child.send({ stop: true });
      await exited;
    },
  };
}

/**
 * `MCP_LEAN=0`: a client capability (roots) that changes nothing for an ask tool but leaves the
 * call to the SDK path, for an A/B run against the front's lean path (src/mcp/lean-call.ts).
 */
const SDK_PATH = process.env.MCP_LEAN === '0' ? { roots: {} } : {};

/**
 * A 2026-07-28 `tools/call` of ask_confirm as the wire has it: Tasks declared, or (`progress`)
 * a client without Tasks that asks for progress notifications.
 */
function toolCall(id: number, i: number, rooms: number, progress: boolean) {
  return JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: {
      name: 'ask_confirm',
      arguments: { prompt: `Is #${i} fine?`, target: `web:bench-${i % rooms}` },
      _meta: {
        'io.modelcontextprotocol/protocolVersion': REVISION,
        'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
        'io.modelcontextprotocol/clientCapabilities': progress
          ? SDK_PATH
          : { extensions: { 'io.modelcontextprotocol/tasks': {} }, ...SDK_PATH },
        ...(progress ? { progressToken: id } : {}),
      },
    },
  });
}

const MCP_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': REVISION,
  'mcp-method': 'tools/call',
  'mcp-name': 'ask_confirm',
};

/**
 * The child's side: one keep-alive agent for both fronts, as an MCP client's fetch keeps its
 * connection. (undici's `pipelining: 0` turns keep-alive off: with it, every ask paid a TCP
 * connect and close on both sides, ~1 ms of the relay's CPU per ask that is no front's.)
 */
function loadGenerator() {
  const dispatcher = new Agent({ connections: 64, keepAliveTimeout: 60_000 });
  // Progress-mode calls hold their connection while they wait: an agent of their own, unbounded.
  const streams = new Agent();
  const open: { destroy(): void }[] = [];
  const asks = { mcp: mcpAsk, progress: progressAsk, http: httpAsk };
  let serial = 0;

  async function mcpAsk(url: string, i: number, rooms: number): Promise<void> {
    const res = await request(`${url}/mcp`, {
      method: 'POST',
      headers: MCP_HEADERS,
      body: toolCall(++serial, i, rooms, false),
      dispatcher,
    });
    const text = await res.body.text();
    if (!text.includes('"resultType":"task"')) throw new Error(`no task: ${text.slice(0, 300)}`);
  }

  /** Until the progress line that says the card is posted; the stream is kept open (`open`). */
  async function progressAsk(url: string, i: number, rooms: number): Promise<void> {
    const res = await request(`${url}/mcp`, {
      method: 'POST',
      headers: MCP_HEADERS,
      body: toolCall(++serial, i, rooms, true),
      dispatcher: streams,
    });
    await new Promise<void>((resolve, reject) => {
      let seen = '';
      const onData = (chunk: Buffer) => {
        seen = (seen + String(chunk)).slice(-4096);
        if (!seen.includes('posted to ')) return;
        res.body.off('data', onData);
        res.body.resume();
        resolve();
      };
      res.body.on('data', onData);
      res.body.once('error', () => undefined);
      res.body.once('end', () =>
        reject(new Error(`no "posted to" progress: ${res.statusCode} ${seen.slice(0, 300)}`)),
      );
      open.push(res.body);
    });
  }

  async function httpAsk(url: string, i: number, rooms: number): Promise<void> {
    const res = await request(`${url}/v1/asks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        target: `web:bench-${i % rooms}`,
        content: { type: 'context', sub_type: 'confirm', prompt: `Is #${i} fine?` },
      }),
      dispatcher,
    });
    const text = await res.body.text();
    if (res.statusCode !== 202)
      throw new Error(`POST /v1/asks ${res.statusCode}: ${text.slice(0, 300)}`);
  }

  async function run(b: McpBurst): Promise<McpTimes> {
    const times = noTimes();
    let next = 0;
    await Promise.all(
      Array.from({ length: b.concurrency }, async () => {
        while (next < b.n) {
          const i = next++;
          const front = b.fronts[i % b.fronts.length]!;
          const t0 = performance.now();
          await asks[front](b.url, i, b.rooms);
          times[front].push(performance.now() - t0);
        }
      }),
    );
    return times;
  }

  return {
    run,
    // The held progress-mode streams close here (which cancels their calls on 2026-07-28).
    close: async () => {
      for (const body of open.splice(0)) body.destroy();
      await Promise.all([dispatcher.close(), streams.destroy()]);
    },
  };
}

async function main() {
  const gen = loadGenerator();
  process.on('message', async (m: { id: number; burst?: McpBurst; stop?: boolean }) => {
    if (m.stop) {
      await gen.close();
      process.disconnect();
      return;
    }
    try {
      process.send?.({ id: m.id, times: await gen.run(m.burst!) });
    } catch (err) {
      process.send?.({ id: m.id, error: (err as Error).message });
    }
  });
  process.send?.({ ready: true });
}

if (process.argv[2] === '--child') await main();
