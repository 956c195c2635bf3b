/**
 * hitlInterceptor: an undici interceptor (`agent.compose(hitlInterceptor(...))`) that hands every
 * HITL 202 to the relay. A 202 with a JSON body is held back until it is complete; when it carries a
 * `hitl` object the caller receives it with `hitl_relay` (the outcome) added to the JSON and the
 * X-Hitl-Relay-Case-Id / X-Hitl-Relay-Status headers. Everything else streams through untouched.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import { DecoratorHandler, type Dispatcher } from 'undici';
import { isHitlResponse } from '../protocol/hitl.ts';
import {
  clientOf,
  type HitlCatchOptions,
  type HitlRelayOptions,
  type OriginalCall,
  relayHitl,
  TARGET_HEADER,
} from './catch.ts';
import type { RelayClient } from './relay-client.ts';

/** Options of hitlInterceptor. */
export interface HitlInterceptorOptions extends HitlRelayOptions {
  /** Largest 202 body held back to look for `hitl` (default 1 MB); larger ones pass through. */
  maxBodyBytes?: number;
}

/** The key the outcome is added under in the 202's JSON body. */
export const OUTCOME_KEY = 'hitl_relay';

type Headers = Dispatcher.DispatchOptions['headers'];
type Controller = Dispatcher.DispatchController;
interface Handler {
  onRequestStart(controller: Controller, context: unknown): void;
  onResponseStart(
    controller: Controller,
    statusCode: number,
    headers: IncomingHttpHeaders,
    statusMessage?: string,
  ): void;
  onResponseData(controller: Controller, chunk: Buffer): void;
  onResponseEnd(controller: Controller, trailers: IncomingHttpHeaders): void;
  onResponseError(controller: Controller, error: Error): void;
}
/**
 * undici's DecoratorHandler adapts whatever handler comes next (old or new callback style) to the
 * new one; its .d.ts declares only the constructor, so the methods are typed here.
 */
const Decorator = DecoratorHandler as unknown as new (
  handler: Dispatcher.DispatchHandler,
) => Handler;

/** Reads and removes the target header from dispatch headers in any of undici's forms. */
function takeTarget(headers: Headers): {
  target: string | undefined;
  headers: Headers;
  authorization: string | undefined;
} {
  if (!headers) return { target: undefined, headers, authorization: undefined };
  const pairs: Array<[string, string | string[] | undefined]> = [];
  if (Array.isArray(headers)) {
    for (let i = 0; i + 1 < headers.length; i += 2)
      pairs.push([String(headers[i]), headers[i + 1]]);
  } else if (typeof (headers as Iterable<unknown>)[Symbol.iterator] === 'function') {
    for (const [k, v] of headers as Iterable<[string, string | string[] | undefined]>)
      pairs.push([k, v]);
  } else pairs.push(...Object.entries(headers as Record<string, string | string[] | undefined>));
  const auth = pairs.find(([k]) => k.toLowerCase() === 'authorization')?.[1];
  const authorization = Array.isArray(auth) ? auth[0] : auth;
  const hit = pairs.find(([k]) => k.toLowerCase() === TARGET_HEADER);
  if (!hit) return { target: undefined, headers, authorization };
  const rest: Record<string, string | string[]> = {};
  for (const [k, v] of pairs) if (k.toLowerCase() !== TARGET_HEADER && v !== undefined) rest[k] = v;
  return { target: Array.isArray(hit[1]) ? hit[1][0] : hit[1], headers: rest, authorization };
}

function decode(raw: Buffer, encoding: string | string[] | undefined): Buffer | undefined {
  const e = String(encoding ?? 'identity')
    .toLowerCase()
    .trim();
  if (e === 'identity' || e === '') return raw;
  if (e === 'gzip' || e === 'x-gzip') return gunzipSync(raw);
  if (e === 'deflate') return inflateSync(raw);
  if (e === 'br') return brotliDecompressSync(raw);
  return undefined;
}

class HitlHandler extends Decorator {
  private holding = false;
  private status = 0;
  private headers: IncomingHttpHeaders = {};
  private statusMessage: string | undefined;
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(
    handler: Dispatcher.DispatchHandler,
    private readonly client: RelayClient,
    private readonly o: HitlCatchOptions,
    private readonly maxBytes: number,
    private readonly signal: AbortSignal | undefined,
    private readonly call: OriginalCall,
  ) {
    super(handler);
  }

