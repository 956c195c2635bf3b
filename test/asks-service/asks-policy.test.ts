/**
 * Approval policies bind every path to a decision of the relay's own asks (issue 32 item 1). A
 * four-eyes ask (two of Ann, Bob and Carol) is answered on each path the relay offers: the card's
 * Details link (the review page, no sign-in), the agent's own submit_token from its 202 (and from
 * the idempotent replay of that 202), the asks service in-process (as the MCP tools will), and
 * the chat taps. Only the taps go through the vote counting, so only they can decide it: the others
 * are refused, saying why, and the ask stays open with no vote counted. The card, the receipt and
 * the CLI gate never read "approved" with fewer votes than the policy needs.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { askProfile } from '../../src/asks-service/service.ts';
import { waitExitCode } from '../../src/cli/output.ts';
import { createHitlService } from '../../src/hitl-service/index.ts';
import { receiptProblem } from '../../src/receipts/receipt.ts';
import { KINDS } from '../asks/fixtures.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';

let relay: RelayHandle;
const ROOM = 'deploy-room';

beforeAll(async () => {
  relay = await startRelay({
    adapters: [createWebAdapter()],
    routes: { deploys: { targets: [`web:${ROOM}`], policy: 'four-eyes' } },
    configFile: {
      policies: {
        'four-eyes': { required: 2, approvers: ['ann@example.com', 'web:bob', 'web:carol'] },
      },
      identities: { 'ann@example.com': ['web:ann'] },
    },
  });
});
afterAll(async () => {
  await relay?.stop();
});

const fx = KINDS['approval.binary'];

async function call(method: 'GET' | 'POST', url: string, body?: unknown, headers = {}) {
  const res = await request(url.startsWith('http') ? url : `${relay.url}${url}`, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.body.text();
  let json: any = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  return { status: res.statusCode, headers: res.headers, text, body: json };
}

async function askFourEyes(key?: string) {
  const created = await call(
    'POST',
    '/v1/asks',
    { target: 'route:deploys', content: fx.content, expires_in: 3600 },
    key ? { 'idempotency-key': key } : {},
  );
  expect(created.status, created.text).toBe(202);
  const id = created.body.relay.id as string;
  const card = await eventually(async () => {
    const r = await call('GET', `/web/api/rooms/${ROOM}/messages`);
    return (r.body as any[]).find((m) => m.case === id);
  });
  return { id, hitl: created.body.hitl, card };
}

const tap = (messageId: string, user: string) =>
  call('POST', `/web/api/rooms/${ROOM}/messages/${messageId}/actions/approve`, {
    user: { id: user, name: user },
    data: fx.answer.data,
  });

/** The ask is still open, no vote was counted, and nothing reads "approved". */
async function expectStillOpen(id: string) {
  const ask = await call('GET', `/v1/asks/${id}`);
  expect(['pending', 'opened']).toContain(ask.body.status);
  expect(ask.body.answer).toBeNull();
  expect(ask.body.case.policy).toMatchObject({ name: 'four-eyes', required: 2, votes: [] });
  expect(waitExitCode(ask.body.case, true)).not.toBe(0);
}

