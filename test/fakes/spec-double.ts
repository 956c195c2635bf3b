/**
 * A spec double: a HITL service (spec v0.6-v0.8) on a loopback port that a test scripts case by
 * case. By default it is an honest peer: poll_url answers the case as it stands (with ETag and
 * If-None-Match), submit_url takes a Bearer submit_token and completes the case with the service's
 * own result, responded_by and submission_context, events_url streams status events, the review
 * page opens the case and a browser answer completes it. On top of that each case can be told to
 * give any answer the spec allows and the odd ones real services give: 304 with or without
 * Retry-After, 401/403/404/410 on poll, invalid bodies, unknown statuses, status flipping, a result
 * on an open case, 500 to a submit until the review page was opened, 429 with Retry-After, a submit
 * that never answers, terminal events without data, unknown event names, streams left open. Every
 * request is recorded with its headers, so tests can check who was sent which credentials.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** An answer the double gives instead of its honest one. */
export interface ScriptedAnswer {
  status: number;
  headers?: Record<string, string>;
  /** An object is sent as JSON; a string is sent as it is. */
  body?: unknown;
}

/** Never answers (the request hangs until the double closes). */
export const HANG = 'hang' as const;
/** A submit only: records the answer as the honest service would, then never answers. */
export const RECORD_THEN_HANG = 'record_then_hang' as const;

/**
 * One SSE event to send. `data` undefined sends an empty `data:` line: an event with no data line at
 * all is never dispatched by an SSE parser (WHATWG), so "no data" on the wire means empty data.
 */
export interface ScriptedEvent {
  event: string;
  data?: unknown;
  id?: string;
}

/** A case as the double holds it. */
export interface DoubleCase {
  case_id: string;
  /** Any string: tests may set statuses the spec does not have. */
  status: string;
  submit_token: string;
  review_token: string;
  created_at: string;
  expires_at: string;
  opened_at?: string;
  completed_at?: string;
  result?: { action: string; data?: Record<string, unknown> };
  responded_by?: { name?: string; email?: string };
  submission_context?: Record<string, unknown>;
  next_case_id?: string;
  cancelled_at?: string;
  /**
   * Speaks v0.9 (create's `version`): spec_version "0.9" and the disjoint poll variants (expired
   * with default_action, cancelled with cancelled_at); else 0.8 as before.
   */
  v09?: { default_action: string };
  /** Extra fields merged into every poll answer (e.g. a result on an open case). */
  extra: Record<string, unknown>;
  /** Answers for the next polls, used first-in first-out before the honest answer. */
  polls: Array<ScriptedAnswer | typeof HANG>;
  /** Answers for the next submits, first-in first-out. */
  submits: Array<ScriptedAnswer | typeof HANG | typeof RECORD_THEN_HANG>;
  /** Submits answer 500 until the review page was opened (a real service's bug). */
  failSubmitUntilOpened: boolean;
  /** Events sent as each new stream opens (then the honest events as the case moves). */
  onConnect: ScriptedEvent[];
  /** Keep streams open after a terminal event (the spec says the server SHOULD close). */
  keepStreamsOpen: boolean;
  /** Terminal events carry no data (an empty `data:` line). */
  bareTerminalEvents: boolean;
  /**
   * The next honest submit is recorded at once (the case completes, polls and events show it) but
   * its HTTP answer waits for this promise: a service slow to answer what it already stored.
   */
  holdSubmitAnswer?: Promise<void>;
}

