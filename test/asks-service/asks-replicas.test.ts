/**
 * Asks with replicas: two relays on one PostgreSQL (each with its own DATA_DIR, so nothing is
 * shared but the database). An ask created at A is polled (ETag), streamed, reviewed and answered
 * at B, and the typed answer reaches the agent's /wait at A; a restarted replica keeps its asks.
 */
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { openPostgresStore } from '../../src/store/postgres-store.ts';
import { KINDS } from '../asks/fixtures.ts';
import { freshSchemaUrl } from '../helpers/postgres.ts';
import { freePort } from '../helpers/process.ts';
import { eventually, logLines, type RelayHandle, startRelay } from '../helpers/relay-env.ts';

let url: string;
let a: RelayHandle;
let b: RelayHandle;

/** A replica; `port` brings one back where it was (its 202s named that origin). */
async function replica(port = '0'): Promise<RelayHandle> {
  const relay = await startRelay({
    adapters: [createWebAdapter()],
    store: await openPostgresStore(url),
    env: { DATABASE_URL: url, PORT: port },
  });
  // Ready once the asks service's tables are there and it hears the other replica.
  await eventually(async () => (await readyz(relay)).body.ready, 10_000, 'the replica ready');
  return relay;
}

beforeAll(async () => {
  url = await freshSchemaUrl();
  a = await replica();
  b = await replica();
});
afterAll(async () => {
  await Promise.all([a.stop(), b.stop()]);
});

async function readyz(relay: RelayHandle) {
  const res = await request(`${relay.url}/readyz`);
  return { status: res.statusCode, body: (await res.body.json()) as any };
}

