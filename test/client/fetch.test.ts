/**
 * Issue 8 acceptance: an agent that uses only the exported fetch wrapper calls the demo service;
 * the 202 goes to the web chat with no other code, a tap completes it, and the awaited result
 * carries result.action and submitted_by.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { createHitlFetch, RelayClient, RelayError } from '../../src/client/index.ts';
import { CONFIRM_MIN_MS } from '../../src/tap/confirm-irreversible.ts';
import { type DemoHandle, type RelayHandle, startDemo, startRelay } from '../helpers/relay-env.ts';
import { tapWhenPosted, tinyServer } from './helpers.ts';

let demo: DemoHandle;
let relay: RelayHandle;

beforeAll(async () => {
  demo = await startDemo();
  relay = await startRelay({ adapters: [createWebAdapter()] });
});
afterAll(async () => {
  await relay?.stop();
  await demo?.stop();
});

const post = (body: unknown = {}) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

describe('createHitlFetch', () => {
  it('relays the demo 202 to the web chat and awaits the tap', async () => {
    const hitlFetch = createHitlFetch({ relayUrl: relay.url, target: 'web:agent-await' });
    // The agent: one call, as if to any service.
    const agent = hitlFetch(`${demo.url}/api/reviews?type=approval&inline=1`, post());
    // The reviewer: a tap in the web chat.
    const tap = await tapWhenPosted(relay.url, 'agent-await', 'approve');
    expect(tap.outcome).toBe('submitted');
    const res = await agent;
    expect(res.status).toBe(202);
    expect(res.hitl).toMatchObject({
      status: 'completed',
      final: true,
      result: { action: 'approve' },
      submitted_by: { platform: 'x-web', platform_user_id: 'ann', display_name: 'Ann' },
      approval: { approved: true },
    });
    // The service's own body is still there for the agent to read.
    const body = await res.json();
    expect(body.hitl.case_id).toBe(res.hitl!.case_id);
    expect(res.hitl!.relay_case_id).toMatch(/^hc_/);
    // The submission reached the service exactly once, from the tap.
    const subs = (await demo.submissions()).filter((s) => s.case_id === body.hitl.case_id);
    expect(subs).toHaveLength(1);
  });

  it('moves on with await: false and the relay case id; RelayClient.wait finishes later', async () => {
    const hitlFetch = createHitlFetch({
      relayUrl: relay.url,
      target: 'web:agent-later',
      await: false,
    });
    const res = await hitlFetch(`${demo.url}/api/reviews?type=confirmation&inline=1`, post());
    expect(res.hitl).toMatchObject({ final: false, status: 'pending' });
    expect(res.hitl!.approval.approved).toBe(false);
    const client = new RelayClient({ relayUrl: relay.url });
    const early = await client.wait(res.hitl!.relay_case_id, { timeoutMs: 100 });
    expect(early.final).toBe(false);
    const waiting = client.wait(res.hitl!.relay_case_id);
    // confirm is irreversible: the first tap asks, the second confirms.
    expect((await tapWhenPosted(relay.url, 'agent-later', 'confirm')).outcome).toBe(
      'confirm_required',
    );
    await new Promise((resolve) => setTimeout(resolve, CONFIRM_MIN_MS));
    expect((await tapWhenPosted(relay.url, 'agent-later', 'confirm')).outcome).toBe('submitted');
    const done = await waiting;
    expect(done).toMatchObject({ status: 'completed', result: { action: 'confirm' } });
    expect((await client.list({ open: true })).map((c) => c.id)).not.toContain(done.id);
    expect((await client.get(done.id)).history?.some((h) => h.kind === 'tap')).toBe(true);
  });

  it('a reject reads as not approved, with who said no', async () => {
    const hitlFetch = createHitlFetch({ relayUrl: relay.url, target: 'web:agent-reject' });
    const agent = hitlFetch(`${demo.url}/api/reviews?type=approval&inline=1`, post());
    await tapWhenPosted(relay.url, 'agent-reject', 'reject');
    const res = await agent;
    expect(res.hitl!.approval).toEqual({ approved: false, reason: 'rejected by Ann' });
  });

  it('takes the target per call from a header it does not pass on, and leaves other answers alone', async () => {
    const demo202 = await demo.create('escalation', true);
    const seen: Array<Record<string, unknown>> = [];
    const svc = await tinyServer((req, _body, res) => {
      seen.push({ ...req.headers });
      if (req.url === '/plain') {
        res.writeHead(202, { 'content-type': 'application/json' });
        return res.end(JSON.stringify({ status: 'accepted', job: 'j1' }));
      }
      if (req.url === '/ok') {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end('{"ok":true}');
      }
      res.writeHead(202, { 'content-type': 'application/json' });
      res.end(JSON.stringify(demo202));
    });
    try {
      const hitlFetch = createHitlFetch({ relayUrl: relay.url, await: { timeoutMs: 200 } });
      const res = await hitlFetch(`${svc.url}/review`, {
        headers: { 'X-Hitl-Relay-Target': 'web:per-call', accept: 'application/json' },
      });
      expect(res.hitl).toMatchObject({ final: false, case: { target: 'web:per-call' } });
      expect(seen[0]).not.toHaveProperty('x-hitl-relay-target');
      expect(seen[0]).toHaveProperty('accept', 'application/json');
      // init.hitl wins over the header; hitl: false turns catching off.
      const again = await hitlFetch(`${svc.url}/review`, {
        hitl: { target: 'web:per-call', await: false },
      });
      expect(again.hitl!.relay_case_id).toBe(res.hitl!.relay_case_id);
      const off = await hitlFetch(`${svc.url}/review`, { hitl: false });
      expect(off.status).toBe(202);
      expect(off.hitl).toBeUndefined();
      const plain = await hitlFetch(`${svc.url}/plain`);
      expect(plain.hitl).toBeUndefined();
      expect(await plain.json()).toEqual({ status: 'accepted', job: 'j1' });
      const ok = await hitlFetch(`${svc.url}/ok`);
      expect(ok.hitl).toBeUndefined();
      expect(await ok.json()).toEqual({ ok: true });
    } finally {
      await svc.close();
    }
  });

  it('rejects with RelayError naming the field when the relay refuses, or when no target is set', async () => {
    const noTarget = createHitlFetch({ relayUrl: relay.url });
    const url = `${demo.url}/api/reviews?type=approval&inline=1`;
    await expect(noTarget(url, post())).rejects.toMatchObject({
      name: 'RelayError',
      code: 'no_target',
    });
    const badTarget = createHitlFetch({ relayUrl: relay.url, target: 'nowhere:x' });
    const err = await badTarget(url, post()).catch((e) => e);
    expect(err).toBeInstanceOf(RelayError);
    expect(err).toMatchObject({ status: 400, code: 'unknown_target' });
    expect(err.details[0].path).toBe('target');
    const down = createHitlFetch({ relayUrl: 'http://127.0.0.1:9', target: 'web:x' });
    await expect(down(url, post())).rejects.toMatchObject({ code: 'network', status: 0 });
  });
});
