/**
 * A fast fake HITL service on bare node:http (the demo does much more work per request): poll
 * answers 200 with an ETag or 304 to a matching If-None-Match, submit answers 200 once and 409
 * after. It speaks the protocol's wire format (spec v0.8 sections 6-8), nothing more. Submit
 * tokens are derived from the case id with a secret, so another process can build 202 bodies.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

interface ServiceCase {
  status: 'pending' | 'completed';
  version: number;
  action?: string;
  completedAt?: string;
}

/** The submit_token of a case (at least 32 characters, as the spec asks). */
export function submitTokenOf(secret: string, caseId: string): string {
  return createHmac('sha256', secret).update(caseId).digest('base64url');
}

/** The HTTP 202 body of a case at the service at `url` (approval, inline approve/reject). */
export function hitlBody(url: string, secret: string, caseId: string): Record<string, unknown> {
  const base = `${url}/cases/${caseId}`;
  const now = Date.now();
  return {
    status: 'human_input_required',
    message: 'Deployment waits for approval.',
    hitl: {
      spec_version: '0.8',
      case_id: caseId,
      review_url: `${url}/review/${caseId}?token=${randomBytes(16).toString('hex')}`,
      poll_url: `${base}/status`,
      submit_url: `${base}/submit`,
      submit_token: submitTokenOf(secret, caseId),
      inline_actions: ['approve', 'reject'],
      type: 'approval',
      prompt: `Deploy build ${caseId} to production?`,
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + 24 * 3600_000).toISOString(),
      context: { service: 'api', version: '2.4.1', environment: 'production' },
    },
  };
}

/** Answers `body` as JSON with its length (the benchmarks' bare servers). */
export function json(res: ServerResponse, status: number, body: unknown, headers = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...headers,
  });
  res.end(text);
}

/** A running fake service. */
export interface FastService {
  url: string;
  /** Signs submit tokens (see submitTokenOf). */
  secret: string;
  /** The HTTP 202 body of a new case at this service. */
  create(caseId: string): Record<string, unknown>;
  /** Called when a submit request arrives (before its body is read). */
  onSubmit: ((caseId: string) => void) | null;
  /** Called when a poll arrives. */
  onPoll: ((caseId: string) => void) | null;
  /** When set, a submit's answer (its body read) waits until the promise it returns settles. */
  beforeAnswer: ((caseId: string) => Promise<void>) | null;
  submits: number;
  polls: number;
  stop(): Promise<void>;
}

const PATH = /^\/cases\/([A-Za-z0-9_-]+)\/(status|submit)$/;

/** Starts the service on 127.0.0.1 and a free port. */
export async function startFastService(): Promise<FastService> {
  // Every case is pending until submitted; only submitted ones take memory.
  const cases = new Map<string, ServiceCase>();
  const pending = (): ServiceCase => ({ status: 'pending', version: 1 });
  const etag = (id: string, c: ServiceCase) => `"${id}-${c.version}"`;
  const service: FastService = {
    url: '',
    secret: randomBytes(16).toString('hex'),
    onSubmit: null,
    onPoll: null,
    beforeAnswer: null,
    submits: 0,
    polls: 0,
    create: (caseId) => hitlBody(service.url, service.secret, caseId),
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const m = PATH.exec(req.url ?? '');
    if (!m) {
      req.resume();
      return json(res, 404, { error: 'not_found' });
    }
    const id = m[1]!;
    const c = cases.get(id) ?? pending();
    if (m[2] === 'status') {
      service.polls++;
      service.onPoll?.(id);
      req.resume();
      const tag = etag(id, c);
      if (req.headers['if-none-match'] === tag) {
        res.writeHead(304, { etag: tag });
        return res.end();
      }
      return json(
        res,
        200,
        {
          status: c.status,
          case_id: id,
          ...(c.action
            ? { result: { action: c.action, data: {} }, completed_at: c.completedAt }
            : {}),
        },
        { etag: tag },
      );
    }
    service.onSubmit?.(id);
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const held = service.beforeAnswer?.(id);
      if (held) void held.then(answer, answer);
      else answer();
    });
    const answer = () => {
      service.submits++;
      if (req.method !== 'POST') return json(res, 405, { error: 'method_not_allowed' });
      if (req.headers.authorization !== `Bearer ${submitTokenOf(service.secret, id)}`)
        return json(res, 401, { error: 'invalid_token' });
      let body: { action?: unknown };
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return json(res, 400, { error: 'invalid_json' });
      }
      if (c.status !== 'pending') return json(res, 409, { error: 'case_closed', status: c.status });
      cases.set(id, c);
      c.status = 'completed';
      c.version++;
      c.action = String(body.action);
      c.completedAt = new Date().toISOString();
      json(res, 200, { status: 'completed', case_id: id, completed_at: c.completedAt });
    };
  };
  const server: Server = createServer(handle);
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  service.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return service;
}