async function post(base: string, path: string, body: unknown, token?: string) {
  const res = await request(`${base}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token !== undefined && { authorization: `Bearer ${token}` }),
    },
    body: JSON.stringify(body),
  });
  return { status: res.statusCode, body: (await res.body.json()) as any };
}

/** The same URL at another replica (what a load balancer does). */
const at = (relay: RelayHandle, u: string) => u.replace(/^http:\/\/[^/]+/, relay.url);

/** An SSE stream: its events so far and when the server ends it. */
async function sse(u: string, token: string) {
  const res = await fetch(u, {
    headers: { accept: 'text/event-stream', authorization: `Bearer ${token}` },
  });
  expect(res.status).toBe(200);
  const events: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (e) => void events.push(e) });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  const ended = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return events;
      parser.feed(decoder.decode(value, { stream: true }));
    }
  })();
  return { events, ended };
}

const submitted_by = { platform: 'x-test', platform_user_id: 'u-1', display_name: 'Ann' };

describe('asks across two replicas on one PostgreSQL', () => {
  it('no "one replica" note any more; the asks service is a part that is up', async () => {
    for (const r of [a, b]) {
      const z = await readyz(r);
      expect(z.body.ready).toBe(true);
      expect(z.body.notes).toBeUndefined();
      expect(z.body.parts.asks.state).toBe('up');
    }
  });

  it('created at A; polled, streamed, reviewed and answered at B; the typed answer by /wait at A', async () => {
    const fx = KINDS['decision.single'];
    const created = await post(a.url, '/v1/asks', { target: 'web:replicas', content: fx.content });
    expect(created.status).toBe(202);
    const { hitl } = created.body;
    expect(hitl.poll_url.startsWith(a.url)).toBe(true);

    const owner = { authorization: `Bearer ${hitl.submit_token}` };
    const first = await request(at(b, hitl.poll_url), { headers: owner });
    expect(first.statusCode).toBe(200);
    expect(((await first.body.json()) as any).case_id).toBe(hitl.case_id);
    const etag = first.headers.etag as string;
    const again = await request(at(b, hitl.poll_url), {
      headers: { ...owner, 'if-none-match': etag },
    });
    await again.body.text();
    expect(again.statusCode).toBe(304);

    // A stream at each replica: each must carry the events the other replica commits.
    const streamA = await sse(hitl.events_url, hitl.submit_token);
    const streamB = await sse(at(b, hitl.events_url), hitl.submit_token);
    const page = await request(at(b, hitl.review_url));
    expect(page.statusCode).toBe(200);
    expect(await page.body.text()).toContain(String(fx.content.prompt));
    const submit = new URL(at(b, hitl.submit_url));
    const answer = await post(
      b.url,
      submit.pathname + submit.search,
      { ...fx.answer, submitted_via: 'x-test', submitted_by },
      hitl.submit_token,
    );
    expect(answer.status).toBe(200);
    for (const events of await Promise.all([streamA.ended, streamB.ended]))
      expect(events.map((e) => [e.id, e.event])).toEqual([
        ['1', 'review.opened'],
        ['2', 'review.completed'],
      ]);

    const waited = await request(`${a.url}/v1/asks/${created.body.relay.id}/wait?timeout=20`);
    const view = (await waited.body.json()) as any;
    expect(view).toMatchObject({ status: 'completed', answer: fx.result });
    // A refuses a second answer: the case is final for every replica.
    const late = await post(
      a.url,
      new URL(hitl.submit_url).pathname + new URL(hitl.submit_url).search,
      { ...fx.answer, submitted_via: 'x-test', submitted_by },
      hitl.submit_token,
    );
    expect(late.status).toBe(409);
  });

  it('a restarted replica (new DATA_DIR) keeps its asks: answered there, the answer read at B', async () => {
    const fx = KINDS['context.confirm'];
    const created = await post(a.url, '/v1/asks', { target: 'web:restart', content: fx.content });
    expect(created.status).toBe(202);
    const { hitl } = created.body;
    const port = new URL(a.url).port;
    await a.stop();
    a = await replica(port);
    const poll = await request(at(a, hitl.poll_url), {
      headers: { authorization: `Bearer ${hitl.submit_token}` },
    });
    expect(((await poll.body.json()) as any).status).toBe('pending');
    const submit = new URL(at(a, hitl.submit_url));
    const answer = await post(
      a.url,
      submit.pathname + submit.search,
      { ...fx.answer, submitted_via: 'x-test', submitted_by },
      hitl.submit_token,
    );
    expect(answer.status).toBe(200);
    const waited = await request(`${b.url}/v1/asks/${created.body.relay.id}/wait?timeout=20`);
    expect(await waited.body.json()).toMatchObject({ status: 'completed', answer: fx.result });
  });
});

describe('asks when DATABASE_URL cannot be opened for them', () => {
  it('/readyz shows parts.asks down with the reason, never the password; an ask is refused with 503', async () => {
    const before = logLines.length;
    // The relay's own store is the test's SQLite; only the asks service meets the dead database.
    const relay = await startRelay({
      adapters: [createWebAdapter()],
      env: { DATABASE_URL: `postgres://relay:s3cretpw@127.0.0.1:${await freePort()}/relay` },
    });
    try {
      const z = await eventually(
        async () => {
          const r = await readyz(relay);
          return r.body.parts.asks?.state === 'down' ? r : null;
        },
        10_000,
        'asks down',
      );
      expect(z.body.ready).toBe(false);
      expect(z.body.parts.asks.reason).toMatch(
        /asks service cannot open DATABASE_URL: .*ECONNREFUSED/,
      );
      const created = await post(relay.url, '/v1/asks', {
        target: 'web:down',
        content: KINDS['context.confirm'].content,
      });
      // Nothing half-made: the asks store is down, so the relay refuses with its retry advice.
      expect(created).toMatchObject({ status: 503, body: { error: 'store_unavailable' } });
      const lines = logLines.slice(before).join('\n');
      expect(lines).toContain('asks service cannot open DATABASE_URL');
      expect(lines).not.toContain('s3cretpw');
      expect(JSON.stringify(z.body)).not.toContain('s3cretpw');
    } finally {
      await relay.stop();
    }
  });
});
