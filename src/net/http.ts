/**
 * The relay's outbound HTTP client for service calls (poll, submit, SSE), on undici. Every
 * connection goes through the URL policy on the resolved address; redirects are not followed
 * (a token must never travel to another origin); bodies are size- and time-limited.
 */
import { lookup } from 'node:dns';
import { isIP } from 'node:net';
import { Agent, buildConnector, type Dispatcher } from 'undici';
import { addressRefusal, type UrlPolicy } from './url-policy.ts';

/** The remote answered (any status). */
export interface HttpResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/** No answer: refused, reset, timed out, too large, or the address was refused by policy. */
export class NetworkError extends Error {
  readonly code: 'refused_by_policy' | 'timeout' | 'too_large' | 'network';
  /**
   * True only when the request provably never reached the service (no connection was made:
   * refused, no such host, connect timeout, refused by policy). A request that may have been
   * sent (a reset, a timeout after connecting) is never "not sent", so it is never repeated.
   */
  readonly notSent: boolean;
  constructor(code: NetworkError['code'], message: string, cause?: unknown, notSent = false) {
    super(message, { cause });
    this.name = 'NetworkError';
    this.code = code;
    this.notSent = notSent;
  }
}

/** Error codes raised before a connection exists, so before any byte of a request was sent. */
const CONNECT_ERRORS = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** The error a refused address fails a connection with (mapped to NetworkError 'refused_by_policy'). */
function policyError(host: string, why: string): Error {
  return Object.assign(new Error(`${host}: ${why}`), { code: 'EPOLICY' });
}

/**
 * Creates the dispatcher that enforces `policy` on every address it connects to: each address a
 * host name resolves to, and IP literals too (Node connects to those without a lookup, so they are
 * checked here; a case stored under an older, laxer configuration is still judged by today's).
 */
export function createGuardedAgent(
  policy: UrlPolicy,
  options: { connections?: number } = {},
): Agent {
  const connector = buildConnector({
    lookup(hostname, opts, callback) {
      lookup(hostname, { ...opts, all: true }, (err, addresses) => {
        if (err) return callback(err, '', 0);
        const list = Array.isArray(addresses)
          ? addresses
          : [{ address: addresses as string, family: 4 }];
        for (const a of list) {
          const why = addressRefusal(a.address, hostname, policy);
          if (why) return callback(policyError(hostname, why), '', 0);
        }
        if (opts.all) return (callback as unknown as (e: null, a: typeof list) => void)(null, list);
        callback(null, list[0]!.address, list[0]!.family);
      });
    },
  });
  return new Agent({
    connections: options.connections ?? 64,
    keepAliveTimeout: 30_000,
    connect(opts, callback) {
      const host = opts.hostname.replace(/^\[|\]$/g, '');
      const why = isIP(host) ? addressRefusal(host, host, policy) : null;
      if (why) return callback(policyError(host, why), null);
      connector(opts, callback);
    },
  });
}

/** Options for one call. */
export interface CallOptions {
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  timeoutMs?: number;
  maxBytes?: number;
  dispatcher: Dispatcher;
}

/**
 * Makes one HTTP call and reads the whole (limited) body as text. `timeoutMs` bounds the whole
 * call, headers and body together: undici's own timeouts are per gap between chunks, which a
 * service trickling one byte at a time would never trip.
 *
 * It dispatches with a handler of its own rather than through undici's `request`: a watcher polls
 * thousands of times a second, and `request` builds an AbortSignal (with its listener), a body
 * stream and a response object per call that the deadline and the text need none of; at 100k
 * watched cases they were most of what each poll left for the old generation.
 */
