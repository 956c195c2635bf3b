/**
 * The far side of the gateway benchmark, in a process of its own so the relay's CPU is the
 * relay's: the upstream MCP server (the official SDK's McpServer served by its createMcpHandler
 * on loopback: a read-only `echo`, a destructive `wipe` the gateway holds for a person) and the
 * downstream clients (2026-07-28 `tools/call` over plain HTTP, as bench/mcp.ts sends them). The
 * same clients call the upstream straight or through the gateway. Run as a child by
 * `startGatewaySide`; talks over IPC.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** What the parent asks the side to do. */
export type SideJob =
  /**
   * `n` calls of `echo` at `url` with `concurrency` clients, declaring `capabilities`: each call's
   * latency (ms), this process's CPU per call (ms), and with `sniff` the capabilities the upstream
   * saw on the first call it received (what the gateway declares upstream, on a gateway round).
   */
  | {
      kind: 'calls';
      url: string;
      n: number;
      concurrency: number;
      capabilities: Record<string, unknown>;
      sniff?: boolean;
    }
  /** `n` calls of `wipe` at `url`, left open (each held for a person); answers once all are sent. */
  | { kind: 'hold'; url: string; n: number }
  /** How many held calls ended, and how many calls of `wipe` the upstream received. */
  | { kind: 'count' };

/** The parent's handle on the side. */
export interface GatewaySide {
  /** The upstream's MCP endpoint. */
  upstreamUrl: string;
  run<T>(job: SideJob): Promise<T>;
  stop(): Promise<void>;
}

/** Forks the side and waits until its upstream listens. */
export async function startGatewaySide(): Promise<GatewaySide> {
  const child = fork(fileURLToPath(import.meta.url), ['--child'], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let seq = 0;
  const waiting = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();
  const upstreamUrl = await new Promise<string>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`gateway side exited with ${code}`)));
    child.on('message', (m: { ready?: string; id?: number; result?: unknown; error?: string }) => {
      if (m.ready) return resolve(m.ready);
      const w = m.id === undefined ? undefined : waiting.get(m.id);
      if (!w) return;
      waiting.delete(m.id!);
      if (m.error) w.reject(new Error(m.error));
      else w.resolve(m.result);
    });
  });
  child.removeAllListeners('exit');
  return {
    upstreamUrl,
    run(job) {
      const id = seq++;
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        child.send({ id, job });
      });
    },
    async stop() {
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      child.send({ stop: true });
      await exited;
    },
  };
}

const REVISION = '2026-07-28';
const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': REVISION,
  'mcp-method': 'tools/call',
};
const META = {
  'io.modelcontextprotocol/protocolVersion': REVISION,
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1.0.0' },
};

/** What a `calls` job answers. */
export interface CallsResult {
  times: number[];
  cpuPerCall: number;
  sniffed?: unknown;
}

async function main() {
  const { serve } = await import('@hono/node-server');
  const { createMcpHandler, McpServer } = await import('@modelcontextprotocol/server');
  const { Agent, request } = await import('undici');
  const { z } = await import('zod');
  const { pool } = await import('./run.ts');

  let wiped = 0;
  const upstream = () => {
    const s = new McpServer({ name: 'bench-upstream', version: '1.0.0' });
    s.registerTool(
      'echo',
      { inputSchema: z.object({ text: z.string() }), annotations: { readOnlyHint: true } },
      async ({ text }) => ({ content: [{ type: 'text', text }] }),
    );
    s.registerTool(
      'wipe',
      {
        inputSchema: z.object({ disk: z.string() }),
        annotations: { destructiveHint: true, readOnlyHint: false },
      },
      async ({ disk }) => {
        wiped++;
        return { content: [{ type: 'text', text: `wiped ${disk}` }] };
      },
    );
    return s;
  };
  const handler = createMcpHandler(() => upstream());
  // While armed, the next tools/call's declared capabilities are kept (read off a clone, once).
  let sniff: { armed: boolean; seen?: unknown } = { armed: false };
  const fetch = async (r: Request) => {
    if (sniff.armed && r.headers.get('mcp-method') === 'tools/call') {
      sniff.armed = false;
      const body = await r.clone().json();
      sniff.seen = body.params?._meta?.['io.modelcontextprotocol/clientCapabilities'] ?? null;
    }
    return handler.fetch(r);
  };
  const http = serve({ fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise<void>((r) => http.once('listening', () => r()));
  // Node's 5 s idle timeout closed the straight side's connections while a gateway round ran, so
  // its next round paid 64 reconnects (1 s SYN retransmits on a loaded machine): keep them.
  (http as unknown as { keepAliveTimeout: number }).keepAliveTimeout = 60_000;
  const { port } = http.address() as { port: number };
  // Keep-alive connections, as an MCP client's fetch keeps them (undici's `pipelining: 0` turns
  // keep-alive off: every call then paid a TCP connect and close, on both sides).
  const dispatcher = new Agent({ connections: 1200, keepAliveTimeout: 60_000, bodyTimeout: 0 });
  let seq = 0;
  let heldEnded = 0;

  const call = (
    url: string,
    name: string,
    args: Record<string, string>,
    capabilities: Record<string, unknown> = {},
  ) => {
    const id = ++seq;
    const _meta = { ...META, 'io.modelcontextprotocol/clientCapabilities': capabilities };
    const params = { name, arguments: args, _meta };
    return request(url, {
      method: 'POST',
      headers: { ...HEADERS, 'mcp-name': name },
      body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params }),
      dispatcher,
    });
  };

  async function calls(job: Extract<SideJob, { kind: 'calls' }>): Promise<CallsResult> {
    const times: number[] = [];
    if (job.sniff) sniff = { armed: true };
    const cpu = process.cpuUsage();
    await pool(job.n, job.concurrency, async (i) => {
      const text = `call ${i}`;
      const t0 = performance.now();
      const res = await call(job.url, 'echo', { text }, job.capabilities);
      const got = await res.body.text();
      times.push(performance.now() - t0);
      if (res.statusCode !== 200 || !got.includes(text))
        throw new Error(`echo answered ${res.statusCode}: ${got.slice(0, 300)}`);
    });
    const used = process.cpuUsage(cpu);
    const cpuPerCall = (used.user + used.system) / 1000 / job.n;
    return { times, cpuPerCall, ...(job.sniff && { sniffed: sniff.seen }) };
  }

  async function hold(job: Extract<SideJob, { kind: 'hold' }>) {
    for (let i = 0; i < job.n; i++) {
      const sent = call(job.url, 'wipe', { disk: `disk-${seq}` });
      void sent
        .then((res) => res.body.text())
        .catch(() => undefined)
        .finally(() => heldEnded++);
      // A breath every 50 so the relay's listen backlog never overflows.
      if (i % 50 === 49) await new Promise((r) => setTimeout(r, 20));
    }
    return job.n;
  }

  process.on('message', async (m: { id?: number; job?: SideJob; stop?: true }) => {
    if (m.stop) {
      await dispatcher.destroy();
      await handler.close();
      http.close();
      process.exit(0);
    }
    const job = m.job!;
    try {
      const result =
        job.kind === 'calls'
          ? await calls(job)
          : job.kind === 'hold'
            ? await hold(job)
            : { heldEnded, wiped };
      process.send!({ id: m.id, result });
    } catch (err) {
      process.send!({ id: m.id, error: (err as Error).message });
    }
  });
  process.send!({ ready: `http://127.0.0.1:${port}/mcp` });
}

if (process.argv.includes('--child')) await main();
