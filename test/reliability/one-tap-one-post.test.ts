/**
 * Finding 3 (one tap, several POSTs): 300 simultaneous taps against a service answering in 3 s
 * made 108 double POSTs (the deadline ran while a request waited for a connection, and timeouts
 * were retried); a hanging submit_url got 3 POSTs per tap. Now the deadline starts when a request
 * gets its slot, only a request that never left is retried, and a full queue is refused at once.
 *
 * The service is a plain HTTP server on loopback that counts the POSTs it receives.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it, vi } from 'vitest';
import { SUBMIT_GATE_DEFAULTS } from '../../src/config/config.ts';
import { createGuardedAgent } from '../../src/net/http.ts';
import type { SubmitRequest } from '../../src/protocol/actions.ts';
import { submit } from '../../src/service-client/submit.ts';
import { SubmitGate } from '../../src/service-client/submit-gate.ts';

const originOf = (url: string) => new URL(url).origin;

const policy = { allowHttpLoopback: true, allowHosts: [] };
const body: SubmitRequest = {
  action: 'approve',
  data: {},
  submitted_via: 'telegram',
  submitted_by: { platform: 'telegram', platform_user_id: '1', display_name: 'Ann' },
} as unknown as SubmitRequest;
const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of closers.splice(0)) await c();
});

/** A service whose answer to each POST is decided by `answer`; counts POSTs. */
async function service(
  answer: (req: IncomingMessage, res: ServerResponse, n: number) => void,
  port = 0,
): Promise<{ url: string; posts: () => number; server: Server }> {
  let posts = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => answer(req, res, ++posts));
  });
  server.listen(port, '127.0.0.1');
  await once(server, 'listening');
  closers.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });
  const p = (server.address() as AddressInfo).port;
  return { url: `http://127.0.0.1:${p}/api/reviews/r1/respond`, posts: () => posts, server };
}

const ok = (res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ status: 'completed', case_id: 'r1' }));
};

it('finding 3 (one tap, several POSTs): 1,000 simultaneous taps against a 3 s service make exactly 1,000 POSTs', async () => {
  const svc = await service((_req, res) => setTimeout(() => ok(res), 3000));
  const gate = new SubmitGate({ perOrigin: 250 });
  const dispatcher = createGuardedAgent(policy, { connections: gate.perOrigin });
  closers.push(() => dispatcher.close());
  const started = Date.now();
  const outcomes = await Promise.all(
    Array.from({ length: 1000 }, () =>
      submit(svc.url, 'tok', body, {
        dispatcher,
        gate,
        now: Date.now,
        caseOrigin: originOf(svc.url),
      }),
    ),
  );
  const kinds = outcomes.reduce<Record<string, number>>((m, o) => {
    m[o.kind] = (m[o.kind] ?? 0) + 1;
    return m;
  }, {});
  console.log(`1,000 taps, 3 s service: ${svc.posts()} POSTs in ${Date.now() - started} ms`, kinds);
  expect(svc.posts()).toBe(1000);
  expect(kinds).toEqual({ accepted: 1000 });
}, 60_000);

it('finding 3 (one tap, several POSTs): a hanging submit_url gets one POST, a timeout is never repeated', async () => {
  const svc = await service(() => {}); // reads the request, never answers
  const dispatcher = createGuardedAgent(policy);
  closers.push(() => dispatcher.destroy());
  const outcome = await submit(svc.url, 'tok', body, {
    caseOrigin: originOf(svc.url),
    dispatcher,
    now: Date.now,
    timeoutMs: 300,
    sleep: async () => {},
  });
  // Sent and unanswered is an unknown outcome (the service may have recorded it), never "failed".
  expect(outcome).toEqual({
    kind: 'unknown',
    reason: 'the service did not answer in time',
    timeoutS: 0.3,
  });
  expect(svc.posts()).toBe(1);
});

it('finding 3 (one tap, several POSTs): a 5xx answer is not repeated (the service may have recorded it)', async () => {
  const svc = await service((_req, res) => {
    res.writeHead(503);
    res.end('busy');
  });
  const dispatcher = createGuardedAgent(policy);
  closers.push(() => dispatcher.close());
  const outcome = await submit(svc.url, 'tok', body, {
    caseOrigin: originOf(svc.url),
    dispatcher,
    now: Date.now,
    sleep: async () => {},
  });
  // Reached and failing is the service failing, not the network (issue 14).
  expect(outcome).toMatchObject({ kind: 'service_failed', status: 503 });
  expect(svc.posts()).toBe(1);
});

