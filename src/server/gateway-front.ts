/**
 * The gateway's lean pass-through below the web layer: a POST to /mcp/gateway/<name> is served on
 * node:http's IncomingMessage and ServerResponse (no web Request nor Response, no hono dispatch)
 * when every rule the app applies to that route holds, checked as the app checks it, and the call
 * takes the lean path (mcp-gateway/lean-call.ts). Anything else goes to the app's own listener:
 * a rule that would refuse (so every refusal is the app's own answer), a body that is not a lean
 * call, a lean call handed over to the SDK path (left for the route: gateway-routes.ts). A body
 * read here goes on as `rawBody`, which @hono/node-server reads instead of the socket.
 *
 * The rules, in the app's order (server/app.ts `guard`, then the route): the body limit (only a
 * Content-Length within MAX_BODY_BYTES here; a chunked body goes to the app), not shutting down,
 * the local default's Host rule (loopback-host.ts), the API key (bearer-auth.ts), a JSON
 * Content-Type (inbound.ts and the SDK's), the route's Host and Origin checks in the local default.
 * A request with a header sent twice, a query string or an unusual Host goes to the app too.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import {
  DEFAULT_MAX_REQUEST_BODY_SIZE,
  isJsonContentType,
  validateHostHeader,
  validateOriginHeader,
} from '@modelcontextprotocol/server';
import type { RelayConfig } from '../config/config.ts';
import type { Logger } from '../log.ts';
import type { McpGateway } from '../mcp-gateway/gateway.ts';
import { toApiError } from './api-error.ts';
import { MAX_BODY_BYTES } from './app.ts';
import { apiKeyCheck } from './bearer-auth.ts';
import { GATEWAY_PATH, gatewayAllowed, leaveHandover } from './gateway-routes.ts';
import { INBOUND_BODY_TYPES } from './inbound.ts';
import { isLocalOnly, loopbackHostServed } from './loopback-host.ts';

/** A node:http request listener (the app's, from @hono/node-server). */
export type NodeListener = (req: IncomingMessage, res: ServerResponse) => void;
/** Serves a request, or hands it to `next`. */
export type FrontHandler = (req: IncomingMessage, res: ServerResponse, next: NodeListener) => void;

/** What the front needs. */
export interface GatewayFrontOptions {
  gateway: McpGateway;
  config: Pick<RelayConfig, 'apiKey' | 'namedApiKeys' | 'host' | 'publicUrl'>;
  /** True once shutdown began (the app then refuses POSTs: they go to it). */
  closing: () => boolean;
  log: Logger;
}

const PREFIX = `${GATEWAY_PATH}/`;
const NAME = /^[A-Za-z0-9_-]{1,64}$/;
/** Hosts @hono/node-server takes as they are (its `reValidHost`): the URL is then plain text. */
const PLAIN_HOST = /^[a-z0-9._-]+(?::(?:[1-5]\d{3,4}|[6-9]\d{3}))?$/;
const LENGTH = /^[1-9]\d{0,7}$/;
const LIMIT = Math.min(MAX_BODY_BYTES, DEFAULT_MAX_REQUEST_BODY_SIZE);
const JSON_TYPE = INBOUND_BODY_TYPES[0]!;