  override onResponseStart(
    controller: Controller,
    statusCode: number,
    headers: IncomingHttpHeaders,
    statusMessage?: string,
  ): void {
    const type = String(headers['content-type'] ?? 'application/json');
    const length = Number(headers['content-length'] ?? 0);
    if (statusCode !== 202 || !/json/i.test(type) || length > this.maxBytes) {
      super.onResponseStart(controller, statusCode, headers, statusMessage);
      return;
    }
    this.holding = true;
    this.status = statusCode;
    this.headers = headers;
    this.statusMessage = statusMessage;
  }

  override onResponseData(controller: Controller, chunk: Buffer): void {
    if (!this.holding) {
      super.onResponseData(controller, chunk);
      return;
    }
    this.chunks.push(chunk);
    this.size += chunk.length;
    if (this.size > this.maxBytes) {
      // Too large to be a 202 we would relay: hand over what we held and stream the rest.
      this.holding = false;
      super.onResponseStart(controller, this.status, this.headers, this.statusMessage);
      for (const c of this.chunks.splice(0)) super.onResponseData(controller, c);
    }
  }

  override onResponseEnd(controller: Controller, trailers: IncomingHttpHeaders): void {
    if (this.holding) void this.finish(controller, trailers);
    else super.onResponseEnd(controller, trailers);
  }

  private replay(
    controller: Controller,
    headers: IncomingHttpHeaders,
    body: Buffer,
    trailers: IncomingHttpHeaders,
  ): void {
    super.onResponseStart(controller, this.status, headers, this.statusMessage);
    if (body.length) super.onResponseData(controller, body);
    super.onResponseEnd(controller, trailers);
  }

  private async finish(controller: Controller, trailers: IncomingHttpHeaders): Promise<void> {
    const raw = Buffer.concat(this.chunks);
    let body: unknown;
    try {
      const plain = decode(raw, this.headers['content-encoding']);
      body = plain ? JSON.parse(plain.toString('utf8')) : undefined;
    } catch {
      body = undefined;
    }
    if (!isHitlResponse(this.status, body))
      return this.replay(controller, this.headers, raw, trailers);
    let out: Buffer;
    let outcome: Awaited<ReturnType<typeof relayHitl>>;
    try {
      outcome = await relayHitl(this.client, body, this.o, this.signal, this.call);
      out = Buffer.from(JSON.stringify({ ...(body as object), [OUTCOME_KEY]: outcome }));
    } catch (err) {
      return super.onResponseError(controller, err as Error);
    }
    const headers: IncomingHttpHeaders = { ...this.headers };
    delete headers['content-encoding'];
    delete headers['transfer-encoding'];
    headers['content-type'] = 'application/json; charset=utf-8';
    headers['content-length'] = String(out.length);
    headers['x-hitl-relay-case-id'] = outcome.relay_case_id;
    headers['x-hitl-relay-status'] = outcome.status;
    this.replay(controller, headers, out, trailers);
  }
}

/**
 * The interceptor, for `new Agent().compose(hitlInterceptor({relayUrl, target}))`; use the composed
 * dispatcher with undici's `request`, `fetch` or as the global dispatcher. Per call, the
 * X-Hitl-Relay-Target request header picks the target (it is removed before the request leaves).
 */
export function hitlInterceptor(
  options: HitlInterceptorOptions,
): Dispatcher.DispatcherComposeInterceptor {
  const client = clientOf(options);
  const maxBytes = options.maxBodyBytes ?? 1_000_000;
  return (dispatch) => (opts, handler) => {
    const { target, headers, authorization } = takeTarget(opts.headers);
    const call: OriginalCall = { url: `${String(opts.origin ?? '')}${opts.path}`, authorization };
    const o: HitlCatchOptions = { ...options, ...(target ? { target } : {}) };
    const given = (opts as { signal?: unknown }).signal;
    const signal = given instanceof AbortSignal ? given : undefined;
    return dispatch(
      target ? { ...opts, headers } : opts,
      new HitlHandler(handler, client, o, maxBytes, signal, call),
    );
  };
}