it('finding 3 (one tap, several POSTs): a refused connection (the request never left) is tried again', async () => {
  // Learn a free loopback port, then leave it closed: the first attempt is refused.
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((r) => probe.close(() => r()));
  let svc: Awaited<ReturnType<typeof service>> | undefined;
  const dispatcher = createGuardedAgent(policy);
  closers.push(() => dispatcher.close());
  const outcome = await submit(`http://127.0.0.1:${port}/respond`, 'tok', body, {
    caseOrigin: `http://127.0.0.1:${port}`,
    dispatcher,
    now: Date.now,
    // The service comes up during the back-off.
    sleep: async () => {
      svc ??= await service((_req, res) => ok(res), port);
    },
  });
  expect(outcome).toMatchObject({ kind: 'accepted' });
  expect(svc?.posts()).toBe(1);
});

it('finding 3 (one tap, several POSTs): a full queue is refused at once and nothing is sent', async () => {
  const svc = await service((_req, res) => setTimeout(() => ok(res), 200));
  const gate = new SubmitGate({ perOrigin: 1, maxQueue: 1 });
  const dispatcher = createGuardedAgent(policy);
  closers.push(() => dispatcher.close());
  const outcomes = await Promise.all(
    [1, 2, 3].map(() =>
      submit(svc.url, 'tok', body, {
        dispatcher,
        gate,
        now: Date.now,
        caseOrigin: originOf(svc.url),
      }),
    ),
  );
  expect(outcomes.map((o) => o.kind).sort()).toEqual(['accepted', 'accepted', 'queue_full']);
  expect(svc.posts()).toBe(2);
});

it('issue 15: 1,000 taps at the production default (64 slots, 20 s at most in the queue) against a 3 s service: each gets its slot or "busy, nothing sent" — at once when the queue is known to be too long', async () => {
  vi.useFakeTimers();
  try {
    const gate = new SubmitGate(); // the production defaults
    expect(gate.perOrigin).toBe(64);
    const origin = 'https://service.example';
    /** 1,000 taps at once; each slot is held for the 3 s the service takes. */
    const wave = async () => {
      const start = Date.now();
      const result = { sent: 0, refusedAtOnce: 0, refusedAfterWait: 0, longestWaitMs: 0 };
      const taps = Array.from({ length: 1000 }, async () => {
        const release = await gate.acquire(origin);
        const waited = Date.now() - start;
        if (!release) {
          if (waited === 0) result.refusedAtOnce++;
          else result.refusedAfterWait++;
          return;
        }
        result.sent++; // the one POST of this tap
        result.longestWaitMs = Math.max(result.longestWaitMs, waited);
        setTimeout(release, 3000);
      });
      await vi.advanceTimersByTimeAsync(60_000);
      await Promise.all(taps);
      return result;
    };
    // First wave: nothing is known of the service yet, so taps queue; those without a slot in
    // 20 s are refused then (nothing sent). 64 slots every 3 s: 7 rounds fit in 20 s.
    const first = await wave();
    expect(first).toEqual({
      sent: 448,
      refusedAtOnce: 0,
      refusedAfterWait: 552,
      longestWaitMs: 18_000,
    });
    // Second wave: the service is known to take 3 s, so a tap that could not get a slot within
    // 20 s is told at once instead of after waiting; the others all get theirs in time.
    const second = await wave();
    expect(second).toEqual({
      sent: 448,
      refusedAtOnce: 552,
      refusedAfterWait: 0,
      longestWaitMs: 18_000,
    });
    expect(first.longestWaitMs).toBeLessThanOrEqual(SUBMIT_GATE_DEFAULTS.maxWaitMs);
  } finally {
    vi.useRealTimers();
  }
});

it('issue 15: 1,000 taps through the production default of 64 connections make exactly one POST each or none (queue_full), never two', async () => {
  // The 3 s service and 20 s queue limit scaled down ten times, over real HTTP.
  const svc = await service((_req, res) => setTimeout(() => ok(res), 300));
  const gate = new SubmitGate({ maxWaitMs: 2000 });
  const dispatcher = createGuardedAgent(policy, { connections: gate.perOrigin });
  closers.push(() => dispatcher.close());
  const outcomes = await Promise.all(
    Array.from({ length: 1000 }, () =>
      submit(svc.url, 'tok', body, {
        dispatcher,
        gate,
        now: Date.now,
        caseOrigin: originOf(svc.url),
      }),
    ),
  );
  const kinds = outcomes.reduce<Record<string, number>>((m, o) => {
    m[o.kind] = (m[o.kind] ?? 0) + 1;
    return m;
  }, {});
  console.log(
    '1,000 taps, 64 slots, 0.3 s service, 2 s queue limit:',
    kinds,
    `${svc.posts()} POSTs`,
  );
  expect(Object.keys(kinds).sort()).toEqual(['accepted', 'queue_full']);
  expect(svc.posts()).toBe(kinds.accepted);
  expect(kinds.accepted).toBeGreaterThanOrEqual(64);
}, 30_000);
