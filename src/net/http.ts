/**
 * The relay's outbound HTTP client for service calls (poll, submit, SSE), on undici. Every
 * connection goes through the URL policy on the resolved address; redirects are not followed
 * (a token must never travel to another origin); bodies are size- and time-limited.
 */
import { lookup } from 'node:dns';
import { isIP } from 'node:net';
import { Agent, buildConnector, type Dispatcher, request } from 'undici';
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
 */
export async function call(url: string, options: CallOptions): Promise<HttpResponse> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxBytes = options.maxBytes ?? 1_000_000;
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), timeoutMs);
  const fail = (err: unknown): NetworkError =>
    err instanceof NetworkError
      ? err
      : deadline.signal.aborted
        ? new NetworkError('timeout', 'the service did not answer in time', err)
        : wrap(err);
  let res: Dispatcher.ResponseData<unknown>;
  try {
    res = await request(url, {
      method: options.method ?? 'GET',
      headers: options.headers,
      body: options.body,
      dispatcher: options.dispatcher,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      maxRedirections: 0,
      signal: deadline.signal,
    } as Parameters<typeof request>[1]);
  } catch (err) {
    clearTimeout(timer);
    throw fail(err);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of res.body) {
      size += chunk.length;
      if (size > maxBytes) {
        res.body.destroy();
        throw new NetworkError('too_large', `response larger than ${maxBytes} bytes`);
      }
      chunks.push(chunk);
    }
  } catch (err) {
    throw fail(err);
  } finally {
    clearTimeout(timer);
  }
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(res.headers))
    if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
  return { status: res.statusCode, headers, text: Buffer.concat(chunks).toString('utf8') };
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
    return new NetworkError('timeout', 'the service did not answer in time', err, notSent);
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
