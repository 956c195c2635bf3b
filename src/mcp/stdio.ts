/**
 * The stdio way in (`hitl-relay mcp --relay URL`), for MCP clients that only spawn processes: a
 * bridge that forwards every JSON-RPC message between this process's stdin/stdout and the relay's
 * /mcp (Streamable HTTP, the API key from the environment). The relay serves the calls; the bridge
 * keeps nothing, so restarting it loses nothing but open calls (their asks stay; get_answer reads
 * them).
 */
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio';

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
  stdio.onmessage = (message) => {
    http.send(message).catch((err: Error) => {
      const why = `relay ${url.origin}: ${err.message}`;
      o.onError(why);
      // A request the relay refused (401, unreachable) is answered, so the client does not hang.
      if ('id' in message && 'method' in message)
        void stdio.send({ jsonrpc: '2.0', id: message.id, error: { code: -32000, message: why } });
    });
  };
  http.onmessage = (message) => {
    void stdio.send(message);
  };
  http.onerror = (err) => o.onError(`relay ${url.origin}: ${err.message}`);
  stdio.onerror = (err) => o.onError(`stdio: ${err.message}`);
  await http.start();
  await stdio.start();
  await closed;
  await http.close();
}