/** The front for `gateway`'s lean calls. */
export function gatewayFront(o: GatewayFrontOptions): FrontHandler {
  const check = apiKeyCheck(o.config.apiKey, o.config.namedApiKeys);
  const localOnly = isLocalOnly(o.config);
  const extra = o.config.publicUrl ? new URL(o.config.publicUrl).hostname.toLowerCase() : undefined;
  const { hosts, origins } = gatewayAllowed(o.config.publicUrl);
  /** The upstream's name and the caller's key name, when every rule holds (see above). */
  const admits = (req: IncomingMessage) => {
    const url = req.url ?? '';
    if (req.method !== 'POST' || !url.startsWith(PREFIX)) return undefined;
    const name = url.slice(PREFIX.length);
    if (!NAME.test(name) || !o.gateway.upstream(name)) return undefined;
    const h = req.headers;
    // A header sent twice is read one way here and another there: the app judges it.
    if (req.rawHeaders.length !== 2 * Object.keys(h).length) return undefined;
    const length = h['content-length'];
    if (h['transfer-encoding'] !== undefined || !length || !LENGTH.test(length)) return undefined;
    if (Number(length) > LIMIT || o.closing()) return undefined;
    const host = h.host;
    if (!host || !PLAIN_HOST.test(host)) return undefined;
    if (localOnly && !loopbackHostServed(host, extra)) return undefined;
    const key = check(h.authorization);
    const type = h['content-type'];
    if (!key || !type || !JSON_TYPE.test(type) || !isJsonContentType(type)) return undefined;
    if (localOnly && !validateHostHeader(host, hosts).ok) return undefined;
    if (localOnly && !validateOriginHeader(h.origin, origins).ok) return undefined;
    const origin = originOf((req.socket as { encrypted?: boolean }).encrypted, host);
    return origin ? { name, keyName: key.name, origin } : undefined;
  };
  return (req, res, next) => {
    const admitted = admits(req);
    if (!admitted) return next(req, res);
    serveLean(o, admitted, req, res, next).catch((err: Error) => failed(o.log, res, err));
  };
}

const origins = new Map<string, string | undefined>();
/** Where the client reached the relay, as the route reads it (`new URL(c.req.url).origin`). */
function originOf(encrypted: boolean | undefined, host: string): string | undefined {
  const at = `${encrypted ? 'https' : 'http'}://${host}`;
  if (origins.has(at)) return origins.get(at);
  let origin: string | undefined;
  try {
    origin = new URL(at).origin;
  } catch {
    origin = undefined;
  }
  if (origins.size < 64) origins.set(at, origin);
  return origin;
}

/** A server whose requests meet `front` first (@hono/node-server's `createServer` option). */
export function frontedServer(front: FrontHandler): typeof createServer {
  return ((options: object, listener: NodeListener) =>
    createServer(options, (req, res) => front(req, res, listener))) as typeof createServer;
}

type Admitted = { name: string; keyName: string | null; origin: string };

async function serveLean(
  o: GatewayFrontOptions,
  a: Admitted,
  req: IncomingMessage,
  res: ServerResponse,
  next: NodeListener,
): Promise<void> {
  const raw = await bodyOf(req);
  if (!raw) return void res.destroy();
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    return onward(req, res, next, raw);
  }
  const who = { keyName: a.keyName, origin: a.origin };
  const aborts = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) aborts.abort(new Error('the client closed the connection'));
  });
  const header = (n: string) => {
    const v = req.headers[n];
    return typeof v === 'string' ? v : undefined;
  };
  const run = o.gateway.passThrough(a.name, header, body, who, aborts.signal);
  if (!run) return onward(req, res, next, raw);
  const answer = await run;
  if ('handover' in answer) {
    leaveHandover(req, answer);
    return onward(req, res, next, raw);
  }
  const length = Buffer.byteLength(answer.text);
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': length });
  res.end(answer.text);
}

/** The app's listener, with the body already read. */
function onward(req: IncomingMessage, res: ServerResponse, next: NodeListener, raw: Buffer) {
  (req as IncomingMessage & { rawBody?: Buffer }).rawBody = raw;
  next(req, res);
}

/** The whole body (Node's parser reads exactly Content-Length bytes); undefined when it broke. */
function bodyOf(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.once('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
    req.once('error', () => resolve(undefined));
  });
}

/** An error the lean path threw, answered as the app's error handler answers it. */
function failed(log: Logger, res: ServerResponse, err: Error): void {
  const e = toApiError(err, log, GATEWAY_PATH);
  if (res.headersSent) return void res.destroy();
  if (e instanceof Response) {
    res.writeHead(e.status, { 'content-type': e.headers.get('content-type') ?? 'text/plain' });
    void e.text().then((t) => res.end(t));
    return;
  }
  const text = JSON.stringify(e.body());
  res.writeHead(e.status, { ...e.headers, 'content-type': 'application/json' });
  res.end(text);
}
