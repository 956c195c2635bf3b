/**
 * The asks benchmark's baseline: a bare HITL service on node:http with a Map, doing what the
 * relay's asks service does per request at its barest. `POST /asks` reads the JSON body, mints a
 * case id and two tokens, keeps the case and answers 202 with a spec v0.8 `hitl` object (no card,
 * no store, no validation beyond "a JSON object"); `GET /asks/:id/status` answers the poll body
 * with a strong ETag, or 304 to a matching If-None-Match. Wire format only, nothing durable.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { json } from './hitl-service.ts';

interface BareCase {
  id: string;
  version: number;
  createdAt: string;
  expiresAt: string;
}

/** A running baseline service. */
export interface BareAsks {
  /** Base URL; asks are POSTed to `${url}/asks`. */
  url: string;
  /** Cases kept. */
  size(): number;
  stop(): Promise<void>;
}

const STATUS = /^\/asks\/([A-Za-z0-9_-]+)\/status$/;
/** The same body bound the relay sets on its API. */
const MAX_BODY = 64 * 1024;

/** Starts the baseline on 127.0.0.1 and a free port. */
export async function startBareAsks(): Promise<BareAsks> {
  const cases = new Map<string, BareCase>();
  const base = { url: '' };
  const create = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY) chunks.push(chunk);
    });
    req.on('end', () => {
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return json(res, 400, { error: 'invalid_json' });
      }
      if (size > MAX_BODY || typeof body !== 'object' || body === null)
        return json(res, 400, { error: 'invalid_request' });
      const now = Date.now();
      const c: BareCase = {
        id: `review_${randomBytes(12).toString('hex')}`,
        version: 1,
        createdAt: new Date(now).toISOString(),
        expiresAt: new Date(now + 86_400_000).toISOString(),
      };
      cases.set(c.id, c);
      const at = `${base.url}/asks/${c.id}`;
      json(
        res,
        202,
        {
          status: 'human_input_required',
          message: 'An agent asks for your approval.',
          hitl: {
            spec_version: '0.8',
            case_id: c.id,
            review_url: `${base.url}/review/${c.id}?token=${randomBytes(32).toString('base64url')}`,
            poll_url: `${at}/status`,
            submit_url: `${at}/respond`,
            submit_token: randomBytes(32).toString('base64url'),
            inline_actions: ['approve', 'reject'],
            type: 'approval',
            prompt: (body as { content?: { prompt?: unknown } }).content?.prompt ?? '',
            created_at: c.createdAt,
            expires_at: c.expiresAt,
          },
        },
        { 'retry-after': '30' },
      );
    });
  };
  const poll = (id: string, req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    const c = cases.get(id);
    if (!c) return json(res, 404, { error: 'not_found' });
    const etag = `"${c.id}.${c.version}"`;
    const headers = { etag, 'cache-control': 'no-cache', 'retry-after': '30' };
    if (req.headers['if-none-match'] === etag) {
      res.writeHead(304, headers);
      return res.end();
    }
    json(
      res,
      200,
      { status: 'pending', case_id: c.id, created_at: c.createdAt, expires_at: c.expiresAt },
      headers,
    );
  };
  const server: Server = createServer((req, res) => {
    const url = req.url ?? '';
    if (req.method === 'POST' && url === '/asks') return create(req, res);
    const m = STATUS.exec(url);
    if (req.method === 'GET' && m) return poll(m[1]!, req, res);
    req.resume();
    json(res, 404, { error: 'not_found' });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base.url,
    size: () => cases.size,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
