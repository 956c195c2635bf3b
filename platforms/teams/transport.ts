/**
 * The HTTP transport botbuilder's ConnectorClient sends through (ConnectorClientOptions.httpClient).
 * It paces sends per conversation and backs off with jitter on 429/412/502/504, so there is one
 * bounded retry loop instead of botbuilder's pipeline retries stacked on ours: every non-2xx answer
 * leaves this transport as a thrown TeamsHttpError, which the pipeline's retry policy passes
 * through untouched (it only retries its own RestErrors). Request headers (the Bearer token) are
 * forwarded as they are and never logged.
 */
import { request } from 'undici';
import { TeamsHttpError, TeamsNetworkError } from './errors.ts';
import type { ConversationPace, PaceClock } from './pace.ts';

/**
 * The request and response of the compat HttpClient (core-http's WebResourceLike, as far as we
 * use it), typed here so that only connector.ts names the SDK; it checks this class against it.
 */
interface WebResourceLike {
  url: string;
  method: string;
  headers: { toJson(options?: { preserveCase?: boolean }): Record<string, string> };
  body?: unknown;
  timeout?: number;
  abortSignal?: unknown;
}
interface CompatResponse<R extends WebResourceLike> {
  request: R;
  status: number;
  headers: Headers;
  bodyAsText?: string;
}

/** Backoff for retryable connector answers. */
export interface TeamsRetryOptions {
  /** Retries after the first attempt. */
  retries: number;
  /** First backoff step; doubles each retry, with full jitter. */
  baseDelayMs: number;
  /** Cap of one backoff step. */
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited for: the call fails as rate_limited at once. */
  maxRetryAfterMs: number;
}

/** Bounded: at most 4 attempts and about 8 s of waiting before the relay hears "rate_limited". */
export const TEAMS_DEFAULT_RETRY: TeamsRetryOptions = {
  retries: 3,
  baseDelayMs: 500,
  maxDelayMs: 4000,
  maxRetryAfterMs: 15_000,
};

/** Microsoft asks bots to back off on 429 and to retry 412, 502 and 504 (transient conflicts, gateway). */
const RETRYABLE = new Set([412, 429, 502, 504]);

/** Default timeout of one connector request. */
const TEAMS_REQUEST_TIMEOUT_MS = 30_000;

class Headers {
  private readonly map = new Map<string, { name: string; value: string }>();
  constructor(raw: Record<string, string> = {}) {
    for (const [name, value] of Object.entries(raw)) this.set(name, value);
  }
  set(name: string, value: string | number): void {
    this.map.set(name.toLowerCase(), { name, value: String(value) });
  }
  get(name: string): string | undefined {
    return this.map.get(name.toLowerCase())?.value;
  }
  contains(name: string): boolean {
    return this.map.has(name.toLowerCase());
  }
  remove(name: string): boolean {
    return this.map.delete(name.toLowerCase());
  }
  rawHeaders(): Record<string, string> {
    return this.toJson();
  }
  headersArray(): Array<{ name: string; value: string }> {
    return [...this.map.values()];
  }
  headerNames(): string[] {
    return this.headersArray().map((h) => h.name);
  }
  headerValues(): string[] {
    return this.headersArray().map((h) => h.value);
  }
  clone(): Headers {
    return new Headers(this.toJson({ preserveCase: true }));
  }
  toJson(options: { preserveCase?: boolean } = {}): Record<string, string> {
    const out: Record<string, string> = {};
    for (const [key, h] of this.map) out[options.preserveCase ? h.name : key] = h.value;
    return out;
  }
}

/** Milliseconds from a Retry-After header (seconds or an HTTP date). */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

/** "/v3/conversations/<id>/activities..." -> the conversation (thread suffix dropped), for pacing. */
function conversationOf(url: string): string {
  const match = /\/v3\/conversations\/([^/?]+)/.exec(new URL(url).pathname);
  const id = match?.[1] ? decodeURIComponent(match[1]) : '';
  return id.split(';')[0] ?? id;
}

/** Short, secret-free detail of an error body (the connector answers {error:{code,message}}). */
function errorDetail(text: string): string {
  try {
    const parsed = JSON.parse(text) as { error?: { code?: unknown; message?: unknown } };
    const code = parsed.error?.code;
    const message = parsed.error?.message;
    return [code, message]
      .filter((p) => typeof p === 'string' && p)
      .join(': ')
      .slice(0, 200);
  } catch {
    return text.slice(0, 200);
  }
}

interface Attempt {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/** The paced, retrying transport handed to botbuilder. */
export class TeamsTransport {
  constructor(
    private readonly pace: ConversationPace,
    private readonly retry: TeamsRetryOptions,
    private readonly clock: PaceClock,
    private readonly random: () => number = Math.random,
  ) {}

  async sendRequest<R extends WebResourceLike>(req: R): Promise<CompatResponse<R>> {
    const conversation = conversationOf(req.url);
    const method = req.method.toUpperCase();
    for (let attempt = 0; ; attempt++) {
      const answer = await this.pace.run(conversation, () => this.once(req, method));
      if (answer.status >= 200 && answer.status < 300) {
        return {
          request: req,
          status: answer.status,
          headers: new Headers(answer.headers),
          bodyAsText: answer.text,
        };
      }
      const retryAfterMs = parseRetryAfter(answer.headers['retry-after'], this.clock.now());
      const wait = this.backoff(attempt, retryAfterMs);
      if (!RETRYABLE.has(answer.status) || wait === undefined) {
        throw new TeamsHttpError(answer.status, errorDetail(answer.text), retryAfterMs);
      }
      await this.clock.sleep(wait);
    }
  }

  /** The wait before the next attempt, or undefined when the retries are spent. */
  private backoff(attempt: number, retryAfterMs: number | undefined): number | undefined {
    if (attempt >= this.retry.retries) return undefined;
    if (retryAfterMs !== undefined) {
      return retryAfterMs > this.retry.maxRetryAfterMs ? undefined : retryAfterMs;
    }
    const step = Math.min(this.retry.maxDelayMs, this.retry.baseDelayMs * 2 ** attempt);
    return Math.floor(this.random() * step);
  }

  private async once(req: WebResourceLike, method: string): Promise<Attempt> {
    const timeout = req.timeout && req.timeout > 0 ? req.timeout : TEAMS_REQUEST_TIMEOUT_MS;
    const signals = [AbortSignal.timeout(timeout)];
    if (req.abortSignal) signals.push(req.abortSignal as AbortSignal);
    try {
      const res = await request(req.url, {
        method: method as 'POST',
        headers: req.headers.toJson({ preserveCase: true }),
        body: typeof req.body === 'string' || Buffer.isBuffer(req.body) ? req.body : undefined,
        signal: AbortSignal.any(signals),
      });
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(res.headers)) {
        if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
      }
      return { status: res.statusCode, headers, text: await res.body.text() };
    } catch (err) {
      // Not retried here: re-sending a POST whose fate is unknown could post a card twice.
      const code = (err as { code?: string }).code ?? (err as Error).name;
      throw new TeamsNetworkError(
        `${method} ${new URL(req.url).pathname} got no answer (${code})`,
        {
          cause: err,
        },
      );
    }
  }
}
