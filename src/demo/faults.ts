/** Injected faults: the next N requests to a route get a broken answer, so clients can be tested. */
import type { ServerResponse } from 'node:http';
import type { Context } from 'hono';
import type { FaultInjector, FaultOutcome } from '../hitl-service/context.ts';
import type { Fault, FaultRoute } from '../hitl-service/types.ts';

const PARTIAL_JSON = '{"status":"completed","case_id":"review_';

/** The queue of injected faults per route (the demo's test controls fill it). */
export class FaultQueue implements FaultInjector {
  private readonly queue = new Map<FaultRoute, Fault[]>();

  /** Queues a fault for the next `count` requests to its route. */
  inject(fault: Fault): void {
    const list = this.queue.get(fault.route) ?? [];
    list.push({ ...fault });
    this.queue.set(fault.route, list);
  }

  /** Takes one use of the first fault queued for `route`, if any. */
  take(route: FaultRoute): Fault | undefined {
    const list = this.queue.get(route);
    const fault = list?.[0];
    if (!list || !fault) return undefined;
    fault.count -= 1;
    if (fault.count <= 0) list.shift();
    return fault;
  }

  /** Applies the next fault for `route` to this request, or returns undefined when none is queued. */
  async apply(c: Context, route: FaultRoute): Promise<FaultOutcome | undefined> {
    const fault = this.take(route);
    if (!fault) return undefined;
    const response =
      route === 'events' ? await brokenStream(c, fault) : await faultResponse(c, fault);
    return { kind: fault.kind, response };
  }
}

/** For a stream, "broken" means half an event and then the end of the stream. */
async function brokenStream(c: Context, fault: Fault): Promise<Response | null> {
  if (fault.kind === 'truncated' || fault.kind === 'malformed_json')
    return c.body('event: review.completed\ndata: {"case_id":"review_', 200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
    });
  return faultResponse(c, fault);
}

/** The broken answer for `fault`, or null when the request should go on (after `slow`'s delay). */
export async function faultResponse(c: Context, fault: Fault): Promise<Response | null> {
  const json = { 'content-type': 'application/json' };
  switch (fault.kind) {
    case 'slow':
      await new Promise((resolve) => setTimeout(resolve, fault.delay_ms ?? 2_000));
      return null;
    case '500':
      return new Response(JSON.stringify({ error: 'internal_error', message: 'Injected fault' }), {
        status: 500,
        headers: json,
      });
    case '503':
      return new Response(JSON.stringify({ error: 'unavailable', message: 'Injected fault' }), {
        status: 503,
        headers: { ...json, 'retry-after': '1' },
      });
    case '429':
    case '429_no_retry_after': {
      const headers: Record<string, string> = { ...json };
      if (fault.kind === '429') headers['retry-after'] = '1';
      const body = { error: 'rate_limited', message: 'Injected fault' };
      return new Response(JSON.stringify(body), { status: 429, headers });
    }
    case 'malformed_json':
      return new Response(PARTIAL_JSON, { status: 200, headers: json });
    case 'wrong_content_type':
      return new Response('<html><body><h1>Service maintenance</h1></body></html>', {
        status: 200,
        headers: { 'content-type': 'text/html; charset=utf-8' },
      });
    case 'truncated':
      return truncate(c);
    case 'reset':
      return reset(c);
  }
}

/** The Node response under @hono/node-server, when there is one (not under `app.request`). */
function nodeResponse(c: Context): ServerResponse | undefined {
  const env = c.env as { outgoing?: ServerResponse } | undefined;
  const out = env?.outgoing;
  return out && typeof out.writeHead === 'function' ? out : undefined;
}

/**
 * Announces a full JSON body (Content-Length), sends the first half, then ends the connection. The
 * socket is ended only once the headers and the half are written, so the client really sees a cut body.
 */
function truncate(c: Context): Response {
  const full = `${PARTIAL_JSON}0123456789abcdef","completed_at":"2026-01-01T00:00:00Z"}`;
  const out = nodeResponse(c);
  if (!out)
    return new Response(PARTIAL_JSON, {
      status: 200,
      headers: { 'content-type': 'application/json' },
    });
  let started = false;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(new TextEncoder().encode(PARTIAL_JSON));
        return;
      }
      const timer = setInterval(() => {
        if (!out.headersSent) return;
        clearInterval(timer);
        out.socket?.end();
      }, 5);
      // No more data ever: the stream is cancelled when the socket closes.
      return new Promise<void>(() => {});
    },
  });
  return new Response(body, {
    status: 200,
    headers: {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(full)),
    },
  });
}

/**
 * Drops the connection without any answer (a TCP reset where the platform allows it). The Response
 * returned is never delivered: Node discards writes to a destroyed socket.
 */
function reset(c: Context): Response {
  const out = nodeResponse(c);
  if (!out) throw new Error('connection reset (injected fault)');
  const socket = out.socket;
  if (socket && typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
  else socket?.destroy();
  return new Response(null, { status: 500 });
}
