/**
 * How the Tasks path (upstream-tasks.ts) sends its own JSON-RPC requests upstream: the SDK client
 * (2.4) refuses a `resultType: "task"` answer, so tools/call and tasks/* go around it. Over
 * Streamable HTTP each request is a POST of its own through the upstream's guarded fetch (its
 * origin only, its headers, no redirect), the answer read from a JSON body or an SSE stream. Over
 * stdio the requests are written to the child's stdin beside the SDK client's, with ids of their
 * own (`gw-task-<n>`), and their answers taken off the child's stdout before the SDK client sees
 * them; everything else the child writes goes on to the SDK client as before. A
 * `notifications/tasks` the upstream sends (on a stdio child's stdout, on an HTTP listen stream or
 * beside an answer of the Tasks path) wakes the follow of its task at once (TaskWakes).
 */
import type { FetchLike } from '@modelcontextprotocol/client';
import {
  type JSONRPCMessage,
  ProtocolError,
  ProtocolErrorCode,
  type Transport,
} from '@modelcontextprotocol/server';

type Json = Record<string, unknown>;

/** One JSON-RPC request of the Tasks path. */
export interface RpcRequest {
  jsonrpc: '2.0';
  id: string;
  method: string;
  params: Json;
}

/** Sends `message` upstream; resolves with the JSON-RPC answer to it (a result or an error). */
export type Exchange = (message: RpcRequest, signal: AbortSignal) => Promise<Json>;

export const REVISION = '2026-07-28';

let sent = 0;
/** A request id no other request of this process has (stdio: one stream for all calls). */
export const taskRequestId = () => `gw-task-${++sent}`;

/**
 * Who waits for news of which upstream task: a `notifications/tasks` (the extension's status
 * notification, a DetailedTask as its params) for that task wakes them.
 */
export class TaskWakes {
  private readonly waiting = new Map<string, Set<() => void>>();

  /** Calls `wake` on each notification for `taskId`, until the returned function is called. */
  on(taskId: string, wake: () => void): () => void {
    const set = this.waiting.get(taskId) ?? new Set();
    set.add(wake);
    this.waiting.set(taskId, set);
    return () => {
      set.delete(wake);
      if (set.size === 0 && this.waiting.get(taskId) === set) this.waiting.delete(taskId);
    };
  }

  /** Takes one notification of the upstream: true when it was a task's (nothing else wants it). */
  notified(n: { method?: unknown; params?: unknown }): boolean {
    if (n.method !== 'notifications/tasks') return false;
    const id = (n.params as { taskId?: unknown } | undefined)?.taskId;
    if (typeof id === 'string') for (const wake of this.waiting.get(id) ?? []) wake();
    return true;
  }
}

/** The Tasks path's exchange with an HTTP upstream: one POST per request. */
export function httpExchange(
  upstream: string,
  url: string,
  fetch: FetchLike,
  wakes?: TaskWakes,
): Exchange {
  return async (message, signal) => {
    const p = message.params;
    const name = message.method === 'tools/call' ? p.name : p.taskId;
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': REVISION,
        'mcp-method': message.method,
        ...(typeof name === 'string' && { 'mcp-name': name }),
      },
      body: JSON.stringify(message),
      signal,
    });
    return await answerOf(upstream, res, message.id, wakes);
  };
}

/** The answer to request `id`, from a JSON body or an SSE stream. */
async function answerOf(
  upstream: string,
  res: Response,
  id: string,
  wakes?: TaskWakes,
): Promise<Json> {
  const text = await res.text();
  const sse = (res.headers.get('content-type') ?? '').includes('text/event-stream');
  const messages = sse
    ? text
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => parsed(l.slice(5)))
    : [parsed(text)];
  for (const m of messages) if (m && m.id === undefined) wakes?.notified(m);
  const answer = messages.find((m) => m?.id === id);
  if (answer) return answer;
  throw new ProtocolError(
    ProtocolErrorCode.InternalError,
    `upstream MCP server "${upstream}" answered HTTP ${res.status} without a JSON-RPC answer`,
  );
}

function parsed(text: string): Json | undefined {
  try {
    return JSON.parse(text) as Json;
  } catch {
    return undefined;
  }
}

/**
 * Taps the stdio transport `t` after the SDK client connected it (the client's handlers are set
 * by then): answers to the Tasks path's requests are taken off, the rest reaches the client.
 * When the transport closes, every request still waiting fails with `closed()`'s error.
 */
export function tapStdio(t: Transport, closed: () => Error): Exchange {
  const waiting = new Map<string, (answer: Json | Error) => void>();
  const theirs = t.onmessage;
  t.onmessage = (m, extra) => {
    const id = (m as { id?: unknown }).id;
    const mine = typeof id === 'string' && !('method' in m) ? waiting.get(id) : undefined;
    if (!mine) return theirs?.(m, extra);
    waiting.delete(id as string);
    mine(m as Json);
  };
  const theirClose = t.onclose;
  t.onclose = () => {
    const gone = closed();
    for (const w of waiting.values()) w(gone);
    waiting.clear();
    theirClose?.();
  };
  return (message, signal) =>
    new Promise<Json>((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const settle = (answer: Json | Error) => {
        signal.removeEventListener('abort', stop);
        if (answer instanceof Error) reject(answer);
        else resolve(answer);
      };
      // The request is given up: the child is told, as the SDK client tells it of its own.
      function stop() {
        waiting.delete(message.id);
        const params = { requestId: message.id, reason: 'the gateway stopped waiting' };
        const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params } as const;
        void t.send(cancel as JSONRPCMessage).catch(() => undefined);
        reject(signal.reason);
      }
      signal.addEventListener('abort', stop, { once: true });
      waiting.set(message.id, settle);
      t.send(message as unknown as JSONRPCMessage).catch((err: unknown) => {
        waiting.delete(message.id);
        settle(err instanceof Error ? err : new Error(String(err)));
      });
    });
}
