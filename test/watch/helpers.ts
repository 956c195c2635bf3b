/**
 * Watch tests: a real relay (SQLite, web chat) with its SSE client tuned per test, the demo HITL
 * service over real HTTP, and a TCP proxy in between that can cut live connections, as a network
 * or a load balancer would.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { readConfig } from '../../src/config/config.ts';
import { createLogger } from '../../src/log.ts';
import { createRelay, type Relay } from '../../src/relay.ts';
import type { EventStreamOptions } from '../../src/watch/sse.ts';

/** A running relay for watch tests. */
export interface WatchRelay {
  relay: Relay;
  url: string;
  dataDir: string;
  /** Every log line this relay wrote. */
  logs: string[];
  send(target: string, response: unknown): Promise<any>;
  get(id: string): Promise<any>;
  /** The web chat room's messages, as /web/api serves them. */
  room(name: string): Promise<any[]>;
  tap(room: string, messageId: string, action: string): Promise<any>;
  stop(): Promise<void>;
}

/** Starts a relay with the web chat; `slow` polls every few minutes so only pushes can be quick. */
export async function startWatchRelay(
  options: {
    slow?: boolean;
    env?: Record<string, string>;
    streams?: EventStreamOptions;
    callbackSecrets?: Record<string, string>;
    dataDir?: string;
    /** The relay's clock (real time unless a test moves it). */
    now?: () => number;
  } = {},
): Promise<WatchRelay> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'hitl-watch-'));
  const configFile = join(dataDir, 'relay-config.json');
  writeFileSync(configFile, JSON.stringify({ callback_secrets: options.callbackSecrets ?? {} }));
  const config = readConfig({
    PORT: '0',
    DATA_DIR: dataDir,
    RELAY_CONFIG: configFile,
    POLL_INTERVAL_MIN_SECONDS: options.slow ? '300' : '0.2',
    POLL_INTERVAL_MAX_SECONDS: options.slow ? '600' : '1',
    LOG_LEVEL: 'debug',
    ...options.env,
  });
  const logs: string[] = [];
  const log = createLogger({ level: 'debug', destination: { write: (l) => void logs.push(l) } });
  const relay = createRelay({
    config,
    adapters: [createWebAdapter()],
    log,
    repostAfterMs: 2000,
    streams: { backoffBaseMs: 50, backoffMaxMs: 400, ...options.streams },
    ...(options.now ? { now: options.now } : {}),
  });
  await relay.start();
  const json = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
    const res = await request(`${relay.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return res.body.json() as Promise<any>;
  };
  return {
    relay,
    url: relay.url,
    dataDir,
    logs,
    send: (target, response) => json('POST', '/v1/cases', { target, response }),
    get: (id) => json('GET', `/v1/cases/${id}`),
    room: (name) => json('GET', `/web/api/rooms/${name}/messages`),
    tap: (room, id, action) =>
      json('POST', `/web/api/rooms/${room}/messages/${id}/actions/${action}`, {
        user: { id: 'ann', name: 'Ann' },
      }),
    async stop() {
      await relay.stop();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The card messages of a room (reminders and other notices left out). */
export async function cards(r: WatchRelay, room: string): Promise<any[]> {
  return (await r.room(room)).filter((m) => m.case);
}

/** The history kinds (and sources) of a relay case, e.g. "status:opened:sse". */
export async function historyOf(r: WatchRelay, id: string): Promise<string[]> {
  const c = await r.get(id);
  return (c.history ?? []).map((h: any) =>
    h.kind === 'status' ? `status:${h.to}:${h.source}` : h.kind,
  );
}

/** JSON over HTTP to the demo service (or through the proxy in front of it). */
export async function demoCall(
  base: string,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
): Promise<any> {
  const res = await request(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.body.text();
  if (res.statusCode >= 400)
    throw new Error(`demo ${method} ${path} -> ${res.statusCode}: ${text}`);
  return text ? JSON.parse(text) : undefined;
}

/** Answers a case on its review page, as the reviewer's browser does (review token, not the submit token). */
export async function answerOnReviewPage(
  hitl: Record<string, any>,
  action: string,
  data: Record<string, unknown> = {},
  /** The service's base URL when the reviewer reaches it another way than the agent does. */
  serviceBase?: string,
): Promise<any> {
  const review = new URL(hitl.review_url);
  const base = serviceBase ?? review.href.slice(0, review.href.indexOf('/review/'));
  const token = review.searchParams.get('token');
  return demoCall(base, 'POST', `/api/reviews/${hitl.case_id}/respond?token=${token}`, {
    action,
    data,
  });
}

/** A TCP proxy in front of the demo service that can cut every live connection and hold new ones. */
export interface TcpProxy {
  port: number;
  /** The head (request line and headers) of every request seen, oldest first. */
  heads: string[];
  /** Requests whose head matches `re`. */
  requests(re: RegExp): string[];
  /** Ends every open connection at once (both sides). */
  cut(): void;
  /** Accepts new connections but forwards nothing until release(). */
  hold(): void;
  release(): void;
  close(): Promise<void>;
}

/** Starts a proxy from a loopback port to 127.0.0.1:`upstreamPort`. */
export async function startProxy(upstreamPort: number): Promise<TcpProxy> {
  const heads: string[] = [];
  const open = new Set<Socket>();
  let held: Array<() => void> | null = null;
  const server = createServer((client) => {
    open.add(client);
    client.on('close', () => open.delete(client));
    client.on('error', () => {});
    const buffered: Buffer[] = [];
    const early = (d: Buffer) => void buffered.push(d);
    client.on('data', early);
    const pipe = () => {
      if (client.destroyed) return;
      const up = connect(upstreamPort, '127.0.0.1');
      open.add(up);
      up.on('close', () => {
        open.delete(up);
        client.destroy();
      });
      up.on('error', () => client.destroy());
      client.on('close', () => up.destroy());
      client.off('data', early);
      for (const d of buffered) {
        heads.push(d.toString('latin1').split('\r\n\r\n')[0]!);
        up.write(d);
      }
      client.on('data', (d: Buffer) => {
        if (/^(GET|POST|PUT|DELETE|HEAD) /.test(d.toString('latin1', 0, 8)))
          heads.push(d.toString('latin1').split('\r\n\r\n')[0]!);
        up.write(d);
      });
      up.pipe(client);
    };
    if (held) held.push(pipe);
    else pipe();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    heads,
    requests: (re) => heads.filter((h) => re.test(h)),
    cut() {
      for (const s of open) s.destroy();
    },
    hold() {
      held = [];
    },
    release() {
      const waiting = held ?? [];
      held = null;
      for (const go of waiting) go();
    },
    async close() {
      for (const s of open) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
