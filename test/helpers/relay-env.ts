/**
 * A real relay (SQLite in a temp dir) and a real demo HITL service, each on its own loopback port,
 * talking over HTTP. Tests act as the agent (POST /v1/cases) and as the reviewer (demo test controls).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { request } from 'undici';
import type { PlatformAdapter } from '../../src/adapter.ts';
import { readConfig } from '../../src/config/config.ts';
import { createDemoService } from '../../src/demo/index.ts';
import { createLogger, type Logger } from '../../src/log.ts';
import { createRelay, type Relay } from '../../src/relay.ts';
import type { Store } from '../../src/store/store.ts';
import type { WatcherOptions } from '../../src/watch/watcher.ts';

/** Every log line a relay wrote, for secret scans. */
export const logLines: string[] = [];

/** A running demo HITL service. */
export interface DemoHandle {
  url: string;
  /** Creates a review at the demo service and returns its 202 body. */
  create(
    type: string,
    inline: boolean,
    body?: Record<string, unknown>,
  ): Promise<Record<string, any>>;
  submissions(): Promise<
    Array<{ case_id: string; bearer_valid: boolean; body: Record<string, any> }>
  >;
  act(caseId: string, step: Record<string, unknown>): Promise<void>;
  fault(fault: Record<string, unknown>): Promise<void>;
  stop(): Promise<void>;
}

/** Starts the demo service alone on a loopback port, mounted at /demo. */
export async function startDemo(
  options: { callbackSecret?: string; pollRetryAfterSeconds?: number } = {},
): Promise<DemoHandle> {
  // The relay never polls before Retry-After; tests poll fast, so the demo asks for no wait.
  const demo = createDemoService({ testControls: true, pollRetryAfterSeconds: 0, ...options });
  const root = new Hono();
  root.route('/demo', demo.app);
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: root.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/demo`;
  const json = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
    const res = await request(`${url}${path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.body.text();
    if (res.statusCode >= 400)
      throw new Error(`demo ${method} ${path} -> ${res.statusCode}: ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
  return {
    url,
    create: (type, inline, body = {}) =>
      json('POST', `/api/reviews?type=${type}&inline=${inline ? 1 : 0}`, body),
    async submissions() {
      const r = await json('GET', '/api/_test/submissions');
      return Array.isArray(r) ? r : r.submissions;
    },
    act: async (caseId, step) =>
      void (await json('POST', `/api/_test/reviews/${caseId}/act`, step)),
    fault: async (f) => void (await json('POST', '/api/_test/faults', f)),
    async stop() {
      demo.close();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

/** A running relay for tests. */
export interface RelayHandle {
  relay: Relay;
  url: string;
  dataDir: string;
  log: Logger;
  /** POST /v1/cases with a 202 body; returns status and JSON. */
  send(
    target: string,
    response: unknown,
    extra?: Record<string, unknown>,
  ): Promise<{ status: number; body: any }>;
  get(id: string): Promise<any>;
  /** Polls GET /v1/cases/:id until `check` passes (or throws after `ms`). */
  until(id: string, check: (c: any) => boolean, ms?: number): Promise<any>;
  stop(): Promise<void>;
}

/** Starts a relay with `adapters`, fast polling, and an allowlist per target. */
export async function startRelay(options: {
  adapters: PlatformAdapter[];
  allow?: Record<string, string[]>;
  routes?: Record<string, { targets: string[]; allow?: string[]; policy?: string }>;
  /** More of the RELAY_CONFIG file (policies, identities, ...). */
  configFile?: Record<string, unknown>;
  /** The relay's clock (a fake one for timed behaviour). */
  now?: () => number;
  /** Host-name resolution for the intake checks of agents' URLs (never the network in tests). */
  resolve?: (host: string) => Promise<string[]>;
  env?: Record<string, string>;
  dataDir?: string;
  watcher?: WatcherOptions;
  /** Backoff of platform start-up retries (tests pass a few ms). */
  startRetry?: { minMs?: number; maxMs?: number };
  /** How often the relay retries unposted cards and looks for undelivered cases. */
  reconcileEveryMs?: number;
  /** The store (default: SQLite in dataDir). */
  store?: Store;
  /** Mounts more routes (e.g. the demo service) on the relay's server. */
  mount?: (app: Hono, log: Logger, dataDir: string) => { close(): void } | undefined;
}): Promise<RelayHandle> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'hitl-relay-test-'));
  const configFile = join(dataDir, 'relay-config.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      allow: options.allow ?? {},
      routes: options.routes ?? {},
      ...options.configFile,
    }),
  );
  const config = readConfig({
    PORT: '0',
    DATA_DIR: dataDir,
    RELAY_CONFIG: configFile,
    POLL_INTERVAL_MIN_SECONDS: '0.2',
    POLL_INTERVAL_MAX_SECONDS: '1',
    LOG_LEVEL: 'debug',
    ...options.env,
  });
  const log = createLogger({
    level: 'debug',
    destination: { write: (line) => void logLines.push(line) },
  });
  const mount = options.mount;
  const relay = createRelay({
    config,
    adapters: options.adapters,
    log,
    repostAfterMs: 2000,
    ...(options.now ? { now: options.now } : {}),
    ...(options.resolve ? { resolve: options.resolve } : {}),
    ...(options.watcher ? { watcher: options.watcher } : {}),
    ...(options.startRetry ? { startRetry: options.startRetry } : {}),
    ...(options.reconcileEveryMs ? { reconcileEveryMs: options.reconcileEveryMs } : {}),
    ...(options.store ? { store: options.store } : {}),
    ...(mount ? { mount: (app: Hono) => mount(app, log, dataDir) } : {}),
  });
  await relay.start();
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (config.apiKey) headers.authorization = `Bearer ${config.apiKey}`;
  const get = async (id: string) => {
    const res = await request(`${relay.url}/v1/cases/${id}`, { headers });
    return res.body.json();
  };
  return {
    relay,
    url: relay.url,
    dataDir,
    log,
    async send(target, response, extra = {}) {
      const res = await request(`${relay.url}/v1/cases`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ target, response, ...extra }),
      });
      return { status: res.statusCode, body: await res.body.json() };
    },
    get,
    async until(id, check, ms = 10_000) {
      const end = Date.now() + ms;
      for (;;) {
        const c = await get(id);
        if (check(c)) return c;
        if (Date.now() > end)
          throw new Error(
            `case ${id} never reached the expected state; last: ${JSON.stringify(c).slice(0, 600)}`,
          );
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async stop() {
      await relay.stop();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Waits until `check` returns a truthy value (or throws after `ms`). */
export async function eventually<T>(
  check: () => Promise<T | undefined | null | false>,
  ms = 10_000,
  what = 'condition',
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
