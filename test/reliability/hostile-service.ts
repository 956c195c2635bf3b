/**
 * A HITL service under the test's control, for what the demo service will not do: redirect a
 * submit elsewhere, answer with megabytes, trickle a body forever, or answer the poll with
 * whatever a fuzzer made. By default it is a minimal honest peer (poll: pending; respond: 200
 * completed; a case created with previous_case_id is named as that case's next_case_id, as an
 * honest service names the follow-up round it created). It counts TCP connections and records every request, so tests can show that
 * something was never fetched.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A request the service received. */
export interface SeenRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** Answers one request; return true when handled (else the default answer follows). */
export type Handler = (
  req: IncomingMessage,
  res: ServerResponse,
  body: string,
) => boolean | undefined | Promise<boolean | undefined>;

/** A running hostile service. */
export interface HostileService {
  /** Base URL, e.g. http://127.0.0.1:40123 */
  url: string;
  port: number;
  /** TCP connections accepted so far. */
  connections(): number;
  requests: SeenRequest[];
  /** Sets the handler tried before the default answers (null restores the honest peer). */
  handle(handler: Handler | null): void;
  /** A fresh 202 body whose URLs all point here. */
  body202(overrides?: Record<string, unknown>): Record<string, any>;
  close(): Promise<void>;
}

/** Starts a hostile service on a loopback port. */
export async function startHostileService(): Promise<HostileService> {
  let handler: Handler | null = null;
  let connections = 0;
  const requests: SeenRequest[] = [];
  const completed = new Set<string>();
  // The follow-up rounds this service created: previous case id -> next case id.
  const next = new Map<string, string>();
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const path = req.url ?? '/';
    requests.push({ method: req.method ?? 'GET', path, headers: req.headers, body });
    try {
      if (handler && (await handler(req, res, body))) return;
    } catch {
      if (!res.headersSent) res.writeHead(500).end();
      return;
    }
    const m = /^\/cases\/([A-Za-z0-9_-]+)\/(status|respond)/.exec(path);
    if (!m) return void res.writeHead(404, { 'content-type': 'application/json' }).end('{}');
    const [, id, what] = m as unknown as [string, string, string];
    res.setHeader('content-type', 'application/json');
    if (what === 'respond') {
      if (completed.has(id)) return void res.writeHead(409).end('{"error":"duplicate_submission"}');
      completed.add(id);
      const action = (JSON.parse(body || '{}') as { action?: string }).action ?? 'approve';
      res.end(
        JSON.stringify({
          status: 'completed',
          case_id: id,
          completed_at: new Date().toISOString(),
          result: { action, data: {} },
        }),
      );
      return;
    }
    const status = completed.has(id)
      ? {
          status: 'completed',
          case_id: id,
          result: { action: 'approve', data: {} },
          completed_at: new Date().toISOString(),
        }
      : { status: 'pending', case_id: id };
    const following = next.get(id);
    res.end(JSON.stringify(following ? { ...status, next_case_id: following } : status));
  });
  server.on('connection', () => connections++);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    port,
    connections: () => connections,
    requests,
    handle(h) {
      handler = h;
    },
    body202(overrides = {}) {
      const id = `hostile_${randomBytes(6).toString('hex')}`;
      const now = Date.now();
      const previous = overrides.previous_case_id;
      if (typeof previous === 'string') next.set(previous, id);
      return {
        status: 'human_input_required',
        message: 'A hostile service wants a decision',
        hitl: {
          spec_version: '0.8',
          case_id: id,
          review_url: `${url}/review/${id}?token=${randomBytes(24).toString('base64url')}`,
          poll_url: `${url}/cases/${id}/status`,
          type: 'approval',
          prompt: 'Approve the thing?',
          created_at: new Date(now).toISOString(),
          expires_at: new Date(now + 3_600_000).toISOString(),
          submit_url: `${url}/cases/${id}/respond`,
          submit_token: `sbt_${randomBytes(24).toString('base64url')}`,
          ...overrides,
        },
      };
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
