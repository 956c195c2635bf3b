/**
 * Several `hitl-relay serve` processes on one PostgreSQL schema, with Telegram in webhook mode
 * against the fake Bot API. The processes are real (spawnRelay); the test acts as the agent, as
 * Telegram delivering webhooks through a load balancer, and as the people who tap.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import type { FakeTelegramApi } from '../fakes/telegram-api.ts';
import { freshSchemaUrl } from '../helpers/postgres.ts';
import { type RelayProcess, spawnRelay } from '../helpers/process.ts';

/** The public name the load balancer would have; Details links and the webhook URL use it. */
export const PUBLIC_URL = 'https://relay.example';
const WEBHOOK_PATH = '/telegram/webhook';

/** A running set of replicas. */
export interface Cluster {
  replicas: RelayProcess[];
  /** The environment every replica shares (secrets included: tests scan logs for them). */
  env: Record<string, string>;
  /** Replicas not killed by the test. */
  live(): RelayProcess[];
  /** A random live replica, as a round-robin load balancer would hand out. */
  pick(except?: RelayProcess): RelayProcess;
  /** SIGKILLs a replica: no shutdown, its leases and claims stay behind in the database. */
  kill(r: RelayProcess): Promise<void>;
  /** Calls the relay API (with the API key) at a replica; returns status and parsed JSON. */
  api(r: RelayProcess, method: 'GET' | 'POST', path: string, body?: unknown): Promise<ApiAnswer>;
  /** The agent: POST /v1/cases at the replica the balancer picks, honouring 429 Retry-After. */
  send(target: string, response: unknown): Promise<ApiAnswer>;
  /** Every line the replicas wrote. */
  output(): string;
  stop(): Promise<void>;
}

/** The answer of one relay API call. */
export interface ApiAnswer {
  status: number;
  body: any;
}

/** Starts `count` replicas on a fresh schema, sharing keys, PUBLIC_URL and the Telegram bot. */
export async function startCluster(o: {
  count: number;
  telegram: FakeTelegramApi;
  env?: Record<string, string>;
}): Promise<Cluster> {
  const dataDir = mkdtempSync(join(tmpdir(), 'hitl-replicas-'));
  const env: Record<string, string> = {
    DATABASE_URL: await freshSchemaUrl(),
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PUBLIC_URL,
    RELAY_API_KEY: randomBytes(24).toString('base64url'),
    RELAY_SECRET_KEY: randomBytes(32).toString('base64url'),
    // The demo service of the test listens on loopback over plain HTTP.
    RELAY_ALLOW_HTTP_LOOPBACK: '1',
    DEMO: '0',
    WEB_CHAT: '0',
    LOG_LEVEL: 'warn',
    TELEGRAM_BOT_TOKEN: o.telegram.token,
    TELEGRAM_API_ROOT: o.telegram.apiRoot,
    TELEGRAM_WEBHOOK_URL: `${PUBLIC_URL}${WEBHOOK_PATH}`,
    TELEGRAM_WEBHOOK_SECRET: `wh_${randomBytes(18).toString('base64url')}`,
    ...o.env,
  };
  const replicas = await Promise.all(Array.from({ length: o.count }, () => spawnRelay(env)));
  const dead = new Set<RelayProcess>();
  const live = () =>
    replicas.filter((r) => !dead.has(r) && r.child.exitCode === null && !r.child.signalCode);
  const headers = { authorization: `Bearer ${env.RELAY_API_KEY}` };
  const cluster: Cluster = {
    replicas,
    env,
    live,
    pick(except) {
      const choice = live().filter((r) => r !== except);
      const pool = choice.length ? choice : live();
      const r = pool[Math.floor(Math.random() * pool.length)];
      if (!r) throw new Error('no live replica');
      return r;
    },
    async kill(r) {
      await r.kill('SIGKILL');
      dead.add(r);
    },
    async api(r, method, path, body) {
      const res = await request(`${r.url}${path}`, {
        method,
        headers: {
          ...headers,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.body.text();
      return { status: res.statusCode, body: text ? JSON.parse(text) : undefined };
    },
    async send(target, response) {
      for (;;) {
        const r = await cluster.api(cluster.pick(), 'POST', '/v1/cases', { target, response });
        if (r.status !== 429) return r;
        await new Promise((done) => setTimeout(done, 1000));
      }
    },
    output: () => replicas.map((r) => r.output()).join('\n'),
    async stop() {
      // A graceful stop first; a replica that does not finish in time is killed.
      await Promise.all(
        replicas.map(async (r) => {
          const stopped = r.kill('SIGTERM');
          const late = setTimeout(() => void r.kill('SIGKILL'), 10_000);
          await stopped;
          clearTimeout(late);
        }),
      );
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return cluster;
}

/**
 * Delivers one update the way Telegram does: POSTed with the secret header to the webhook (here:
 * a replica the load balancer picks). A refused connection, a reset or a non-2xx answer is retried
 * with the same update_id, at whichever replica the balancer hands out next.
 */
export async function deliverUpdate(
  cluster: Cluster,
  update: object,
  first?: RelayProcess,
): Promise<{ replica: RelayProcess; attempts: number }> {
  let target = first ?? cluster.pick();
  for (let attempt = 1; ; attempt++) {
    try {
      const res = await request(`${target.url}${WEBHOOK_PATH}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-telegram-bot-api-secret-token': cluster.env.TELEGRAM_WEBHOOK_SECRET!,
        },
        body: JSON.stringify(update),
      });
      await res.body.dump();
      if (res.statusCode === 200) return { replica: target, attempts: attempt };
    } catch {
      // The replica died under the request: Telegram sees no answer and tries again later.
    }
    if (attempt >= 20) throw new Error('the webhook update was never accepted');
    await new Promise((r) => setTimeout(r, 100 * attempt));
    target = cluster.pick(target);
  }
}
