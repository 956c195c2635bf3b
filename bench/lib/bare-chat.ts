/**
 * The baseline of the tap benchmark for Slack, Discord and Teams: the least a relay can do on bare
 * node:http and undici. Each platform contributes one route (bench/lib/tap-*.ts) that checks what
 * the platform requires of every app (Slack's HMAC signature, Discord's Ed25519 signature; Teams
 * runs unauthenticated, as the relay's adapter does in these benchmarks), finds the case in a Map,
 * POSTs submit_url with the Bearer token and edits the message. No store, no confirmation.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';

/** A case the baseline knows: where to submit. */
export interface BareChatCase {
  submitUrl: string;
  token: string;
  text: string;
}

/** What a bare route answers. */
export interface BareAnswer {
  status: number;
  body?: unknown;
}

/** One platform's inbound route on the baseline. */
export interface BareRoute {
  path: string;
  handle(raw: string, headers: IncomingMessage['headers']): Promise<BareAnswer>;
}

/** The running baseline server and its outbound client. */
export interface BareChat {
  url: string;
  /** POSTs (or PUTs/PATCHes) JSON; resolves with status and text. */
  send(
    method: 'POST' | 'PUT' | 'PATCH',
    url: string,
    body: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; text: string }>;
  /** POSTs the submit of `action` for `c` with its Bearer token; true when the service took it. */
  submit(c: BareChatCase, action: string, platform: string, userId: string): Promise<boolean>;
  route(r: BareRoute): void;
  stop(): Promise<void>;
}

/** Starts the server (routes are added with `route`). */
export async function startBareChat(): Promise<BareChat> {
  const dispatcher = new Agent({ connections: 64, keepAliveTimeout: 30_000 });
  const routes = new Map<string, BareRoute>();
  const send: BareChat['send'] = async (method, url, body, headers = {}) => {
    const res = await request(url, {
      method,
      dispatcher,
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    return { status: res.statusCode, text: await res.body.text() };
  };
  const answer = (res: ServerResponse, a: BareAnswer) => {
    const text = a.body === undefined ? '' : JSON.stringify(a.body);
    res.writeHead(a.status, text ? { 'content-type': 'application/json' } : {});
    res.end(text);
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const route = routes.get(req.url ?? '');
      if (!route) return answer(res, { status: 404 });
      route
        .handle(Buffer.concat(chunks).toString('utf8'), req.headers)
        .then((a) => answer(res, a))
        .catch((err) => answer(res, { status: 500, body: { error: String(err) } }));
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    send,
    async submit(c, action, platform, userId) {
      const r = await send(
        'POST',
        c.submitUrl,
        {
          action,
          data: {},
          submitted_via: `${platform}_button`,
          submitted_by: { platform, platform_user_id: userId },
        },
        { authorization: `Bearer ${c.token}` },
      );
      return r.status === 200;
    },
    route: (r) => void routes.set(r.path, r),
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await dispatcher.close();
    },
  };
}
