/**
 * A pass-through proxy in front of the demo service that can hold a submit at a chosen step, so a
 * crash test can kill the relay exactly there: `hold` keeps the submit from ever reaching the
 * service; `land` lets the service accept it but never answers the relay; `pass` forwards both
 * ways. Polls always pass through.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';

/** What the proxy does with the submit of one case. */
export type SubmitMode = 'pass' | 'hold' | 'land';

/** A running proxy. */
export interface ServiceProxy {
  url: string;
  /** Sets how submits of `caseId` are treated (default pass). */
  mode(caseId: string, mode: SubmitMode): void;
  /** Submits seen per case, and how far each got. */
  submits(caseId: string): Array<'held' | 'forwarded' | 'landed'>;
  /** Rewrites a 202 body of the service so every URL goes through the proxy. */
  wrap(body: Record<string, any>): Record<string, any>;
  close(): Promise<void>;
}

const RESPOND = /\/api\/reviews\/([A-Za-z0-9_-]+)\/respond$/;

/** Starts a proxy to `serviceOrigin` (e.g. http://127.0.0.1:40000). */
export async function startServiceProxy(serviceOrigin: string): Promise<ServiceProxy> {
  const modes = new Map<string, SubmitMode>();
  const seen = new Map<string, Array<'held' | 'forwarded' | 'landed'>>();
  const note = (id: string, step: 'held' | 'forwarded' | 'landed') =>
    seen.set(id, [...(seen.get(id) ?? []), step]);

  async function forward(req: IncomingMessage, body: Buffer) {
    const headers: Record<string, string> = {};
    for (const h of ['authorization', 'content-type', 'accept', 'if-none-match']) {
      const v = req.headers[h];
      if (typeof v === 'string') headers[h] = v;
    }
    const res = await request(`${serviceOrigin}${req.url}`, {
      method: (req.method ?? 'GET') as 'GET' | 'POST',
      headers,
      ...(body.length ? { body } : {}),
    });
    return {
      status: res.statusCode,
      headers: res.headers,
      body: Buffer.from(await res.body.arrayBuffer()),
    };
  }

  async function serve(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const id =
      req.method === 'POST' ? RESPOND.exec((req.url ?? '').split('?')[0]!)?.[1] : undefined;
    const mode = id ? (modes.get(id) ?? 'pass') : 'pass';
    if (id && mode === 'hold') return note(id, 'held'); // never forwarded, never answered
    if (id) note(id, 'forwarded');
    // Not aborted when the relay goes away: the service finishes what it was sent.
    const answer = await forward(req, body);
    if (id && answer.status === 200) note(id, 'landed');
    if (id && mode === 'land') return; // accepted by the service, the answer never reaches the relay
    const out: Record<string, string> = {};
    for (const h of ['content-type', 'retry-after', 'etag']) {
      const v = answer.headers[h];
      if (typeof v === 'string') out[h] = v;
    }
    res.writeHead(answer.status, out).end(answer.body);
  }

  const server = createServer((req, res) => {
    serve(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(502).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    mode: (id, m) => void modes.set(id, m),
    submits: (id) => seen.get(id) ?? [],
    wrap(body) {
      const copy = structuredClone(body);
      for (const f of ['review_url', 'poll_url', 'submit_url'])
        if (copy.hitl[f]) copy.hitl[f] = copy.hitl[f].replace(serviceOrigin, url);
      delete copy.hitl.events_url;
      return copy;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
