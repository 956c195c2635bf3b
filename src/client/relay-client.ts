/** A small client of the relay's HTTP API: send a case, read it, wait for its end, list cases. */
import type { AskContentInput } from '../asks/content.ts';
import { type AskOptions, type AskOutcome, askRelay } from './ask.ts';
import { endedByPolicy } from './outcome.ts';
import type { CaseView, FieldIssue } from './types.ts';

/** Where the relay is and how to reach it. */
export interface RelayClientOptions {
  /** Base URL of the relay, e.g. "http://127.0.0.1:8787". */
  relayUrl: string;
  /** RELAY_API_KEY, sent as `Authorization: Bearer <key>`. */
  apiKey?: string | undefined;
  /** The fetch used to reach the relay (default: globalThis.fetch). */
  fetch?: typeof fetch;
  /** Longest single /wait request in seconds (the relay allows up to 120; default 30). */
  waitChunkSeconds?: number;
}

/** What POST /v1/cases takes: exactly one of `response` (a whole 202 body) or `hitl`. */
export interface SendCaseInput {
  target: string;
  response?: unknown;
  hitl?: unknown;
  notify_url?: string | undefined;
  notify_on?: 'final' | 'all' | undefined;
  labels?: Record<string, string> | undefined;
  /** Credentials for the service's poll_url / events_url (sent only to the case's origin). */
  service_auth?: { headers: Record<string, string> } | undefined;
}

/**
 * The relay refused a request (status, code, the failing fields) or could not be reached
 * (status 0, code "network"), or the client had nothing to send (code "no_target").
 */
export class RelayError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: FieldIssue[];
  constructor(
    code: string,
    message: string,
    o: { status?: number; details?: FieldIssue[]; cause?: unknown } = {},
  ) {
    super(message, { cause: o.cause });
    this.name = 'RelayError';
    this.code = code;
    this.status = o.status ?? 0;
    this.details = o.details ?? [];
  }
}

/** Talks to one relay. */
export class RelayClient {
  readonly relayUrl: string;
  private readonly apiKey: string | undefined;
  private readonly fetchImpl: typeof fetch;
  private readonly chunkSeconds: number;

  constructor(o: RelayClientOptions) {
    this.relayUrl = o.relayUrl.replace(/\/+$/, '');
    this.apiKey = o.apiKey;
    this.fetchImpl = o.fetch ?? globalThis.fetch;
    this.chunkSeconds = Math.min(120, Math.max(1, o.waitChunkSeconds ?? 30));
  }

  /** POST /v1/cases: hands a 202 body (or a bare hitl object) to the relay; the stored case either way. */
  send(input: SendCaseInput): Promise<CaseView> {
    return this.call('POST', '/v1/cases', input);
  }

  /**
   * Asks the relay directly with one of the ten kinds and waits for the answer, typed by the
   * content: `(await relay.ask({type: 'decision', sub_type: 'multi', ...}, {target})).answer?.selected`.
   */
  ask<const C extends AskContentInput>(content: C, o: AskOptions): Promise<AskOutcome<C>> {
    return askRelay((m, p, b, s, h) => this.call(m, p, b, s, h), content, o, this.chunkSeconds);
  }

  /** GET /v1/cases/:id, history included. */
  get(id: string): Promise<CaseView> {
    return this.call('GET', `/v1/cases/${encodeURIComponent(id)}`);
  }

  /**
   * Waits until the case is final (completed, expired, cancelled) or `timeoutMs` passes, with /wait
   * long-polls; returns the case as it then is (check `final`). Without `timeoutMs` it waits for the end.
   * It also returns when the relay gave up delivering the card (`delivery.state` "failed").
   */
  async wait(id: string, o: { timeoutMs?: number; signal?: AbortSignal } = {}): Promise<CaseView> {
    const deadline =
      o.timeoutMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + o.timeoutMs;
    for (;;) {
      o.signal?.throwIfAborted();
      const left = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
      const seconds = Math.min(this.chunkSeconds, left);
      const view = await this.call<CaseView>(
        'GET',
        `/v1/cases/${encodeURIComponent(id)}/wait?timeout=${seconds}`,
        undefined,
        o.signal,
      );
      if (
        view.final ||
        view.delivery?.state === 'failed' ||
        endedByPolicy(view) ||
        Date.now() >= deadline
      )
        return view;
    }
  }

  /** GET /v1/cases: newest first; `open` keeps only cases not yet final. */
  async list(o: { open?: boolean; limit?: number; offset?: number } = {}): Promise<CaseView[]> {
    const q = new URLSearchParams();
    if (o.open) q.set('open', '1');
    if (o.limit !== undefined) q.set('limit', String(o.limit));
    if (o.offset !== undefined) q.set('offset', String(o.offset));
    const query = q.size ? `?${q}` : '';
    return (await this.call<{ cases: CaseView[] }>('GET', `/v1/cases${query}`)).cases;
  }

  private async call<T = CaseView>(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    signal?: AbortSignal,
    extra?: Record<string, string>,
  ): Promise<T> {
    const headers: Record<string, string> = { ...extra, accept: 'application/json' };
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await this.fetchImpl(`${this.relayUrl}${path}`, {
        method,
        headers,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        ...(signal ? { signal } : {}),
      });
    } catch (err) {
      if (signal?.aborted) throw signal.reason;
      const why = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
      throw new RelayError('network', `cannot reach the relay at ${this.relayUrl}: ${why}`, {
        cause: err,
      });
    }
    const text = await res.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    if (res.ok && json !== undefined) return json as T;
    const e = (json ?? {}) as { error?: string; message?: string; details?: FieldIssue[] };
    const details = Array.isArray(e.details) ? e.details : [];
    const first = details[0] ? `: ${details[0].path} ${details[0].message}` : '';
    throw new RelayError(
      e.error ?? `http_${res.status}`,
      `relay answered ${res.status} to ${method} ${path.split('?')[0]}: ${e.message ?? (text.slice(0, 200) || res.statusText)}${first}`,
      { status: res.status, details },
    );
  }
}
