/**
 * One connection to a case's events_url (spec 8.5): GET with `Accept: text/event-stream` and
 * `Last-Event-ID`, read with eventsource-parser, each complete event handed on in order. Never
 * throws: every way a connection can end is a result the caller turns into "reconnect" or "give up".
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { type Dispatcher, request } from 'undici';
import { retryAfterMs } from '../net/http.ts';

const POLICY_REFUSED = 'events_url refused by the URL policy';

/** One complete SSE event. */
export interface StreamEvent {
  id: string | undefined;
  event: string;
  data: string;
}

/** How to open and read one connection. */
export interface ConnectOptions {
  dispatcher: Dispatcher;
  /** The case's credentials for its service (only ever for the case's own origin). */
  headers?: Record<string, string>;
  lastEventId: string | null;
  signal: AbortSignal;
  /** Connect and answer within this long. */
  headersTimeoutMs: number;
  /** No byte for this long (not even a keep-alive comment) means the connection is dead. */
  idleTimeoutMs: number;
  /** Largest event (and unterminated line) held in memory; a bigger one ends the connection. */
  maxEventChars: number;
  /** The stream is open (200 text/event-stream). */
  onOpen(): void | Promise<void>;
  /** Handles one event; 'stop' ends the connection (a terminal event was handled). */
  onEvent(e: StreamEvent): Promise<'continue' | 'stop'>;
  now(): number;
}

/** How a connection ended. */
export interface ConnectResult {
  /** The stream was open (200 text/event-stream) at some point. */
  opened: boolean;
  /** Complete events handled. */
  events: number;
  /** Ended by onEvent's 'stop' or by the abort signal: nothing to reconnect. */
  stopped: boolean;
  /** The service said not to come back (204, 4xx other than 408/429, a redirect). */
  permanent: boolean;
  /** Why it ended, for logs and history; never carries the URL or a header. */
  reason: string;
  /** The service's wish for the next attempt (SSE `retry:` or Retry-After). */
  retryMs?: number;
}

type StreamResponse = Awaited<ReturnType<typeof request>>;

/** Opens events_url once and reads it until it ends. */
export async function connectOnce(url: string, o: ConnectOptions): Promise<ConnectResult> {
  const headers: Record<string, string> = {
    ...o.headers,
    accept: 'text/event-stream',
    'cache-control': 'no-cache',
  };
  if (o.lastEventId !== null) headers['last-event-id'] = o.lastEventId;
  const result: ConnectResult = {
    opened: false,
    events: 0,
    stopped: false,
    permanent: false,
    reason: '',
  };
  let res: StreamResponse;
  try {
    res = await request(url, {
      method: 'GET',
      headers,
      dispatcher: o.dispatcher,
      signal: o.signal,
      headersTimeout: o.headersTimeoutMs,
      bodyTimeout: o.idleTimeoutMs,
      maxRedirections: 0,
    } as Parameters<typeof request>[1]);
  } catch (err) {
    const reason = describe(err);
    result.permanent = reason === POLICY_REFUSED;
    return ended(result, o.signal, reason);
  }
  if (await refused(res, o, result)) return result;
  result.opened = true;
  await o.onOpen();
  return readEvents(res, o, result);
}

/** True (with `result` filled in) when the answer is not an event stream. */
async function refused(res: StreamResponse, o: ConnectOptions, result: ConnectResult) {
  const type = String(res.headers['content-type'] ?? '');
  if (res.statusCode === 200 && /^text\/event-stream\b/i.test(type)) return false;
  await res.body.dump().catch(() => {});
  const code = res.statusCode;
  result.reason =
    code === 200
      ? `events answered with content-type ${type || 'none'}`
      : `events answered ${code}`;
  // SSE (WHATWG) treats 204 as "do not reconnect"; a 4xx will not change on retry; redirects are not followed.
  result.permanent = code === 204 || (code >= 300 && code < 500 && code !== 408 && code !== 429);
  const retry = retryAfterMs(headerText(res.headers['retry-after']), o.now());
  if (retry !== undefined) result.retryMs = retry;
  return true;
}

/** Reads the open stream, handing each complete event over until it ends or is stopped. */
async function readEvents(
  res: StreamResponse,
  o: ConnectOptions,
  result: ConnectResult,
): Promise<ConnectResult> {
  const queue: StreamEvent[] = [];
  let overflow = false;
  const parser = createParser({
    maxBufferSize: o.maxEventChars,
    onEvent: (m: EventSourceMessage) =>
      void queue.push({ id: m.id, event: m.event ?? 'message', data: m.data }),
    onRetry: (ms) => {
      result.retryMs = ms;
    },
    onError: (err) => {
      if (err.type === 'max-buffer-size-exceeded') overflow = true;
    },
  });
  try {
    for await (const text of sseText(res.body)) {
      parser.feed(text);
      if (overflow) {
        res.body.destroy();
        result.reason = `an event larger than ${o.maxEventChars} characters`;
        return result;
      }
      while (queue.length) {
        const e = queue.shift()!;
        result.events++;
        if ((await o.onEvent(e)) === 'stop') {
          res.body.destroy();
          result.stopped = true;
          result.reason = 'terminal event';
          return result;
        }
      }
    }
  } catch (err) {
    res.body.destroy();
    return ended(result, o.signal, describe(err));
  }
  // An event cut off by the end of the stream is discarded, as SSE says (no blank line, no event).
  result.reason = 'the service ended the stream';
  return ended(result, o.signal, result.reason);
}

/**
 * The stream's text, piece by piece, no piece but the last ending in a CR: eventsource-parser 3
 * drops an event when a chunk ends in the second CR of a CR-only blank line and the stream goes on
 * without a line end (fixed in 4.x, which needs Node 22), so a trailing CR goes with the next piece.
 */
async function* sseText(body: AsyncIterable<unknown>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let cr = '';
  for await (const chunk of body) {
    const text = cr + decoder.decode(chunk as Buffer, { stream: true });
    cr = text.endsWith('\r') ? '\r' : '';
    const piece = cr ? text.slice(0, -1) : text;
    if (piece) yield piece;
  }
  if (cr) yield cr;
}

function ended(result: ConnectResult, signal: AbortSignal, reason: string): ConnectResult {
  result.stopped = result.stopped || signal.aborted;
  result.reason = signal.aborted ? 'stopped' : reason;
  return result;
}

function headerText(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

/** A short reason without the URL (which may carry a token) or any header. */
function describe(err: unknown): string {
  const e = err as { code?: string; name?: string; cause?: { code?: string } };
  const code = e.code ?? e.cause?.code ?? e.name ?? 'unknown';
  if (code === 'EPOLICY') return POLICY_REFUSED;
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_CONNECT_TIMEOUT')
    return 'the service did not answer in time';
  if (code === 'UND_ERR_BODY_TIMEOUT') return 'the stream was idle too long';
  return `network error (${code})`;
}
