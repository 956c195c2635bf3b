/** Shared helpers for the demo service tests: a real loopback server, schema validators, SSE reading. */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { Hono } from 'hono';
import {
  createDemoService,
  type DemoService,
  type DemoServiceOptions,
} from '../../src/demo/index.ts';
import { schemaErrors } from '../helpers/spec.ts';

/** Official schema checks (tests tagged corpus only): see test/helpers/spec.ts. */
export { schemaErrors };

/** A demo service on a real loopback port, mounted at /demo as the relay mounts it. */
export interface DemoServer {
  demo: DemoService;
  /** The service base, e.g. http://127.0.0.1:PORT/demo. */
  base: string;
  /** The server origin, e.g. http://127.0.0.1:PORT. */
  origin: string;
  close(): Promise<void>;
}

/** Starts a demo service with test controls on 127.0.0.1, port 0. */
export async function startDemoServer(options: DemoServiceOptions = {}): Promise<DemoServer> {
  const demo = createDemoService({ testControls: true, ...options });
  const root = new Hono();
  root.route('/demo', demo.app);
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: root.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    demo,
    base: `${origin}/demo`,
    origin,
    async close() {
      // The service first, so its SSE streams end and the server can close.
      demo.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A clock the test moves by hand. */
export function manualClock(start = Date.parse('2026-03-01T10:00:00.000Z')) {
  let t = start;
  return {
    now: () => t,
    advance(ms: number) {
      t += ms;
    },
  };
}

/** A loosely typed JSON object, as tests read response bodies. */
export type Json = Record<string, any>;

/** POST /api/reviews and return the 202 body. */
export async function createCase(
  base: string,
  type: string,
  inline: boolean,
  body: Json = {},
): Promise<Json> {
  const res = await fetch(`${base}/api/reviews?type=${type}&inline=${inline ? 1 : 0}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (res.status !== 202) throw new Error(`create ${type}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Json;
}

/** A valid inline submit request body. */
export function submitBody(action: string, extra: Json = {}): Json {
  return {
    action,
    data: {},
    submitted_via: 'x-test',
    submitted_by: { platform: 'x-test', platform_user_id: 'u-1', display_name: 'Alex Tester' },
    ...extra,
  };
}

/** POSTs an inline submit with a Bearer token; returns status, headers and parsed JSON. */
export async function inlineSubmit(
  url: string,
  token: string | undefined,
  body: unknown,
): Promise<{ status: number; headers: Headers; json: Json }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token !== undefined) headers.authorization = `Bearer ${token}`;
  const res = await fetch(url, {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, json: (await res.json()) as Json };
}

/** GET the poll URL; returns status, headers and JSON (null on 304). */
export async function poll(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Headers; json: Json | null }> {
  const res = await fetch(url, { headers });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    json: text ? (JSON.parse(text) as Json) : null,
  };
}

/** Test-control step over HTTP. */
export async function act(
  base: string,
  caseId: string,
  step: Json,
): Promise<{ status: number; json: Json }> {
  const res = await fetch(`${base}/api/_test/reviews/${caseId}/act`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(step),
  });
  return { status: res.status, json: (await res.json()) as Json };
}

/** An open SSE connection: events as they arrive, and whether the server ended the stream. */
export interface SseConnection {
  events: EventSourceMessage[];
  /** Resolves once `n` events have arrived. */
  waitFor(n: number): Promise<EventSourceMessage[]>;
  /** Resolves when the server closes the stream. */
  ended: Promise<void>;
  abort(): void;
}

/** Opens an SSE stream (optionally resuming after `lastEventId`). */
export async function openSse(url: string, lastEventId?: string): Promise<SseConnection> {
  const controller = new AbortController();
  const headers: Record<string, string> = { accept: 'text/event-stream' };
  if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
  const res = await fetch(url, { headers, signal: controller.signal });
  if (res.status !== 200 || !res.body) throw new Error(`SSE ${res.status}`);
  const events: EventSourceMessage[] = [];
  const waiters: Array<{ n: number; resolve: (e: EventSourceMessage[]) => void }> = [];
  const parser = createParser({
    onEvent(event) {
      events.push(event);
      for (const w of waiters.filter((x) => events.length >= x.n)) w.resolve(events);
    },
  });
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  const ended = (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        parser.feed(decoder.decode(value, { stream: true }));
      }
    } catch {
      // aborted by the test
    }
  })();
  return {
    events,
    ended,
    waitFor: (n) =>
      events.length >= n
        ? Promise.resolve(events)
        : new Promise((resolve) => waiters.push({ n, resolve })),
    abort: () => controller.abort(),
  };
}
