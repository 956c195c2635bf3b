/**
 * The service on PostgreSQL with two replicas (two service instances on one schema, each on its own
 * loopback port and clock): a case created at one is polled, streamed and answered at the other;
 * a respond at A racing B's scheduler expiring the same case has exactly one winner, whose
 * callback is the only one sent; a restarted replica still has its cases.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ServiceStore } from '../../src/hitl-service/index.ts';
import { openPostgresServiceStore } from '../../src/hitl-service/service-store-postgres.ts';
import {
  act,
  createCase,
  type DemoServer,
  inlineSubmit,
  type Json,
  manualClock,
  openSse,
  poll,
  startDemoServer,
  submitBody,
} from '../demo/helpers.ts';
import { freshSchemaUrl } from '../helpers/postgres.ts';

/** A URL of one replica, moved to the other (as a load balancer would route it). */
const at = (server: DemoServer, url: string) => url.replace(/^http:\/\/[^/]+\/demo/, server.base);

async function replica(url: string, now: () => number): Promise<DemoServer> {
  const server = await startDemoServer({ store: await openPostgresServiceStore(url), now });
  await server.demo.ready();
  return server;
}

describe('two replicas on one PostgreSQL', () => {
  let url: string;
  const clockA = manualClock();
  const clockB = manualClock();
  let a: DemoServer;
  let b: DemoServer;
  beforeAll(async () => {
    url = await freshSchemaUrl();
    a = await replica(url, clockA.now);
    b = await replica(url, clockB.now);
  });
  afterAll(async () => {
    await Promise.all([a.close(), b.close()]);
  });

  it('a case created at A is polled (same ETag), streamed and answered at B; a stream at A hears it', async () => {
    const { hitl } = await createCase(a.base, 'approval', true);
    const first = await poll(at(b, hitl.poll_url));
    expect(first.json).toMatchObject({ status: 'pending', case_id: hitl.case_id });
    const etag = first.headers.get('etag')!;
    expect((await poll(hitl.poll_url)).headers.get('etag')).toBe(etag);
    expect((await poll(at(b, hitl.poll_url), { 'if-none-match': etag })).status).toBe(304);

    // Streams on both replicas, open before anything happens: each must hear the other's commits.
    const streamA = await openSse(hitl.events_url);
    const streamB = await openSse(at(b, hitl.events_url));
    const page = await fetch(at(b, hitl.review_url));
    expect(page.status).toBe(200);
    await page.text();
    await streamA.waitFor(1);
    expect(streamA.events.map((e) => [e.id, e.event])).toEqual([['1', 'review.opened']]);

    const submitted = await inlineSubmit(hitl.submit_url, hitl.submit_token, submitBody('approve'));
    expect(submitted.status).toBe(200);
    await Promise.all([streamA.ended, streamB.ended]);
    for (const s of [streamA, streamB])
      expect(s.events.map((e) => [e.id, e.event])).toEqual([
        ['1', 'review.opened'],
        ['2', 'review.completed'],
      ]);
    // Last-Event-ID from A's stream resumes at B.
    const resumed = await openSse(at(b, hitl.events_url), '1');
    await resumed.ended;
    expect(resumed.events.map((e) => e.id)).toEqual(['2']);
    const after = await poll(at(b, hitl.poll_url), { 'if-none-match': etag });
    expect(after.json).toMatchObject({ status: 'completed', result: { action: 'approve' } });
    // A second answer at B is refused as spec 7.5 says: the case is already final.
    const again = await inlineSubmit(
      at(b, hitl.submit_url),
      hitl.submit_token,
      submitBody('reject'),
    );
    expect(again.status).toBe(409);
    expect(again.json.error).toBe('duplicate_submission');
  });

  it('respond at A racing expiry by B: one winner per case, its answer and its one callback agree', async () => {
    const hook = await callbackReceiver();
    try {
      const n = 12;
      // A's clock is just before expiry, B's just after: B's scheduler expires what A answers.
      const created = await Promise.all(
        Array.from({ length: n }, () =>
          createCase(a.base, 'approval', true, {
            expires_in_seconds: 60,
            hitl_callback_url: hook.url,
          }),
        ),
      );
      const answers = Promise.all(
        created.map(({ hitl }) =>
          inlineSubmit(hitl.submit_url, hitl.submit_token, submitBody('approve')),
        ),
      );
      clockB.advance(61_000);
      const responses = await answers;
      const finals = await Promise.all(
        created.map(async ({ hitl }) => (await poll(at(b, hitl.poll_url))).json as Json),
      );
      // Whatever A did not win, B's scheduler expires soon (its clock is past expires_at).
      for (let i = 0; i < n; i++) {
        const r = responses[i]!;
        if (r.status === 200) expect(finals[i]!.status).toBe('completed');
        else {
          expect(r.status).toBe(410);
          expect(r.json.error).toBe('case_expired');
        }
      }
      const settled = await eventually(async () => {
        const all = await Promise.all(
          created.map(async ({ hitl }) => (await poll(hitl.poll_url)).json as Json),
        );
        return all.every((x) => x.status === 'completed' || x.status === 'expired') ? all : null;
      });
      const calls = await eventually(async () => (hook.calls.length >= n ? hook.calls : null));
      expect(calls).toHaveLength(n);
      const byCase = new Map(calls.map((c) => [c.case_id, c.event]));
      expect(byCase.size).toBe(n);
      for (const s of settled)
        expect(byCase.get(s.case_id)).toBe(
          s.status === 'completed' ? 'review.completed' : 'review.expired',
        );
      // The store holds exactly one terminal event per case.
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      const r = await c.query(
        "SELECT case_id, count(*)::int AS n FROM asks_events WHERE event IN ('review.completed','review.expired','review.cancelled') GROUP BY case_id",
      );
      await c.end();
      expect(r.rows.filter((x) => created.some((k) => k.hitl.case_id === x.case_id))).toHaveLength(
        n,
      );
      expect(r.rows.every((x) => x.n === 1)).toBe(true);
    } finally {
      await hook.close();
    }
  });

  it('both have read the case when A answers and B expires it: the first to write wins, the other sees it final', async () => {
    const hook = await callbackReceiver();
    // A row lock held by the test makes both writers wait after reading: a real interleaving.
    const locker = new pg.Client({ connectionString: url });
    await locker.connect();
    // Another connection watches: inside the locker's transaction pg_stat_activity is a snapshot.
    const watcher = new pg.Client({ connectionString: url });
    await watcher.connect();
    const waiting = async (n: number) =>
      eventually(async () => {
        // Writers waiting for a row lock (the second queues behind the first, not the test).
        const r = await watcher.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity
           WHERE wait_event_type = 'Lock' AND query LIKE 'UPDATE asks_cases%'`,
        );
        return r.rows[0].n >= n ? true : null;
      });
    try {
      const race = async (first: 'A' | 'B') => {
        const base = clockA.now();
        clockB.advance(base - clockB.now());
        const { hitl } = await createCase(a.base, 'approval', true, {
          expires_in_seconds: 60,
          hitl_callback_url: hook.url,
        });
        await locker.query('BEGIN');
        await locker.query('SELECT 1 FROM asks_cases WHERE case_id = $1 FOR UPDATE', [
          hitl.case_id,
        ]);
        const expireAtB = async () => {
          clockB.advance(61_000);
          await waiting(first === 'B' ? 1 : 2);
        };
        let answer: Promise<{ status: number; json: Json }> | undefined;
        const answerAtA = async () => {
          answer = inlineSubmit(hitl.submit_url, hitl.submit_token, submitBody('approve'));
          await waiting(first === 'A' ? 1 : 2);
        };
        if (first === 'A') await answerAtA().then(expireAtB);
        else await expireAtB().then(answerAtA);
        await locker.query('COMMIT');
        return { hitl, answer: await answer! };
      };

      const won = await race('A');
      expect(won.answer.status).toBe(200);
      const lost = await race('B');
      expect(lost.answer.status).toBe(410);
      expect(lost.answer.json.error).toBe('case_expired');
      expect((await poll(won.hitl.poll_url)).json).toMatchObject({ status: 'completed' });
      expect((await poll(at(b, lost.hitl.poll_url))).json).toMatchObject({ status: 'expired' });
      const calls = await eventually(async () => (hook.calls.length >= 2 ? hook.calls : null));
      expect(calls.map((c) => [c.case_id, c.event]).sort()).toEqual(
        [
          [won.hitl.case_id, 'review.completed'],
          [lost.hitl.case_id, 'review.expired'],
        ].sort(),
      );
      for (const { hitl } of [won, lost]) {
        const events = (await openSseEvents(at(b, hitl.events_url))).map((e) => e.event);
        expect(events.filter((e) => e !== 'review.opened')).toHaveLength(1);
      }
    } finally {
      await locker.query('ROLLBACK').catch(() => {});
      await locker.end();
      await watcher.end();
      await hook.close();
    }
  });

  it('a commit on a version another replica already changed writes nothing', async () => {
    const store: ServiceStore = await openPostgresServiceStore(url);
    try {
      const { hitl } = await createCase(a.base, 'confirmation', true);
      const seen = (await store.get(hitl.case_id))!;
      await act(b.base, hitl.case_id, { step: 'cancel' });
      const late = await store.commit({ ...seen.kase, status: 'opened' }, seen.version, [
        { event: 'review.opened', data: { case_id: hitl.case_id } },
      ]);
      expect(late).toBeNull();
      expect((await store.get(hitl.case_id))!.kase.status).toBe('cancelled');
      expect((await store.eventsAfter(hitl.case_id, 0)).map((e) => e.event)).toEqual([
        'review.cancelled',
      ]);
    } finally {
      await store.close();
    }
  });

  it('the shared tables hold token hashes, never a token', async () => {
    const { hitl } = await createCase(a.base, 'approval', true);
    await inlineSubmit(hitl.submit_url, hitl.submit_token, submitBody('approve'));
    const reviewToken = new URL(hitl.review_url).searchParams.get('token')!;
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      const row = (await c.query('SELECT * FROM asks_cases WHERE case_id = $1', [hitl.case_id]))
        .rows[0];
      const sha = (t: string) => createHash('sha256').update(t).digest();
      expect(row.review_hash).toEqual(sha(reviewToken));
      expect(row.submit_hash).toEqual(sha(hitl.submit_token));
      const dump = JSON.stringify([
        row.data,
        (await c.query('SELECT * FROM asks_events')).rows,
        (await c.query('SELECT * FROM asks_submissions')).rows,
      ]);
      for (const token of [reviewToken, hitl.submit_token]) expect(dump).not.toContain(token);
    } finally {
      await c.end();
    }
  });

  it('a restarted replica keeps its cases and tokens', async () => {
    const { hitl } = await createCase(a.base, 'approval', true);
    await a.close();
    a = await replica(url, clockA.now);
    const moved = (u: string) => at(a, u);
    expect((await poll(moved(hitl.poll_url))).json).toMatchObject({ status: 'pending' });
    const r = await inlineSubmit(moved(hitl.submit_url), hitl.submit_token, submitBody('approve'));
    expect(r.status).toBe(200);
  });
});

/** Every event of a finished case, replayed by its stream. */
async function openSseEvents(url: string) {
  const sse = await openSse(url);
  await sse.ended;
  return sse.events;
}

/** A loopback receiver of the service's callbacks. */
async function callbackReceiver() {
  const calls: Array<{ case_id: string; event: string }> = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => {
      body += d;
    });
    req.on('end', () => {
      const parsed = JSON.parse(body) as { case_id: string; event: string };
      calls.push({ case_id: parsed.case_id, event: parsed.event });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    calls,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** Re-checks (on the event loop, not a fixed sleep) until `check` gives a value. */
async function eventually<T>(check: () => Promise<T | null>, ms = 5000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v !== null) return v;
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}
