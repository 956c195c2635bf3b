/**
 * `hitl_callback_url` on `POST /v1/asks` (spec 9, issue 31 service side): accepted, echoed in the
 * 202, and honoured with signed callbacks on every terminal event. The agent's side is a fake
 * receiver on 127.0.0.1 that verifies X-HITL-Signature exactly as spec 9 says (HMAC-SHA256 of the
 * raw body bytes, timing-safe compare) and de-duplicates on `event_id`. Destinations are checked like
 * any outbound URL (400 naming the field; names resolved by an injected resolver, never the
 * network), redirects are not followed, and a failing callback never changes the ask.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { CallbackSender } from '../../src/hitl-service/callback-sender.ts';
import type { CallbackOutcome } from '../../src/hitl-service/index.ts';
import { createLogger } from '../../src/log.ts';
import { createGuardedAgent } from '../../src/net/http.ts';
import { KINDS } from '../asks/fixtures.ts';
import { eventually, logLines, type RelayHandle, startRelay } from '../helpers/relay-env.ts';

const SECRET = 'asks-callback-secret-for-tests-0123456789';

interface Received {
  raw: Buffer;
  signature: string | undefined;
  eventId: string | undefined;
}

/** What a receiver answers to the n-th request: a status, or a redirect elsewhere. */
type Answer = number | { redirect: string };

/** An agent's webhook: verifies each callback, executes each event once (by event_id). */
async function receiver(plan: Answer[] = []) {
  const received: Received[] = [];
  const executed = new Map<string, Record<string, any>>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = {
        raw: Buffer.concat(chunks),
        signature: req.headers['x-hitl-signature'] as string | undefined,
        eventId: req.headers['x-hitl-event-id'] as string | undefined,
      };
      received.push(r);
      const answer = plan[received.length - 1] ?? 200;
      if (typeof answer === 'object') {
        res.writeHead(302, { location: answer.redirect }).end();
        return;
      }
      // Only a trusted callback is believed, and each event is acted on once however often it comes.
      if (answer < 300 && verified(r)) {
        const body = JSON.parse(r.raw.toString('utf8'));
        if (!executed.has(body.event_id)) executed.set(body.event_id, body);
      }
      res.statusCode = answer;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hooks/hitl?tenant=t1`,
    received,
    executed,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Spec 9: HMAC-SHA256 of the exact body bytes under the shared secret, compared timing-safe. */
function verified(r: Received): boolean {
  const expected = Buffer.from(
    `sha256=${createHmac('sha256', SECRET).update(r.raw).digest('hex')}`,
  );
  const given = Buffer.from(r.signature ?? '');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Names the test resolver knows (never the network). */
const NAMES: Record<string, string[]> = {
  'hooks.internal.example': ['10.20.30.40'],
  'metadata.example': ['169.254.169.254'],
  'rebind.example': ['93.184.216.34', '127.0.0.1'],
};
const resolved: string[] = [];
const resolve = async (host: string) => {
  resolved.push(host);
  const a = NAMES[host];
  if (!a) throw new Error('ENOTFOUND');
  return a;
};

let relay: RelayHandle;
let strict: RelayHandle;
beforeAll(async () => {
  relay = await startRelay({
    adapters: [createWebAdapter()],
    env: { RELAY_NOTIFY_SECRET: SECRET },
  });
  // Production rules: HTTPS only, names resolved at intake (by the test's resolver).
  strict = await startRelay({
    adapters: [createWebAdapter()],
    resolve,
    env: {
      RELAY_NOTIFY_SECRET: SECRET,
      RELAY_ALLOW_HTTP_LOOPBACK: '0',
      PUBLIC_URL: 'https://relay.example',
      RELAY_ALLOW_HOSTS: 'relay.example',
    },
  });
});
afterAll(async () => {
  await relay?.stop();
  await strict?.stop();
});

async function ask(on: RelayHandle, extra: Record<string, unknown>) {
  const res = await request(`${on.url}/v1/asks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      target: 'web:callbacks',
      content: KINDS['approval.binary'].content,
      ...extra,
    }),
  });
  return { status: res.statusCode, body: (await res.body.json()) as any };
}

