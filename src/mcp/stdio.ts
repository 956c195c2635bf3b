/**
 * The stdio way in (`hitl-relay mcp --relay URL`), for MCP clients that only spawn processes: a
 * bridge that forwards every JSON-RPC message between this process's stdin/stdout and the relay's
 * /mcp (Streamable HTTP, the API key from the environment). The relay serves the calls; the bridge
 * keeps nothing, so restarting it loses nothing but open calls (their asks stay; get_answer reads
 * them). One translation: on 2026-07-28 a stdio client cancels a call with notifications/cancelled,
 * where over HTTP the cancel is closing the call's stream; the bridge closes it (the relay then
 * withdraws the ask) instead of forwarding a notification no server instance could match.
 */
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { JSONRPCMessage } from '@modelcontextprotocol/server';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';

type Id = string | number;

/** The id of a 2026-07-28 request (it carries the revision's per-request envelope), else undefined. */
function modernRequestId(m: JSONRPCMessage): Id | undefined {
  if (!('id' in m) || !('method' in m)) return undefined;
  const meta = (m.params as { _meta?: Record<string, unknown> } | undefined)?._meta;
  return meta && 'io.modelcontextprotocol/protocolVersion' in meta ? m.id : undefined;
}

/** The request a notifications/cancelled names, else undefined. */
function cancelledId(m: JSONRPCMessage): Id | undefined {
  if ('id' in m || !('method' in m) || m.method !== 'notifications/cancelled') return undefined;
  return (m.params as { requestId?: Id } | undefined)?.requestId;
}

/** Where the bridge forwards to. */
export interface StdioBridgeOptions {
  /** The relay's base URL (http(s)://host:port). */
  relayUrl: string;
  /** RELAY_API_KEY of the relay, when it has one. */
  apiKey?: string | undefined;
  /** The connection's default target (`?target=` on /mcp). */
  target?: string | undefined;
  /** The relay's MCP endpoint to forward to (default /mcp; the gateway's is /mcp/gateway/<name>). */
  path?: string | undefined;
  /** Where errors of the bridge itself go (stderr: stdout carries the protocol). */
  onError: (message: string) => void;
}

/** Runs the bridge until stdin closes; resolves then. */
export async function runStdioBridge(o: StdioBridgeOptions): Promise<void> {
  const url = new URL(o.path ?? '/mcp', o.relayUrl);
  if (o.target) url.searchParams.set('target', o.target);
  const headers: Record<string, string> = o.apiKey ? { authorization: `Bearer ${o.apiKey}` } : {};
  const http = new StreamableHTTPClientTransport(url, { requestInit: { headers } });
  const stdio = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    stdio.onclose = () => resolve();
  });
  // The 2026-07-28 requests in flight, each with the signal that closes its HTTP stream.
  const streams = new Map<Id, AbortController>();
  stdio.onmessage = (message) => {
    const cancelled = cancelledId(message);
    const stream = cancelled === undefined ? undefined : streams.get(cancelled);
    if (stream && cancelled !== undefined) {
      streams.delete(cancelled);
      stream.abort('cancelled by the client');
      return;
    }
    const id = modernRequestId(message);
    const controller = id === undefined ? undefined : new AbortController();
    if (id !== undefined && controller) streams.set(id, controller);
    const options = controller ? { requestSignal: controller.signal } : undefined;
    http.send(message, options).catch((err: Error) => {
      if (controller?.signal.aborted) return;
      const why = `relay ${url.origin}: ${err.message}`;
      o.onError(why);
      // A request the relay refused (401, unreachable) is answered, so the client does not hang.
      if ('id' in message && 'method' in message)
        void stdio.send({ jsonrpc: '2.0', id: message.id, error: { code: -32000, message: why } });
    });
  };
  http.onmessage = (message) => {
    if ('id' in message && !('method' in message) && message.id !== undefined)
      streams.delete(message.id);
    void stdio.send(message);
  };
  http.onerror = (err) => o.onError(`relay ${url.origin}: ${err.message}`);
  stdio.onerror = (err) => o.onError(`stdio: ${err.message}`);
  await http.start();
  await stdio.start();
  await closed;
  await http.close();
}
