/**
 * Outbound URL safety: the URLs of a 202 body come from a service we did not write. HTTPS only
 * (plain HTTP to loopback in the local default), no private / link-local / metadata addresses
 * unless allowlisted, checked at intake and again on every address at connect; no redirects (a
 * bearer token never travels to another origin); bodies limited in size and in time.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { call, createGuardedAgent, NetworkError } from '../../src/net/http.ts';
import { type UrlPolicy, urlRefusal } from '../../src/net/url-policy.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';
import { type HostileService, startHostileService } from './hostile-service.ts';
import { cardOf, tapWeb } from './web.ts';

const strict: UrlPolicy = { allowHttpLoopback: false, allowHosts: [] };
const local: UrlPolicy = { allowHttpLoopback: true, allowHosts: [] };

async function listCases(relay: RelayHandle): Promise<any[]> {
  const headers: Record<string, string> = {};
  const key = relay.relay.services.config.apiKey;
  if (key) headers.authorization = `Bearer ${key}`;
  const res = await request(`${relay.url}/v1/cases?limit=500`, { headers });
  return ((await res.body.json()) as { cases: any[] }).cases;
}

async function expectRejects(p: Promise<unknown>, code: NetworkError['code']): Promise<string> {
  const err = await p.then(
    () => {
      throw new Error('the call succeeded');
    },
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(NetworkError);
  expect((err as NetworkError).code).toBe(code);
  return (err as Error).message;
}

describe('the URL policy on literal URLs (intake)', () => {
  const refused: Array<[string, UrlPolicy, RegExp]> = [
    ['https://169.254.169.254/latest/meta-data/', local, /link-local address 169\.254\.169\.254/],
    ['http://10.0.0.1/status', local, /must be HTTPS/],
    ['https://10.0.0.1/status', local, /private or link-local address 10\.0\.0\.1/],
    ['https://172.16.5.4/', local, /private/],
    ['https://192.168.1.1/', local, /private/],
    ['https://100.100.100.200/latest/meta-data', local, /private/], // Alibaba's metadata address
    ['https://[fd00:ec2::254]/latest', local, /private/], // AWS's IPv6 metadata address
    ['https://[fe80::1]/', local, /private/],
    ['https://[::ffff:169.254.169.254]/', local, /private/], // IPv4-mapped IPv6
    ['https://[::ffff:a9fe:a9fe]/', local, /private/],
    ['https://0.0.0.0/', local, /private/],
    ['https://[::]/', local, /private/],
    ['https://2852039166/', local, /private/], // 169.254.169.254 as one decimal number
    ['https://0xa9.0xfe.0xa9.0xfe/', local, /private/], // ... and in hex
    ['https://127.0.0.1/', strict, /loopback/],
    ['https://localhost:8443/', strict, /loopback/],
    ['https://[::1]/', strict, /loopback/],
    ['http://127.0.0.1:8080/', strict, /must be HTTPS/],
    ['http://service.example/', local, /must be HTTPS/],
    ['https://user:pw@service.example/', local, /credentials/],
    ['ftp://service.example/', local, /must be HTTPS/],
    ['file:///etc/passwd', local, /must be HTTPS/],
    ['not a url', local, /not a URL/],
  ];
  for (const [url, policy, why] of refused)
    it(`refuses ${url}${policy === strict ? ' (no loopback)' : ''}`, () => {
      expect(urlRefusal(url, policy)).toMatch(why);
    });

  it('accepts public HTTPS URLs, loopback HTTP in the local default, and allowlisted hosts', () => {
    expect(urlRefusal('https://api.service.example/v1/reviews/x/status', strict)).toBeNull();
    expect(urlRefusal('https://93.184.215.14/x', strict)).toBeNull();
    expect(urlRefusal('http://127.0.0.1:8787/demo', local)).toBeNull();
    expect(urlRefusal('https://10.1.2.3/x', { ...strict, allowHosts: ['10.1.2.3'] })).toBeNull();
  });
});

describe('intake refuses unsafe service URLs and fetches nothing', () => {
  let relay: RelayHandle;
  let strictRelay: RelayHandle;
  let svc: HostileService;
  beforeAll(async () => {
    svc = await startHostileService();
    relay = await startRelay({ adapters: [createWebAdapter()] });
    strictRelay = await startRelay({
      adapters: [createWebAdapter()],
      env: { RELAY_API_KEY: 'strict-relay-api-key-0123456789', HOST: '127.0.0.1' },
    });
  });
  afterAll(async () => {
    await relay?.stop();
    await strictRelay?.stop();
    await svc?.close();
  });

  it('a poll_url at the metadata address or at http://10.0.0.1 gets 400 naming the field', async () => {
    const before = (await listCases(relay)).length;
    const metadata = svc.body202({ poll_url: 'https://169.254.169.254/latest/meta-data/iam' });
    const a = await relay.send('web:ssrf', metadata);
    expect(a.status).toBe(400);
    expect(a.body.error).toBe('invalid_hitl');
    expect(a.body.details).toEqual([
      {
        path: 'hitl.poll_url',
        message: 'private or link-local address 169.254.169.254 is not allowed',
      },
    ]);
    const privateHttp = svc.body202({ poll_url: 'http://10.0.0.1/status' });
    const b = await relay.send('web:ssrf', privateHttp);
    expect(b.status).toBe(400);
    expect(b.body.details).toEqual([
      {
        path: 'hitl.poll_url',
        message: 'must be HTTPS (plain HTTP is accepted for loopback only)',
      },
    ]);
    // Every URL field is judged, and notify_url too.
    const all = svc.body202({
      review_url: 'https://169.254.169.254/review',
      submit_url: 'https://10.0.0.1/respond',
      events_url: 'https://192.168.0.10/events',
    });
    const c = await relay.send('web:ssrf', all, { notify_url: 'https://172.16.0.1/hook' });
    expect(c.status).toBe(400);
    expect(c.body.details.map((d: any) => d.path).sort()).toEqual([
      'hitl.events_url',
      'hitl.review_url',
      'hitl.submit_url',
      'notify_url',
    ]);
    expect((await listCases(relay)).length).toBe(before);
    expect(await cardOf(relay.url, 'ssrf', 'any')).toBeUndefined();
  });

  it('with an API key, loopback service URLs are refused and the service is never contacted', async () => {
    const body = svc.body202();
    for (const f of ['poll_url', 'submit_url', 'review_url'])
      body.hitl[f] = body.hitl[f].replace('http://', 'https://');
    const r = await strictRelay.send('web:strict', body);
    expect(r.status).toBe(400);
    expect(r.body.details.map((d: any) => d.message)).toEqual([
      'loopback addresses are not allowed',
      'loopback addresses are not allowed',
      'loopback addresses are not allowed',
    ]);
    const plain = await strictRelay.send('web:strict', svc.body202());
    expect(plain.status).toBe(400);
    expect(plain.body.details[0].message).toBe('must be HTTPS');
    expect(await listCases(strictRelay)).toEqual([]);
    expect(svc.connections()).toBe(0);
  });
});

describe('the guarded agent checks every address at connect', () => {
  let server: Server;
  let port = 0;
  let connections = 0;
  beforeAll(async () => {
    server = createServer((_req, res) => res.end('{"status":"pending"}'));
    server.on('connection', () => connections++);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('a host name that resolves to a refused address is not connected to', async () => {
    const agent = createGuardedAgent(strict);
    const message = await expectRejects(
      call(`http://localhost:${port}/status`, { dispatcher: agent }),
      'refused_by_policy',
    );
    expect(message).toBe('localhost: loopback addresses are not allowed');
    await agent.close();
    expect(connections).toBe(0);
  });

  it('IP literals are judged at connect too (a case stored under a laxer configuration)', async () => {
    const agent = createGuardedAgent(strict);
    for (const host of ['127.0.0.1', '[::ffff:7f00:1]'])
      await expectRejects(
        call(`http://${host}:${port}/status`, { dispatcher: agent }),
        'refused_by_policy',
      );
    await agent.close();
    expect(connections).toBe(0);
  });

  it('an allowlisted host, or loopback in the local default, is connected to', async () => {
    for (const policy of [{ ...strict, allowHosts: ['localhost'] }, local]) {
      const agent = createGuardedAgent(policy);
      const res = await call(`http://localhost:${port}/status`, { dispatcher: agent });
      expect(res.status).toBe(200);
      await agent.close();
    }
    expect(connections).toBeGreaterThan(0);
  });
});

describe('no redirects, bounded bodies, bounded time', () => {
  let relay: RelayHandle;
  let svc: HostileService;
  let elsewhere: HostileService;
  beforeAll(async () => {
    svc = await startHostileService();
    elsewhere = await startHostileService();
    relay = await startRelay({ adapters: [createWebAdapter()] });
  });
  afterAll(async () => {
    await relay?.stop();
    await svc?.close();
    await elsewhere?.close();
  });

  it('a submit_url answering 307 to another origin does not get the bearer sent there', async () => {
    svc.handle((req, res) => {
      if (req.method !== 'POST') return false;
      res.writeHead(307, { location: `${elsewhere.url}/steal` }).end();
      return true;
    });
    const body = svc.body202();
    const sent = await relay.send('web:redirect', body);
    expect(sent.status).toBe(201);
    const card = await eventually(() => cardOf(relay.url, 'redirect', sent.body.id), 5000, 'card');
    const tap = await tapWeb(relay.url, 'redirect', card.id, 'approve');
    expect(tap.body.outcome).toBe('redirected');
    expect(tap.body.text).toMatch(/nothing was decided/);
    // The card tells the truth: still open, buttons still there, a notice saying nothing was decided.
    const after = await eventually(
      async () => {
        const m = await cardOf(relay.url, 'redirect', sent.body.id);
        return /nothing was decided/.test(m.status) ? m : null;
      },
      5000,
      'the failure notice on the card',
    );
    expect(after.final).toBe(false);
    expect(after.actions.map((a: any) => a.action)).toEqual(['approve', 'reject']);
    const posts = svc.requests.filter((r) => r.method === 'POST');
    expect(posts).toHaveLength(1);
    expect(posts[0]!.headers.authorization).toBe(`Bearer ${body.hitl.submit_token}`);
    expect(elsewhere.requests).toEqual([]);
    expect(elsewhere.connections()).toBe(0);
    const c = await relay.get(sent.body.id);
    expect(c.status).toBe('pending');
    expect(c.history.find((h: any) => h.kind === 'submit')).toMatchObject({
      outcome: 'redirected',
      status: 307,
      user: 'ann',
    });

    // The service mends its ways: a later tap works.
    svc.handle(null);
    const again = await tapWeb(relay.url, 'redirect', card.id, 'approve');
    expect(again.body.outcome).toBe('submitted');
    await eventually(
      async () => (await cardOf(relay.url, 'redirect', sent.body.id)).final,
      5000,
      'the final card',
    );
  });

  it('a poll answered with a redirect is a failed poll, and the redirect is not followed', async () => {
    svc.handle((req, res) => {
      if (req.method !== 'GET') return false;
      res.writeHead(302, { location: `${elsewhere.url}/status` }).end();
      return true;
    });
    const sent = await relay.send('web:redirect-poll', svc.body202());
    await relay.until(sent.body.id, (c) => c.status === 'pending');
    await eventually(
      async () => (await relay.relay.services.store.getCase(sent.body.id))!.poll_failures >= 2,
      10_000,
      'two failed polls',
    );
    expect(elsewhere.requests).toEqual([]);
    svc.handle(null);
  });

  it('a poll answer over the size limit is a failed poll; the case is kept and watched on', async () => {
    let huge = 0;
    svc.handle((req, res) => {
      if (req.method !== 'GET' || huge++ > 1) return false;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"status":"pending","case_id":"x","pad":"${'a'.repeat(2_000_000)}"}`);
      return true;
    });
    const sent = await relay.send('web:huge', svc.body202());
    await eventually(
      async () => (await relay.relay.services.store.getCase(sent.body.id))!.poll_failures >= 1,
      10_000,
      'a failed poll',
    );
    // The service answers normally again: the failure count resets and the case stays open.
    await eventually(
      async () => (await relay.relay.services.store.getCase(sent.body.id))!.poll_failures === 0,
      10_000,
      'a good poll',
    );
    svc.handle(null);
    expect((await relay.get(sent.body.id)).status).toBe('pending');
  });

  it('call() refuses bodies over maxBytes and answers that never end in time', async () => {
    const agent = createGuardedAgent(local);
    svc.handle((req, res) => {
      if (req.url === '/big') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('x'.repeat(100_000));
        return true;
      }
      if (req.url === '/silent') return true; // never answers
      if (req.url === '/trickle') {
        // Headers at once, then one byte every 20 ms, forever: each gap is short, the whole is not.
        res.writeHead(200, { 'content-type': 'application/json' });
        const timer = setInterval(() => res.write(' '), 20);
        res.on('close', () => clearInterval(timer));
        return true;
      }
      return false;
    });
    const big = await expectRejects(
      call(`${svc.url}/big`, { dispatcher: agent, maxBytes: 10_000 }),
      'too_large',
    );
    expect(big).toBe('response larger than 10000 bytes');
    await expectRejects(
      call(`${svc.url}/silent`, { dispatcher: agent, timeoutMs: 300 }),
      'timeout',
    );
    await expectRejects(
      call(`${svc.url}/trickle`, { dispatcher: agent, timeoutMs: 300 }),
      'timeout',
    );
    svc.handle(null);
    await agent.close();
  });
});
