/**
 * How the gateway reaches one upstream: Streamable HTTP through the relay's guarded dispatcher
 * (the URL policy on every resolved address, no redirect followed, the configured headers added
 * only to requests for the upstream's own origin), or stdio (the SDK spawns the command with a
 * minimal inherited environment plus the configured one; its stderr is kept for the exit reason).
 */

import { Readable } from 'node:stream';
import { type FetchLike, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { Transport } from '@modelcontextprotocol/server';
import { type Dispatcher, request as undiciRequest } from 'undici';
import {
  type HttpUpstreamConfig,
  isHttpUpstream,
  type McpUpstreamConfig,
  type StdioUpstreamConfig,
} from '../config/mcp-upstreams.ts';

/** A fresh transport to the upstream, and the last lines its process wrote to stderr (stdio). */
export interface UpstreamLink {
  transport: Transport;
  /** The end of the child's stderr (stdio only), for the reason of an exit. */
  stderrTail(): string;
}

/** Opens a transport to `u` (not started: the SDK client starts it on connect). */
export function linkTo(
  u: McpUpstreamConfig,
  dispatcher: Dispatcher,
  replay?: Replay,
): UpstreamLink {
  return isHttpUpstream(u) ? httpLink(u, dispatcher, replay) : stdioLink(u);
}

/** An answer already received for the request body about to be sent (lean-call.ts hand-over). */
export type Replay = (body: string) => Response | undefined;

function httpLink(u: HttpUpstreamConfig, dispatcher: Dispatcher, replay?: Replay): UpstreamLink {
  return {
    transport: new StreamableHTTPClientTransport(new URL(u.url), {
      fetch: guardedFetch(u, dispatcher, replay),
    }) as Transport,
    stderrTail: () => '',
  };
}

/**
 * The fetch of an HTTP upstream: only its own origin, its configured headers added, through the
 * guarded dispatcher, no redirect followed (the transport's, and the Tasks path's raw requests).
 */
export function guardedFetch(
  u: HttpUpstreamConfig,
  dispatcher: Dispatcher,
  replay?: Replay,
): FetchLike {
  const url = new URL(u.url);
  return async (to, init) => {
    const replayed = replay && typeof init?.body === 'string' ? replay(init.body) : undefined;
    if (replayed) return replayed;
    const target = new URL(String(to));
    // The headers are the upstream's credentials: nothing else ever receives them.
    if (target.origin !== url.origin)
      throw new Error(`refused a request to ${target.origin}: only ${url.origin} is this upstream`);
    const headers = new Headers(init?.headers);
    for (const [k, v] of Object.entries(u.headers)) headers.set(k, v);
    const res = await lightFetch(target, init, headers, dispatcher);
    if (res.status >= 300 && res.status < 400)
      throw new Error(`answered ${res.status} (a redirect): the gateway follows none`);
    return res;
  };
}

/** An upstream's answer to a lean POST: its status, content type, and its text or event stream. */
export interface PostAnswer {
  status: number;
  type: string;
  text?: string;
  stream?: ReadableStream<Uint8Array>;
}

/** A POST of `body` to the upstream's own URL (lean-call.ts), with `headers` and its configured ones. */
export type GuardedPost = (
  body: string,
  headers: Record<string, string>,
  signal: AbortSignal,
) => Promise<PostAnswer>;

/**
 * guardedFetch's rules for the lean path's one request shape, without a web Headers or Response
 * either way: a POST to the upstream's own URL only (so its configured headers, added last, go
 * nowhere else), through the guarded dispatcher (the URL policy on every address, keep-alive
 * connections per origin), no redirect followed. A JSON answer is read as text once; only an
 * event stream stays a stream. Failures are fetch's (`fetch failed`, cause).
 */
export function guardedPost(u: HttpUpstreamConfig, dispatcher: Dispatcher): GuardedPost {
  const url = new URL(u.url);
  const own = Object.entries(u.headers).map(([k, v]) => [k.toLowerCase(), v] as const);
  return async (body, headers, signal) => {
    const all: Record<string, string> = { ...headers };
    for (const [k, v] of own) all[k] = v;
    const to = { origin: url.origin, path: url.pathname + url.search, method: 'POST' as const };
    let answer: PostAnswer;
    try {
      const res = await dispatcher.request({ ...to, headers: all, body, signal });
      const status = res.statusCode;
      const raw = res.headers['content-type'];
      const type = (Array.isArray(raw) ? raw.join(', ') : raw) ?? '';
      if (status === 200 && /^\s*text\/event-stream/i.test(type))
        return { status, type, stream: Readable.toWeb(res.body) as unknown as ReadableStream };
      answer = { status, type, text: await res.body.text() };
    } catch (err) {
      if (signal.aborted) throw signal.reason ?? err;
      throw new TypeError('fetch failed', { cause: err });
    }
    if (answer.status >= 300 && answer.status < 400)
      throw new Error(`answered ${answer.status} (a redirect): the gateway follows none`);
    return answer;
  };
}

/** Statuses a Response carries no body with. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * One HTTP exchange as fetch answers it, through undici's plain request: a JSON answer is read
 * whole and handed over as a string Response (undici's fetch built a web Request, a web body
 * stream and its transfer machinery per call: most of the gateway's upstream cost); only an event
 * stream stays a stream. No redirect is followed; failures are fetch's (`fetch failed`, cause).
 */
async function lightFetch(
  target: URL,
  init: RequestInit | undefined,
  headers: Headers,
  dispatcher: Dispatcher,
): Promise<Response> {
  const signal = init?.signal ?? undefined;
  try {
    const res = await undiciRequest(target, {
      dispatcher,
      method: (init?.method ?? 'GET') as Dispatcher.HttpMethod,
      headers: Object.fromEntries(headers),
      body: init?.body as string | undefined,
      ...(signal && { signal }),
    });
    const out = new Headers();
    for (const [k, v] of Object.entries(res.headers))
      for (const one of Array.isArray(v) ? v : v === undefined ? [] : [v]) out.append(k, one);
    const status = res.statusCode;
    const type = out.get('content-type') ?? '';
    let body: BodyInit | null = null;
    if (NULL_BODY.has(status)) await res.body.dump();
    else if (/^\s*text\/event-stream/i.test(type))
      body = Readable.toWeb(res.body) as unknown as ReadableStream;
    else body = await res.body.text();
    return new Response(body, { status, headers: out });
  } catch (err) {
    if (signal?.aborted) throw signal.reason ?? err;
    throw new TypeError('fetch failed', { cause: err });
  }
}

/** How much of a child's stderr is kept (the end: where the reason of an exit is). */
const STDERR_TAIL = 2000;

function stdioLink(u: StdioUpstreamConfig): UpstreamLink {
  const transport = new StdioClientTransport({
    command: u.command,
    args: u.args,
    env: { ...getDefaultEnvironment(), ...u.env },
    stderr: 'pipe',
    ...(u.cwd !== undefined && { cwd: u.cwd }),
  });
  let tail = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-STDERR_TAIL);
  });
  return { transport, stderrTail: () => tail };
}
