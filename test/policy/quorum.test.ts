/**
 * Approval policies end to end (real relay, demo HITL service, web chat in two rooms of a route):
 * two of three approvers, one person counted once across rooms, the requester refused, a reject
 * vetoing, one submit only after the second approval, and the tally on every card and receipt.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { receiptProblem } from '../../src/receipts/receipt.ts';
import {
  type DemoHandle,
  eventually,
  type RelayHandle,
  startDemo,
  startRelay,
} from '../helpers/relay-env.ts';

let demo: DemoHandle;
let relay: RelayHandle;

beforeAll(async () => {
  demo = await startDemo();
  relay = await startRelay({
    adapters: [createWebAdapter()],
    routes: { deploys: { targets: ['web:ops-a', 'web:ops-b'], policy: 'four-eyes' } },
    configFile: {
      policies: {
        'four-eyes': {
          required: 2,
          approvers: ['ann@example.com', 'bob@example.com', 'web:carol'],
        },
      },
      identities: {
        'ann@example.com': ['web:ann', 'web:ann-laptop'],
        'bob@example.com': ['web:bob'],
      },
    },
  });
});
afterAll(async () => {
  await relay?.stop();
  await demo?.stop();
});

async function card(room: string, caseId: string) {
  return eventually(async () => {
    const res = await request(`${relay.url}/web/api/rooms/${room}/messages`);
    const all = (await res.body.json()) as any[];
    return all.find((m) => m.case === caseId);
  });
}

async function tap(room: string, caseId: string, action: string, user: string) {
  const m = await card(room, caseId);
  const res = await request(
    `${relay.url}/web/api/rooms/${room}/messages/${m.id}/actions/${action}`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user: { id: user, name: user } }),
    },
  );
  return (await res.body.json()) as any;
}

async function submissionsFor(caseId: string) {
  return (await demo.submissions()).filter((s) => s.case_id === caseId);
}

describe('approval policy: two of three', () => {
  it('counts one person once, refuses the requester, submits once after the second approval', async () => {
    const response = await demo.create('approval', true);
    const sent = await relay.send('route:deploys', response, { requested_by: 'web:bob' });
    expect(sent.status).toBe(201);
    const id = sent.body.id;

    const first = await tap('ops-a', id, 'approve', 'ann');
    expect(first.outcome).toBe('vote_recorded');
    // Ann again, from another account and room: still one person.
    expect((await tap('ops-b', id, 'approve', 'ann-laptop')).outcome).toBe('already_voted');
    // Bob asked for it.
    expect((await tap('ops-b', id, 'approve', 'bob')).outcome).toBe('requester_may_not_approve');
    // Dave is no approver.
    expect((await tap('ops-b', id, 'approve', 'dave')).outcome).toBe('not_an_approver');
    expect(await submissionsFor(response.hitl.case_id)).toEqual([]);
    // Both cards show the tally.
    for (const room of ['ops-a', 'ops-b'])
      await eventually(async () => {
        const m = await card(room, id);
        return m.lines?.[0]?.startsWith('1 of 2 approvals: ann (web)') ? m : undefined;
      });

    const second = await tap('ops-b', id, 'approve', 'carol');
    expect(second.outcome).toBe('submitted');
    const subs = await submissionsFor(response.hitl.case_id);
    expect(subs).toHaveLength(1);
    expect(subs[0]!.body.submitted_by).toMatchObject({
      platform: 'x-web',
      platform_user_id: 'carol',
    });
    const view = await relay.until(id, (c) => c.final);
    expect(view.status).toBe('completed');
    const kinds = view.history.map((h: any) => h.kind);
    expect(kinds.filter((k: string) => k === 'vote')).toHaveLength(2);
    expect(kinds).toContain('policy_met');

    const r = (await (await request(`${relay.url}/v1/cases/${id}/receipt`)).body.json()) as any;
    expect(r.receipt.policy).toMatchObject({ name: 'four-eyes', required: 2, met: true });
    expect(r.receipt.decision.votes.map((v: any) => v.identity)).toEqual([
      'ann@example.com',
      'web:carol',
    ]);
  });

  it("POLICY-GATE-2: approved on the service's own page with one vote: the receipt says the policy was not met", async () => {
    const response = await demo.create('approval', true);
    const id = (await relay.send('route:deploys', response)).body.id;
    expect((await tap('ops-a', id, 'approve', 'ann')).outcome).toBe('vote_recorded');
    await demo.act(response.hitl.case_id, { step: 'respond', action: 'approve' });
    const view = await relay.until(id, (c) => c.final);
    expect(view.result.action).toBe('approve');
    const r = (await (await request(`${relay.url}/v1/cases/${id}/receipt`)).body.json()) as any;
    expect(r.receipt.policy).toMatchObject({ name: 'four-eyes', required: 2, met: false });
    expect(r.receipt.decision.votes).toHaveLength(1);
    expect(receiptProblem(r)).toBeNull();
  });

  it('a reject from an approver decides at once (veto)', async () => {
    const response = await demo.create('approval', true);
    const id = (await relay.send('route:deploys', response)).body.id;
    expect((await tap('ops-a', id, 'approve', 'ann')).outcome).toBe('vote_recorded');
    expect((await tap('ops-b', id, 'reject', 'bob')).outcome).toBe('submitted');
    const subs = await submissionsFor(response.hitl.case_id);
    expect(subs.map((s) => s.body.action)).toEqual(['reject']);
    expect((await relay.until(id, (c) => c.final)).result.action).toBe('reject');
    // The veto's receipt names the policy and both votes, and verifies.
    const r = (await (await request(`${relay.url}/v1/cases/${id}/receipt`)).body.json()) as any;
    expect(r.receipt.decision.votes.map((v: any) => [v.identity, v.action])).toEqual([
      ['ann@example.com', 'approve'],
      ['bob@example.com', 'reject'],
    ]);
    expect(receiptProblem(r)).toBeNull();
  });

  it('parallel approvals from three people submit exactly once', async () => {
    const response = await demo.create('approval', true);
    const id = (await relay.send('route:deploys', response)).body.id;
    await card('ops-a', id);
    const replies = await Promise.all([
      tap('ops-a', id, 'approve', 'ann'),
      tap('ops-b', id, 'approve', 'bob'),
      tap('ops-a', id, 'approve', 'carol'),
    ]);
    await relay.until(id, (c) => c.final);
    expect(await submissionsFor(response.hitl.case_id)).toHaveLength(1);
    expect(replies.filter((r) => r.outcome === 'submitted')).toHaveLength(1);
  });
});