/** The person answers on the review page. */
async function approveOnPage(hitl: any) {
  const respond = hitl.review_url
    .replace('/review/', '/api/reviews/')
    .replace('?token=', '/respond?token=');
  const res = await request(respond, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ decision: 'approve' }).toString(),
  });
  await res.body.dump();
  expect(res.statusCode).toBe(200);
}

async function cancelOnPage(hitl: any) {
  const token = new URL(hitl.review_url).searchParams.get('token')!;
  const res = await request(`${hitl.poll_url.replace(/\/status$/, '/cancel')}?token=${token}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ reason: 'not now' }),
  });
  await res.body.dump();
  expect(res.statusCode).toBe(200);
}

/** The ask's case view once its history holds `kind`. */
async function historyEntry(id: string, kind: string) {
  return eventually(
    async () => {
      const res = await request(`${relay.url}/v1/asks/${id}`);
      const view = (await res.body.json()) as any;
      const entry = view.case.history?.find((h: any) => h.kind === kind);
      return entry ? { view, entry } : undefined;
    },
    20_000,
    `${kind} in the history of ${id}`,
  );
}

describe('hitl_callback_url on POST /v1/asks (spec 9)', () => {
  it('ASK-CALLBACK-1 is echoed, and review.completed arrives signed as spec 9 says', async () => {
    const hook = await receiver();
    const { status, body } = await ask(relay, { hitl_callback_url: hook.url });
    expect(status, JSON.stringify(body)).toBe(202);
    expect(body.hitl.callback_url).toBe(hook.url);
    await approveOnPage(body.hitl);
    const { view, entry } = await historyEntry(body.relay.id, 'hitl_callback_delivered');
    expect(entry).toMatchObject({ event: 'review.completed', attempts: 1 });
    expect(hook.received).toHaveLength(1);
    const [got] = hook.received;
    expect(verified(got!)).toBe(true);
    const sent = JSON.parse(got!.raw.toString('utf8'));
    expect(sent).toMatchObject({
      event: 'review.completed',
      case_id: body.hitl.case_id,
      event_id: got!.eventId,
      completed_at: expect.any(String),
      result: { action: 'approve' },
    });
    // A changed byte breaks the signature: the receiver believes nothing it cannot verify.
    expect(
      verified({ ...got!, raw: Buffer.from(got!.raw.toString().replace('approve', 'reject')) }),
    ).toBe(false);
    expect(view.status).toBe('completed');
    // The secret is only ever an HMAC key: never in the log, the case view or the callback itself.
    expect(logLines.join('\n')).not.toContain(SECRET);
    expect(JSON.stringify(view)).not.toContain(SECRET);
    expect(got!.raw.toString()).not.toContain(SECRET);
    // Nor is the callback URL (it may carry a token) in the outcome the history keeps.
    expect(JSON.stringify(entry)).not.toContain('tenant=t1');
    await hook.close();
  });

  it('ASK-CALLBACK-2 a 5xx is retried with the same event_id: the receiver acts once', async () => {
    const hook = await receiver([503, 200]);
    const { body } = await ask(relay, { hitl_callback_url: hook.url });
    await cancelOnPage(body.hitl);
    const { entry } = await historyEntry(body.relay.id, 'hitl_callback_delivered');
    expect(entry).toMatchObject({ event: 'review.cancelled', attempts: 2 });
    expect(hook.received).toHaveLength(2);
    const [a, b] = hook.received;
    // Byte for byte the same delivery, so the same signature and the same event id.
    expect(a!.raw.equals(b!.raw)).toBe(true);
    expect(a!.signature).toBe(b!.signature);
    expect(a!.eventId).toBe(b!.eventId);
    expect(hook.executed.size).toBe(1);
    expect([...hook.executed.values()][0]).toMatchObject({ event: 'review.cancelled' });
    await hook.close();
  });

  it('ASK-CALLBACK-3 a callback that keeps failing is given up, logged and shown; the ask is unharmed', async () => {
    const hook = await receiver([500, 500, 500, 500]);
    const { body } = await ask(relay, { hitl_callback_url: hook.url });
    await approveOnPage(body.hitl);
    const { view, entry } = await historyEntry(body.relay.id, 'hitl_callback_failed');
    expect(entry).toMatchObject({
      event: 'review.completed',
      attempts: 3,
      error: 'HTTP 500',
    });
    // Bounded: three attempts in all, none after the give-up was recorded.
    expect(hook.received).toHaveLength(3);
    expect(view).toMatchObject({ status: 'completed', final: true, answer: expect.anything() });
    expect(
      logLines.some((l) => l.includes('ask callback failed') && l.includes(body.relay.id)),
    ).toBe(true);
    await hook.close();
  });

  it('ASK-CALLBACK-4 a redirect is not followed', async () => {
    const elsewhere = await receiver();
    const hook = await receiver([{ redirect: elsewhere.url }]);
    const { body } = await ask(relay, { hitl_callback_url: hook.url });
    await approveOnPage(body.hitl);
    const { entry } = await historyEntry(body.relay.id, 'hitl_callback_failed');
    expect(entry).toMatchObject({ attempts: 1, error: 'redirect not followed (HTTP 302)' });
    expect(hook.received).toHaveLength(1);
    expect(elsewhere.received).toHaveLength(0);
    await hook.close();
    await elsewhere.close();
  });

  it('ASK-CALLBACK-5 a refused destination is a 400 naming hitl_callback_url, before any ask exists', async () => {
    const refused = async (on: RelayHandle, url: string, why: RegExp) => {
      const { status, body } = await ask(on, { hitl_callback_url: url });
      expect(status, JSON.stringify(body)).toBe(400);
      expect(body.details).toEqual([
        { path: 'hitl_callback_url', message: expect.stringMatching(why) },
      ]);
    };
    await refused(relay, 'https://10.0.0.7/hook', /private or link-local address 10\.0\.0\.7/);
    await refused(relay, 'https://169.254.169.254/latest', /link-local/);
    await refused(relay, 'http://agent.example/hook', /must be HTTPS/);
    await refused(relay, 'https://user:pw@agent.example/hook', /credentials/);
    await refused(relay, 'not a url', /not a URL/);
    // Production rules: a name is judged by every address it resolves to (the test's resolver).
    await refused(
      strict,
      'https://hooks.internal.example/cb',
      /resolves to a refused address: private/,
    );
    await refused(strict, 'https://metadata.example/cb', /169\.254\.169\.254/);
    await refused(strict, 'https://rebind.example/cb', /loopback/);
    await refused(strict, 'http://127.0.0.1:9/cb', /must be HTTPS/);
    expect(resolved).toEqual(['hooks.internal.example', 'metadata.example', 'rebind.example']);
    const list = await request(`${strict.url}/v1/cases`);
    expect(((await list.body.json()) as any).cases).toEqual([]);
  });
});

describe('the callback sender enforces the URL policy at connect (DNS rebinding)', () => {
  it('ASK-CALLBACK-6 an address refused when connecting is never contacted, and not retried', async () => {
    const hook = await receiver();
    const outcomes: CallbackOutcome[] = [];
    let ended!: () => void;
    const done = new Promise<void>((r) => {
      ended = r;
    });
    const sender = new CallbackSender({
      secret: SECRET,
      log: createLogger({ level: 'silent' }),
      // Production policy: loopback is refused on the address actually connected to.
      dispatcher: createGuardedAgent({ allowHttpLoopback: false, allowHosts: [] }),
      onOutcome: (o) => {
        outcomes.push(o);
        if (outcomes.length === 2) ended();
      },
    });
    const port = new URL(hook.url).port;
    const event = { case_id: 'review_x', seq: 3, event: 'review.completed' as const, data: {} };
    sender.send(`http://127.0.0.1:${port}/hook`, event);
    // "localhost" passes a literal check; its resolved address is refused when connecting.
    sender.send(`http://localhost:${port}/hook`, { ...event, case_id: 'review_y' });
    await done;
    for (const o of outcomes) {
      expect(o).toMatchObject({ state: 'failed', attempts: 1 });
      expect(o.error).toMatch(/loopback addresses are not allowed/);
    }
    expect(hook.received).toHaveLength(0);
    sender.close();
    await hook.close();
  });
});
