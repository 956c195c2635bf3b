/**
 * A bare HTTP hop for the gateway benchmark: a process of its own that forwards each POST to one
 * upstream URL and hands the answer back (status, content type, body), over keep-alive
 * connections both ways, and nothing else: no MCP, no checks, no store. It is the cheapest hop a
 * gateway could be, so the benchmark can tell what any process in the middle costs on the
 * machine (the side's event loop wakes for two processes instead of one) from what the gateway
 * itself costs. Run as a child by `startBareProxy`; its CPU is read over IPC.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The parent's handle on the hop. */
export interface BareProxy {
  url: string;
  /** The hop's own CPU time so far (ms, user + system). */
  cpuMs(): Promise<number>;
  stop(): Promise<void>;
}

/** Forks the hop in front of `upstreamUrl` and waits until it listens. */
export async function startBareProxy(upstreamUrl: string): Promise<BareProxy> {
  const child = fork(fileURLToPath(import.meta.url), ['--child', upstreamUrl], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = () =>
    new Promise<{ url?: string; cpuMs?: number }>((resolve, reject) => {
      child.once('message', resolve);
      child.once('exit', (code) => reject(new Error(`bare proxy exited with ${code}`)));
    });
  const { url } = await next();
  child.removeAllListeners('exit');
  return {
    url: url!,
    async cpuMs() {
      const answer = next();
      child.send('cpu');
      return (await answer).cpuMs!;
    },
    async stop() {
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      child.send('stop');
      await exited;
    },
  };
}

async function main(upstreamUrl: string) {
  const { createServer } = await import('node:http');
  const { Agent, request } = await import('undici');
  const to = new URL(upstreamUrl);
  const dispatcher = new Agent({ connections: 64, keepAliveTimeout: 60_000 });
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers))
      if (typeof v === 'string' && k !== 'host' && k !== 'connection') headers[k] = v;
    try {
      const up = await request(to, {
        method: 'POST',
        headers,
        body: Buffer.concat(chunks),
        dispatcher,
      });
      const body = await up.body.text();
      const type = up.headers['content-type'];
      res.writeHead(up.statusCode, {
        'content-type': (Array.isArray(type) ? type[0] : type) ?? 'application/json',
        'content-length': Buffer.byteLength(body),
      });
      res.end(body);
    } catch (err) {
      res.writeHead(502).end(String(err));
    }
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as { port: number };
    process.send!({ url: `http://127.0.0.1:${port}${to.pathname}` });
  });
  process.on('message', async (m: string) => {
    if (m === 'cpu') {
      const u = process.cpuUsage();
      return process.send!({ cpuMs: (u.user + u.system) / 1000 });
    }
    server.close();
    server.closeAllConnections();
    await dispatcher.destroy();
    process.exit(0);
  });
}

if (process.argv[2] === '--child') void main(process.argv[3]!);
