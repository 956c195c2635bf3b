/**
 * The lean path's wait (mcp/lean-call.ts): an ask tool called by a 2026-07-28 client without the
 * Tasks extension waits for the person as under the SDK (tools.ts waitForPerson: the same waits,
 * progress lines, legacy cancel tracking and withdraw-on-cancel) and is answered as the SDK's
 * per-request Streamable HTTP transport answers it. With a progress token: at once a 200
 * text/event-stream (its headers), an `event: message` frame per progress notification, a
 * `: keepalive` comment every 15 s, the result's frame, then the end of the stream. Without one:
 * nothing until the person answers, then the result as application/json. Closing the response
 * stream (or the request) cancels the call; a call the relay ends (it stops) writes nothing.
 */
import type { StoredCase } from '../store/types.ts';
import { type CallWire, type McpCall, waitForPerson } from './tools.ts';

type Msg = Record<string, unknown>;

/** What serving a lean call needs of the front. */
export interface LeanServing {
  serverInfo: { name: string; version: string };
  /** The HTTP request's signal: the client closed the response stream. */
  signal: AbortSignal;
  /** The lean calls waiting for a person (the relay ends them when it stops). */
  open: Set<AbortController>;
  /** Counts the call as served by the lean path (its arguments were accepted). */
  taken: () => void;
}

/** The call's JSON-RPC id and the client's progress token, if it gave one. */
type Planned = { id: string | number; progressToken: string | number | undefined };

/** As the SDK's McpServer answers a tool handler that throws. */
export function thrown(err: unknown): Msg {
  const text = err instanceof Error ? err.message : String(err);
  return { content: [{ type: 'text', text }], isError: true };
}

/** The SDK's SSE keep-alive interval (DEFAULT_SSE_KEEP_ALIVE_MS). */
export const KEEP_ALIVE_MS = 15_000;

/** The headers the SDK's per-request transport gives a call's SSE stream. */
const SSE_HEADERS = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache, no-transform',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
};

const frame = (message: unknown) => `event: message\ndata: ${JSON.stringify(message)}\n\n`;

/** Waits for the person on the planned call's own stream (see above). */
export async function leanWait(
  call: McpCall,
  c: StoredCase,
  plan: Planned,
  o: LeanServing,
  answer: (result: Msg) => Msg,
): Promise<Response> {
  const ended = new AbortController();
  const onAbort = () => ended.abort();
  o.signal.addEventListener('abort', onAbort, { once: true });
  if (o.signal.aborted) ended.abort();
  o.open.add(ended);
  const done = () => {
    o.open.delete(ended);
    o.signal.removeEventListener('abort', onAbort);
  };
  const wait = (wire: CallWire) =>
    waitForPerson(call, c, wire).then(
      (r) => r as Msg,
      (err: unknown) => thrown(err),
    );
  if (plan.progressToken === undefined) {
    const result = await wait({
      id: plan.id,
      signal: ended.signal,
      progressToken: undefined,
      notify: () => undefined,
    });
    done();
    // As the SDK answers a request whose connection closed before its response.
    if (ended.signal.aborted) return new Response(null, { status: 499 });
    return Response.json(answer(result));
  }
  return sseWait(plan, ended, done, wait, answer);
}

/** The progress-mode answer: the SSE stream, written as the SDK's transport writes it. */
function sseWait(
  plan: Planned,
  ended: AbortController,
  done: () => void,
  wait: (wire: CallWire) => Promise<Msg>,
  answer: (result: Msg) => Msg,
): Response {
  const encoder = new TextEncoder();
  let out!: ReadableStreamDefaultController<Uint8Array>;
  let closed = false;
  const write = (text: string) => {
    if (closed) return;
    try {
      out.enqueue(encoder.encode(text));
    } catch {
      // The stream is gone (the client closed it): the cancel below ends the wait.
    }
  };
  const body = new ReadableStream<Uint8Array>({
    start: (controller) => {
      out = controller;
    },
    cancel: () => {
      closed = true;
      ended.abort();
    },
  });
  const keepAlive = setInterval(() => write(': keepalive\n\n'), KEEP_ALIVE_MS);
  keepAlive.unref();
  const finish = (result: Msg) => {
    clearInterval(keepAlive);
    if (!ended.signal.aborted) write(frame(answer(result)));
    done();
    if (closed) return;
    closed = true;
    try {
      out.close();
    } catch {
      // Already cancelled.
    }
  };
  void wait({
    id: plan.id,
    signal: ended.signal,
    progressToken: plan.progressToken,
    notify: (n) => write(frame({ jsonrpc: '2.0', ...n })),
  }).then(finish);
  return new Response(body, { status: 200, headers: SSE_HEADERS });
}
