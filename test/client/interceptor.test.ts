/** hitlInterceptor on a composed undici Agent, with undici's request and fetch, against the demo service. */
import { gzipSync } from 'node:zlib';
import { Agent, request, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { hitlInterceptor, OUTCOME_KEY } from '../../src/client/index.ts';
import { type DemoHandle, type RelayHandle, startDemo, startRelay } from '../helpers/relay-env.ts';
import { tapWhenPosted, tinyServer } from './helpers.ts';

let demo: DemoHandle;
let relay: RelayHandle;
const agents: Agent[] = [];

beforeAll(async () => {
  demo = await startDemo();
  relay = await startRelay({ adapters: [createWebAdapter()] });
});
afterAll(async () => {
  for (const a of agents) await a.close();
  await relay?.stop();
  await demo?.stop();
});

function composed(options: Omit<Parameters<typeof hitlInterceptor>[0], 'relayUrl'>) {
  const agent = new Agent();
  agents.push(agent);
  return agent.compose(hitlInterceptor({ relayUrl: relay.url, ...options }));
}

describe('hitlInterceptor', () => {
  it('undici request: awaits the tap and adds the outcome to the 202 body and headers', async () => {
    const dispatcher = composed({ target: 'web:icpt-request' });
    const call = request(`${demo.url}/api/reviews?type=escalation&inline=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
      dispatcher,
    });
    expect((await tapWhenPosted(relay.url, 'icpt-request', 'skip')).outcome).toBe('submitted');
    const res = await call;
    expect(res.statusCode).toBe(202);
    expect(res.headers['x-hitl-relay-status']).toBe('completed');
    const body = (await res.body.json()) as any;
    expect(body.hitl.type).toBe('escalation');
    expect(res.headers['x-hitl-relay-case-id']).toBe(body[OUTCOME_KEY].relay_case_id);
    expect(body[OUTCOME_KEY]).toMatchObject({
      result: { action: 'skip' },
      submitted_by: { platform_user_id: 'ann' },
      approval: { approved: false, reason: 'skipped by Ann' },
    });
  });

  it('undici fetch: the target per call from a header, moving on without waiting', async () => {
    const dispatcher = composed({ await: false });
    const res = await undiciFetch(`${demo.url}/api/reviews?type=approval&inline=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hitl-relay-target': 'web:icpt-fetch' },
      body: '{}',
      dispatcher,
    });
    expect(res.status).toBe(202);
    const body = (await res.json()) as any;
    expect(body[OUTCOME_KEY]).toMatchObject({ final: false, case: { target: 'web:icpt-fetch' } });
    expect(await tapWhenPosted(relay.url, 'icpt-fetch', 'approve')).toMatchObject({
      outcome: 'submitted',
    });
  });

  it('passes other answers through untouched, decodes a gzip 202, and strips the target header', async () => {
    const hitl202 = await demo.create('approval', true);
    const seen: string[] = [];
    const big = JSON.stringify({ status: 'accepted', pad: 'x'.repeat(5000) });
    const svc = await tinyServer((req, _b, res) => {
      seen.push(String(req.headers['x-hitl-relay-target'] ?? '-'));
      if (req.url === '/gzip') {
        res.writeHead(202, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
        return res.end(gzipSync(JSON.stringify(hitl202)));
      }
      if (req.url === '/big') {
        res.writeHead(202, { 'content-type': 'application/json' });
        return res.end(big);
      }
      if (req.url === '/chunked') {
        // No content-length: the interceptor only finds out it is too large while holding it.
        res.writeHead(202, { 'content-type': 'application/json' });
        res.write(big.slice(0, 800));
        setTimeout(() => res.end(big.slice(800)), 20);
        return;
      }
      if (req.url === '/text') {
        res.writeHead(202, { 'content-type': 'text/plain' });
        return res.end('queued');
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
    try {
      const dispatcher = composed({ await: false, maxBodyBytes: 1000 });
      const gz = await request(`${svc.url}/gzip`, {
        dispatcher,
        headers: { 'x-hitl-relay-target': 'web:icpt-gzip' },
      });
      const gzBody = (await gz.body.json()) as any;
      expect(gz.headers['content-encoding']).toBeUndefined();
      expect(gzBody.hitl.case_id).toBe(hitl202.hitl.case_id);
      expect(gzBody[OUTCOME_KEY].case.target).toBe('web:icpt-gzip');
      // Over maxBodyBytes: streamed through as it came.
      const bigRes = await request(`${svc.url}/big`, { dispatcher });
      expect(await bigRes.body.text()).toBe(big);
      const chunked = await request(`${svc.url}/chunked`, { dispatcher });
      expect(chunked.headers['content-length']).toBeUndefined();
      expect(await chunked.body.text()).toBe(big);
      const textRes = await request(`${svc.url}/text`, { dispatcher });
      expect(await textRes.body.text()).toBe('queued');
      const ok = await request(`${svc.url}/ok`, { dispatcher });
      expect(await ok.body.json()).toEqual({ ok: true });
      expect(seen).toEqual(['-', '-', '-', '-', '-']);
    } finally {
      await svc.close();
    }
  });

  it('fails the request with the relay error when the relay refuses the case', async () => {
    const dispatcher = composed({ target: 'telegram:123' });
    const err = await request(`${demo.url}/api/reviews?type=approval&inline=1`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
      dispatcher,
    }).catch((e) => e);
    expect(err).toMatchObject({ name: 'RelayError', code: 'unknown_target', status: 400 });
    expect(err.details[0]).toMatchObject({ path: 'target' });
  });
});