export function call(url: string, options: CallOptions): Promise<HttpResponse> {
  let target: URL;
  try {
    target = new URL(url);
  } catch (err) {
    return Promise.reject(wrap(err));
  }
  return new Promise((resolve, reject) => {
    const handler = new TextCall(
      options.timeoutMs ?? 10_000,
      options.maxBytes ?? 1_000_000,
      resolve,
      reject,
    );
    try {
      options.dispatcher.dispatch(
        {
          origin: target.origin,
          path: target.pathname + target.search,
          method: options.method ?? 'GET',
          headers: options.headers,
          body: options.body,
          headersTimeout: handler.timeoutMs,
          bodyTimeout: handler.timeoutMs,
        },
        handler,
      );
    } catch (err) {
      handler.onResponseError(null, err as Error);
    }
  });
}

/** One call's answer as it arrives: status and headers, then the body's text within its limits. */
class TextCall implements Dispatcher.DispatchHandler {
  private status = 0;
  private headers: Record<string, string> = {};
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private controller: Dispatcher.DispatchController | null = null;
  private expired = false;
  private done = false;
  private readonly timer: NodeJS.Timeout;

  constructor(
    readonly timeoutMs: number,
    private readonly maxBytes: number,
    private readonly resolve: (r: HttpResponse) => void,
    private readonly reject: (err: NetworkError) => void,
  ) {
    this.timer = setTimeout(() => this.expire(), timeoutMs);
  }

  private expire(): void {
    this.expired = true;
    // Not connected yet: onRequestStart aborts when it is (a connect has its own timeout).
    this.controller?.abort(timedOut());
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    this.controller = controller;
    if (this.expired) controller.abort(timedOut());
  }

  onResponseStart(
    _controller: Dispatcher.DispatchController,
    statusCode: number,
    headers: Record<string, string | string[] | undefined>,
  ): void {
    if (statusCode < 200) return; // 1xx: informational, the answer follows
    this.status = statusCode;
    const flat: Record<string, string> = {};
    for (const k in headers) {
      const v = headers[k];
      if (v !== undefined) flat[k] = Array.isArray(v) ? v.join(', ') : v;
    }
    this.headers = flat;
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.size += chunk.length;
    if (this.size > this.maxBytes) {
      controller.abort(
        new NetworkError('too_large', `response larger than ${this.maxBytes} bytes`),
      );
      return;
    }
    this.chunks.push(chunk);
  }

  onResponseEnd(): void {
    if (this.done) return;
    this.done = true;
    clearTimeout(this.timer);
    const text =
      this.chunks.length === 1
        ? this.chunks[0]!.toString('utf8')
        : Buffer.concat(this.chunks).toString('utf8');
    this.resolve({ status: this.status, headers: this.headers, text });
  }

  onResponseError(_controller: Dispatcher.DispatchController | null, err: Error): void {
    if (this.done) return;
    this.done = true;
    clearTimeout(this.timer);
    this.reject(err instanceof NetworkError ? err : this.expired ? timedOut(err) : wrap(err));
  }
}

function timedOut(cause?: unknown, notSent = false): NetworkError {
  return new NetworkError('timeout', 'the service did not answer in time', cause, notSent);
}

function wrap(err: unknown): NetworkError {
  const e = err as { code?: string; message?: string; cause?: { code?: string } };
  const code = e.code ?? e.cause?.code;
  if (code === 'EPOLICY')
    return new NetworkError('refused_by_policy', e.message ?? 'refused by policy', err, true);
  const notSent = CONNECT_ERRORS.has(code ?? '');
  if (
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    code === 'UND_ERR_CONNECT_TIMEOUT'
  )
    return timedOut(err, notSent);
  return new NetworkError('network', `network error (${code ?? 'unknown'})`, err, notSent);
}

/** Parses Retry-After (seconds or an HTTP date) into milliseconds, or undefined. */
export function retryAfterMs(value: string | undefined, now: number): number | undefined {
  if (!value) return undefined;
  const s = Number(value);
  if (Number.isFinite(s)) return Math.max(0, s * 1000);
  const t = Date.parse(value);
  return Number.isFinite(t) ? Math.max(0, t - now) : undefined;
}