/** A request the double received. */
export interface SeenRequest {
  method: string;
  path: string;
  kind: 'poll' | 'submit' | 'events' | 'review' | 'browser_respond' | 'other';
  case_id: string | undefined;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** What a test can do with a running double. */
export interface SpecDouble {
  /** Base URL, e.g. http://127.0.0.1:40123 */
  url: string;
  requests: SeenRequest[];
  /** Requests of one kind (for one case). */
  seen(kind: SeenRequest['kind'], caseId?: string): SeenRequest[];
  /** Creates a case and returns its 202 body; `hitl` overrides fields of the hitl object. */
  create(options?: {
    type?: string;
    hitl?: Record<string, unknown>;
    events?: boolean;
    inline?: boolean;
    expiresInMs?: number;
    /** "0.9": a v0.9 case (its 202 and polls); default 0.8. */
    version?: '0.8' | '0.9';
  }): Record<string, any>;
  get(caseId: string): DoubleCase;
  /** Poll and events must carry exactly this Authorization header (null: anything goes). */
  requireAuth(value: string | null): void;
  /** Queues answers for the next polls / submits of a case. */
  queuePoll(caseId: string, ...answers: Array<ScriptedAnswer | typeof HANG>): void;
  queueSubmit(
    caseId: string,
    ...answers: Array<ScriptedAnswer | typeof HANG | typeof RECORD_THEN_HANG>
  ): void;
  /** Moves a case as the service would (and streams the matching event). */
  open(caseId: string): void;
  complete(
    caseId: string,
    action: string,
    options?: {
      data?: Record<string, unknown>;
      by?: { name?: string; email?: string };
      context?: Record<string, unknown>;
    },
  ): void;
  expire(caseId: string): void;
  cancel(caseId: string, reason?: string): void;
  /** Sets any status string at once (status flipping, unknown statuses), without an event. */
  setStatus(caseId: string, status: string): void;
  /** Sends an event to every open stream of the case. */
  push(caseId: string, event: ScriptedEvent): void;
  /** Open event streams of a case. */
  streams(caseId: string): number;
  close(): Promise<void>;
}

const TERMINAL = new Set(['completed', 'expired', 'cancelled']);

/** Starts a spec double on 127.0.0.1. */
export async function startSpecDouble(): Promise<SpecDouble> {
  const cases = new Map<string, DoubleCase>();
  const requests: SeenRequest[] = [];
  const streams = new Map<string, Set<ServerResponse>>();
  const hanging = new Set<ServerResponse>();
  let auth: string | null = null;
  let eventSeq = 0;

  const need = (id: string) => {
    const c = cases.get(id);
    if (!c) throw new Error(`the spec double has no case ${id}`);
    return c;
  };

  const pollBody = (c: DoubleCase): Record<string, unknown> => {
    const b: Record<string, unknown> = {
      status: c.status,
      case_id: c.case_id,
      created_at: c.created_at,
      expires_at: c.expires_at,
    };
    if (c.opened_at) b.opened_at = c.opened_at;
    if (c.status === 'completed') {
      b.completed_at = c.completed_at;
      b.result = c.result;
      if (c.responded_by) b.responded_by = c.responded_by;
      if (c.submission_context) b.submission_context = c.submission_context;
      if (c.next_case_id) b.next_case_id = c.next_case_id;
    }
    if (c.status === 'expired') b.expired_at = c.expires_at;
    if (c.v09 && c.status === 'expired') b.default_action = c.v09.default_action;
    if (c.v09 && c.status === 'cancelled') b.cancelled_at = c.cancelled_at;
    return { ...b, ...c.extra };
  };

  const send = (res: ServerResponse, a: ScriptedAnswer) => {
    const text =
      a.body === undefined ? '' : typeof a.body === 'string' ? a.body : JSON.stringify(a.body);
    const headers: Record<string, string> = {
      ...(typeof a.body === 'object' && a.body !== null
        ? { 'content-type': 'application/json' }
        : {}),
      ...a.headers,
    };
    res.writeHead(a.status, headers).end(text);
  };

  const emit = (id: string, e: ScriptedEvent) => {
    const c = cases.get(id);
    for (const res of streams.get(id) ?? []) {
      let frame = `id: ${e.id ?? String(++eventSeq)}\nevent: ${e.event}\n`;
      frame +=
        e.data === undefined
          ? 'data:\n'
          : `data: ${typeof e.data === 'string' ? e.data : JSON.stringify(e.data)}\n`;
      res.write(`${frame}\n`);
      if (c && TERMINAL.has(e.event.replace(/^review\./, '')) && !c.keepStreamsOpen) res.end();
    }
  };

  const statusEvent = (c: DoubleCase): ScriptedEvent => {
    const event = `review.${c.status}`;
    if (TERMINAL.has(c.status) && c.bareTerminalEvents) return { event };
    const { status: _s, ...data } = pollBody(c);
    return { event, data };
  };

  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    const u = new URL(req.url ?? '/', 'http://double');
    const route =
      /^\/cases\/([A-Za-z0-9_-]+)\/(status|respond|events)$/.exec(u.pathname) ??
      /^\/(review)\/([A-Za-z0-9_-]+)(\/respond)?$/.exec(u.pathname);
    let kind: SeenRequest['kind'] = 'other';
    let id: string | undefined;
    if (route?.[1] === 'review') {
      id = route[2];
      kind = route[3] ? 'browser_respond' : 'review';
    } else if (route) {
      id = route[1];
      kind = route[2] === 'status' ? 'poll' : route[2] === 'respond' ? 'submit' : 'events';
    }
    requests.push({
      method: req.method ?? 'GET',
      path: u.pathname,
      kind,
      case_id: id,
      headers: req.headers,
      body,
    });
    // The service's own API: an action that needs a human answers 202 with a fresh case.
    if (u.pathname === '/api/act' && req.method === 'POST') {
      if (auth !== null && req.headers.authorization !== auth)
        return send(res, { status: 401, body: { error: 'unauthorized' } });
      return send(res, { status: 202, body: api.create({ events: u.searchParams.has('events') }) });
    }
    const c = id ? cases.get(id) : undefined;
    if (!c)
      return send(res, { status: 404, body: { error: 'not_found', message: 'no such case' } });

    if (
      (kind === 'poll' || kind === 'events') &&
      auth !== null &&
      req.headers.authorization !== auth
    )
      return send(res, {
        status: 401,
        body: { error: 'unauthorized', message: 'send the API key' },
      });

    if (kind === 'poll') {
      const scripted = c.polls.shift();
      if (scripted === HANG) return void hanging.add(res);
      if (scripted) return send(res, scripted);
      const b = pollBody(c);
      const etag = `"${createHash('sha256').update(JSON.stringify(b)).digest('hex').slice(0, 16)}"`;
      if (req.headers['if-none-match'] === etag)
        return send(res, { status: 304, headers: { etag } });
      return send(res, { status: 200, headers: { etag }, body: b });
    }

    if (kind === 'submit') {
      if (req.headers.authorization !== `Bearer ${c.submit_token}`)
        return send(res, { status: 401, body: { error: 'invalid_token', message: 'bad token' } });
      const scripted = c.submits.shift();
      if (scripted === HANG) return void hanging.add(res);
      if (scripted && scripted !== RECORD_THEN_HANG) return send(res, scripted);
      if (c.failSubmitUntilOpened && !c.opened_at)
        return send(res, { status: 500, body: { error: 'internal', message: 'state not ready' } });
      if (TERMINAL.has(c.status))
        return send(res, {
          status: c.status === 'expired' ? 410 : 409,
          body: {
            error: c.status === 'expired' ? 'case_expired' : 'duplicate_submission',
            message: `the case is ${c.status}`,
          },
        });
      const answer = JSON.parse(body || '{}') as Record<string, any>;
      c.status = 'completed';
      c.completed_at = new Date().toISOString();
      c.result = { action: answer.action, data: { ...answer.data, via_double: true } };
      c.responded_by = { name: answer.submitted_by?.display_name ?? 'someone' };
      c.submission_context = {
        mode: 'inline_submit',
        submitted_via: answer.submitted_via,
        submitted_by: answer.submitted_by,
        verification_result: { status: 'not_required' },
      };
      emit(c.case_id, statusEvent(c));
      if (scripted === RECORD_THEN_HANG) return void hanging.add(res);
      const held = c.holdSubmitAnswer;
      c.holdSubmitAnswer = undefined;
      if (held) await held;
      return send(res, {
        status: 200,
        body: {
          status: 'completed',
          case_id: c.case_id,
          completed_at: c.completed_at,
          result: c.result,
          responded_by: c.responded_by,
          submission_context: c.submission_context,
          ...(c.next_case_id ? { next_case_id: c.next_case_id } : {}),
        },
      });
    }

    if (kind === 'events') {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write(': hello\n\n');
      const set = streams.get(c.case_id) ?? new Set<ServerResponse>();
      streams.set(c.case_id, set);
      set.add(res);
      res.on('close', () => set.delete(res));
      for (const e of c.onConnect) emit(c.case_id, e);
      return;
    }

    if (kind === 'review' || kind === 'browser_respond') {
      if (u.searchParams.get('token') !== c.review_token)
        return send(res, { status: 401, body: { error: 'invalid_token' } });
      if (kind === 'review') {
        if (!c.opened_at && !TERMINAL.has(c.status)) api.open(c.case_id);
        return send(res, {
          status: 200,
          headers: { 'content-type': 'text/html' },
          body: '<p>review</p>',
        });
      }
      const answer = JSON.parse(body || '{}') as Record<string, any>;
      if (TERMINAL.has(c.status))
        return send(res, { status: 409, body: { error: 'duplicate_submission' } });
      api.complete(c.case_id, answer.action, {
        data: answer.data ?? {},
        by: { name: 'Browser Bob' },
      });
      return send(res, { status: 200, body: { status: 'completed', case_id: c.case_id } });
    }
    return send(res, { status: 404, body: { error: 'not_found' } });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const api: SpecDouble = {
    url,
    requests,
    seen: (kind, caseId) =>
      requests.filter((r) => r.kind === kind && (caseId === undefined || r.case_id === caseId)),
    create(o = {}) {
      const id = `dbl_${randomBytes(6).toString('hex')}`;
      const now = Date.now();
      const c: DoubleCase = {
        case_id: id,
        status: 'pending',
        submit_token: `sbt_${randomBytes(24).toString('base64url')}`,
        review_token: randomBytes(24).toString('base64url'),
        created_at: new Date(now).toISOString(),
        expires_at: new Date(now + (o.expiresInMs ?? 3_600_000)).toISOString(),
        extra: {},
        polls: [],
        submits: [],
        failSubmitUntilOpened: false,
        onConnect: [],
        keepStreamsOpen: false,
        bareTerminalEvents: false,
        ...(o.version === '0.9'
          ? { v09: { default_action: String(o.hitl?.default_action ?? 'skip') } }
          : {}),
      };
      cases.set(id, c);
      const type = o.type ?? 'approval';
      return {
        status: 'human_input_required',
        message: 'The spec double wants a decision',
        hitl: {
          spec_version: o.version ?? '0.8',
          case_id: id,
          review_url: `${url}/review/${id}?token=${c.review_token}`,
          poll_url: `${url}/cases/${id}/status`,
          ...(o.events ? { events_url: `${url}/cases/${id}/events` } : {}),
          type,
          prompt: `Decide ${id}?`,
          created_at: c.created_at,
          expires_at: c.expires_at,
          ...(o.inline === false
            ? {}
            : { submit_url: `${url}/cases/${id}/respond`, submit_token: c.submit_token }),
          ...o.hitl,
        },
      };
    },
    get: need,
    requireAuth(value) {
      auth = value;
    },
    queuePoll(id, ...answers) {
      need(id).polls.push(...answers);
    },
    queueSubmit(id, ...answers) {
      need(id).submits.push(...answers);
    },
    open(id) {
      const c = need(id);
      c.opened_at = new Date().toISOString();
      if (c.status === 'pending') c.status = 'opened';
      emit(id, statusEvent(c));
    },
    complete(id, action, o = {}) {
      const c = need(id);
      c.status = 'completed';
      c.completed_at = new Date().toISOString();
      c.result = { action, data: o.data ?? {} };
      c.responded_by = o.by ?? { name: 'Browser Bob' };
      c.submission_context = o.context ?? { mode: 'browser_submit' };
      emit(id, statusEvent(c));
    },
    expire(id) {
      const c = need(id);
      c.status = 'expired';
      emit(id, statusEvent(c));
    },
    cancel(id, reason) {
      const c = need(id);
      c.status = 'cancelled';
      c.cancelled_at = new Date().toISOString();
      if (reason) c.extra.reason = reason;
      emit(id, statusEvent(c));
    },
    setStatus(id, status) {
      need(id).status = status;
    },
    push: emit,
    streams: (id) => streams.get(id)?.size ?? 0,
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  return api;
}
