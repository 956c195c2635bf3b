/**
 * How the gateway reaches one upstream: Streamable HTTP through the relay's guarded dispatcher
 * (the URL policy on every resolved address, no redirect followed, the configured headers added
 * only to requests for the upstream's own origin), or stdio (the SDK spawns the command with a
 * minimal inherited environment plus the configured one; its stderr is kept for the exit reason).
 */
import { type FetchLike, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import type { Transport } from '@modelcontextprotocol/server';
import { type Dispatcher, fetch as undiciFetch } from 'undici';
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
export function linkTo(u: McpUpstreamConfig, dispatcher: Dispatcher): UpstreamLink {
  return isHttpUpstream(u) ? httpLink(u, dispatcher) : stdioLink(u);
}

function httpLink(u: HttpUpstreamConfig, dispatcher: Dispatcher): UpstreamLink {
  return {
    transport: new StreamableHTTPClientTransport(new URL(u.url), {
      fetch: guardedFetch(u, dispatcher),
    }) as Transport,
    stderrTail: () => '',
  };
}

/**
 * The fetch of an HTTP upstream: only its own origin, its configured headers added, through the
 * guarded dispatcher, no redirect followed (the transport's, and the Tasks path's raw requests).
 */
export function guardedFetch(u: HttpUpstreamConfig, dispatcher: Dispatcher): FetchLike {
  const url = new URL(u.url);
  return async (to, init) => {
    const target = new URL(String(to));
    // The headers are the upstream's credentials: nothing else ever receives them.
    if (target.origin !== url.origin)
      throw new Error(`refused a request to ${target.origin}: only ${url.origin} is this upstream`);
    const headers = new Headers(init?.headers);
    for (const [k, v] of Object.entries(u.headers)) headers.set(k, v);
    const res = await undiciFetch(target, {
      ...(init as object),
      headers,
      redirect: 'manual',
      dispatcher,
    } as Parameters<typeof undiciFetch>[1]);
    if (res.status >= 300 && res.status < 400)
      throw new Error(`answered ${res.status} (a redirect): the gateway follows none`);
    return res as unknown as Response;
  };
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