describe('a four-eyes ask', () => {
  it('POLICY-PATH-1: the Details link (review page) cannot decide it, and the page says why', async () => {
    const { id, card } = await askFourEyes();
    expect(card.link?.url).toBeTruthy();
    const details = await request(card.link.url); // undici follows no redirect
    await details.body.text();
    expect(details.statusCode).toBe(303);
    const reviewUrl = String(details.headers.location);
    const page = await call('GET', reviewUrl);
    expect(page.status).toBe(200);
    // No decision buttons: the page names the policy and where the decision is made.
    expect(page.text).not.toContain('name="decision"');
    expect(page.text).toContain('four-eyes');
    expect(page.text).toMatch(/2 approvals/);
    // A post crafted by hand is refused just the same (JSON and form).
    const respond = reviewUrl
      .replace('/review/', '/api/reviews/')
      .replace('?token=', '/respond?token=');
    const json = await call('POST', respond, { ...fx.answer, responded_by: { name: 'Mallory' } });
    expect(json.status).toBe(403);
    expect(json.body).toMatchObject({ error: 'approval_policy' });
    expect(json.body.message).toMatch(/four-eyes.*2 approvals/);
    const form = await request(respond, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'decision=approve&responded_by_name=Mallory',
    });
    expect(form.statusCode).toBe(403);
    expect(await form.body.text()).toContain('four-eyes');
    await expectStillOpen(id);
  });

  it("POLICY-PATH-2: the agent's own submit_token (and the idempotent replay's) cannot decide it", async () => {
    const { id, hitl } = await askFourEyes('policy-path-2');
    const submit = (token: string) =>
      call(
        'POST',
        hitl.submit_url,
        {
          action: 'approve',
          data: fx.answer.data,
          submitted_via: 'x-agent',
          submitted_by: { platform: 'x-agent', platform_user_id: 'the-agent' },
        },
        { authorization: `Bearer ${token}` },
      );
    const own = await submit(hitl.submit_token);
    expect(own.status, own.text).toBe(403);
    expect(own.body).toMatchObject({ error: 'approval_policy' });
    expect(own.body.message).toMatch(/four-eyes.*2 approvals/);
    // The replayed 202 hands back the same token, never the relay's own.
    const replay = await call(
      'POST',
      '/v1/asks',
      { target: 'route:deploys', content: fx.content, expires_in: 3600 },
      { 'idempotency-key': 'policy-path-2' },
    );
    expect(replay.status).toBe(202);
    expect(replay.body.hitl.submit_token).toBe(hitl.submit_token);
    expect((await submit(replay.body.hitl.submit_token)).status).toBe(403);
    await expectStillOpen(id);
  });

  it('POLICY-PATH-3: chat taps go through the vote counting; two approvers decide it', async () => {
    const { id, card } = await askFourEyes();
    expect((await tap(card.id, 'dave')).body.outcome).toBe('not_an_approver');
    const first = await tap(card.id, 'ann');
    expect(first.body.outcome).toBe('vote_recorded');
    const mid = await call('GET', `/v1/asks/${id}`);
    expect(mid.body.status).toBe('pending');
    expect(mid.body.case.policy.votes).toHaveLength(1);
    expect(waitExitCode(mid.body.case, true)).not.toBe(0);
    const second = await tap(card.id, 'bob');
    expect(second.body.outcome, second.text).toBe('submitted');
    const done = await call('GET', `/v1/asks/${id}/wait?timeout=10`);
    expect(done.body).toMatchObject({ status: 'completed', answer: fx.result });
    expect(done.body.case.policy.votes.map((v: any) => v.identity)).toEqual([
      'ann@example.com',
      'web:bob',
    ]);
    expect(waitExitCode(done.body.case, true)).toBe(0);
    const receipt = await eventually(async () => {
      const r = await call('GET', `/v1/cases/${id}/receipt`);
      return r.status === 200 ? r.body : undefined;
    });
    expect(receiptProblem(receipt)).toBeNull();
    expect(receipt.receipt.decision.votes).toHaveLength(2);
    expect(receipt.receipt.policy).toMatchObject({ name: 'four-eyes', required: 2 });
  });
});

describe('the asks service in-process (the way in of the MCP tools)', () => {
  it('POLICY-PATH-4: a bound ask cannot be decided by a reviewer step; the relay token can', async () => {
    const service = createHitlService({ mountPath: '/asks', profile: askProfile });
    try {
      const relayToken = 'relay-token-'.padEnd(43, 'x');
      const created = await service.create(
        {
          type: 'approval',
          inline: true,
          prompt: String((fx.content as { prompt: unknown }).prompt),
          message: 'm',
          expiresInSeconds: 600,
          callback_url: null,
          context: { ask: fx.content },
          inline_actions: ['approve', 'reject'],
          relayToken,
          binding: { policy: 'four-eyes', required: 2 },
        },
        'http://127.0.0.1/asks',
      );
      const caseId = String(created.hitl.case_id);
      await expect(
        service.act(caseId, { step: 'respond', ...fx.answer, responded_by: { name: 'MCP' } }),
      ).rejects.toMatchObject({ status: 403, code: 'approval_policy' });
      const submit = (token: string) =>
        service.app.request(`/api/reviews/${caseId}/respond`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            ...fx.answer,
            submitted_via: 'x-relay',
            submitted_by: { platform: 'x-web', platform_user_id: 'bob' },
          }),
        });
      expect((await submit(String(created.hitl.submit_token))).status).toBe(403);
      expect((await submit(relayToken)).status).toBe(200);
    } finally {
      await service.close();
    }
  });
});
