/**
 * A per-case policy at intake, within what the configuration allows: stricter than the route's is
 * taken (and is the policy the votes then meet), weaker is refused with a 400 naming the field and
 * nothing is stored or posted; a route may take any policy or none.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { type CasePolicyContext, resolveCasePolicy } from '../../src/policy/case-policy.ts';
import { casePolicy, policySchema } from '../../src/policy/policy.ts';
import {
  type DemoHandle,
  eventually,
  type RelayHandle,
  startDemo,
  startRelay,
} from '../helpers/relay-env.ts';

const policies = {
  'four-eyes': { required: 2, approvers: ['ann@example.com', 'web:bob', 'web:carol'] },
  lax: { required: 1 },
};
let demo: DemoHandle;
let relay: RelayHandle;

beforeAll(async () => {
  demo = await startDemo();
  relay = await startRelay({
    adapters: [createWebAdapter()],
    configFile: {
      routes: {
        deploys: { targets: ['web:deploys'], policy: 'four-eyes' },
        open: { targets: ['web:open'], policy: 'four-eyes', case_policy: 'any' },
        fixed: { targets: ['web:fixed'], policy: 'four-eyes', case_policy: 'none' },
      },
      policies,
      identities: { 'ann@example.com': ['web:ann'] },
    },
  });
});
afterAll(async () => {
  await relay?.stop();
  await demo?.stop();
});

async function send(target: string, policy: unknown) {
  const response = await demo.create('approval', true);
  const sent = await relay.send(target, response, { policy });
  return { ...sent, response, caseId: response.hitl.case_id as string };
}

async function messages(room: string): Promise<any[]> {
  const res = await request(`${relay.url}/web/api/rooms/${room}/messages`);
  return (await res.body.json()) as any[];
}

async function tap(room: string, caseId: string, user: string) {
  const m = await eventually(async () => (await messages(room)).find((x) => x.case === caseId));
  const res = await request(`${relay.url}/web/api/rooms/${room}/messages/${m.id}/actions/approve`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user: { id: user, name: user } }),
  });
  return ((await res.body.json()) as any).outcome;
}

describe('per-case policy at intake', () => {
  it('takes a stricter policy, and the case needs its votes', async () => {
    const sent = await send('route:deploys', { required: 3 });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    expect(sent.body.policy).toMatchObject({ name: 'four-eyes+case', required: 3 });
    const id = sent.body.id;
    expect(await tap('deploys', id, 'ann')).toBe('vote_recorded');
    expect(await tap('deploys', id, 'bob')).toBe('vote_recorded');
    expect((await demo.submissions()).filter((s) => s.case_id === sent.caseId)).toEqual([]);
    expect(await tap('deploys', id, 'carol')).toBe('submitted');
    // The receipt names the policy the case carried, with its own version.
    const view = await relay.until(id, (c) => c.final);
    const r = (await (await request(`${relay.url}/v1/cases/${id}/receipt`)).body.json()) as any;
    expect(view.status).toBe('completed');
    expect(r.receipt.policy).toMatchObject({ name: 'four-eyes+case', required: 3 });
  });

  it.each([
    [{ required: 1 }, 'policy.required', /1 is weaker than route deploys's policy four-eyes \(2/],
    [
      { approvers: ['web:mallory', 'web:bob'] },
      'policy.approvers',
      /among the approvers.*not: web:mallory/,
    ],
    [{ requester_may_approve: true }, 'policy.requester_may_approve', /must stay false/],
    [{ veto: false }, 'policy.veto', /must stay true/],
    [{ actions: ['confirm'] }, 'policy.actions', /must keep.*approve/],
    ['lax', 'policy.approvers', /among the approvers.*not: anyone/],
    ['nope', 'policy', /unknown policy "nope" \(configured: four-eyes, lax\)/],
  ])(
    'refuses %j on a "stricter" route with a 400 at %s, storing and posting nothing',
    async (policy, path, message) => {
      const before = (await messages('deploys')).length;
      const sent = await send('route:deploys', policy);
      expect(sent.status, JSON.stringify(sent.body)).toBe(400);
      expect(sent.body.error).toBe('invalid_policy');
      expect(sent.body.details.map((d: any) => d.path)).toContain(path);
      expect(sent.body.details.map((d: any) => d.message).join(' ')).toMatch(message);
      expect((await messages('deploys')).length).toBe(before);
      // Nothing was stored: the same 202 sent again without the policy is a new case.
      const again = await relay.send('route:deploys', sent.response);
      expect(again.status).toBe(201);
    },
  );

  it('refuses a policy that is no policy at all as a bad request', async () => {
    const sent = await send('route:deploys', { required: 0, quorum: 2 });
    expect(sent.status).toBe(400);
    expect(sent.body.details.map((d: any) => d.path).join(' ')).toMatch(/policy/);
  });

  it('a route with case_policy "any" takes a weaker one; "none" takes none', async () => {
    const open = await send('route:open', 'lax');
    expect(open.status).toBe(201);
    expect(open.body.policy).toMatchObject({ name: 'lax', required: 1 });
    const fixed = await send('route:fixed', { required: 5 });
    expect(fixed.status).toBe(400);
    expect(fixed.body.details[0]).toEqual({
      path: 'policy',
      message: 'route fixed takes no per-case policy (case_policy "none")',
    });
  });

  it('a target without a configured policy takes any', async () => {
    const sent = await send('web:solo', { required: 2 });
    expect(sent.status).toBe(201);
    expect(sent.body.policy).toMatchObject({ name: 'case', required: 2 });
  });
});

describe('resolveCasePolicy', () => {
  const ctx: CasePolicyContext = {
    base: casePolicy('four-eyes', policySchema.parse(policies['four-eyes'])),
    mode: 'stricter',
    policies: { lax: policySchema.parse(policies.lax) },
    identityOf: (a) => (a === 'slack:U1' ? 'ann@example.com' : a),
    where: 'route deploys',
  };
  it('counts an account of a configured approver as that approver', () => {
    const r = resolveCasePolicy(ctx, { approvers: ['slack:U1', 'web:bob'] });
    expect(r).toMatchObject({ policy: { approvers: ['slack:U1', 'web:bob'], required: 2 } });
  });
  it('keeps the configured policy when none is asked for', () => {
    expect(resolveCasePolicy(ctx, undefined)).toEqual({ policy: ctx.base });
  });
  it('refuses a policy its approvers cannot meet (two accounts of one person count once)', () => {
    expect(
      resolveCasePolicy({ ...ctx, mode: 'any' }, { approvers: ['slack:U1', 'ann@example.com'] }),
    ).toEqual({
      issues: [{ path: 'policy.required', message: '2 approvals cannot be met by 1 approver(s)' }],
    });
  });
  it('versions a changed policy apart from the configured one', () => {
    const r = resolveCasePolicy(ctx, { required: 3 }) as { policy: { version: string } };
    expect(r.policy.version).not.toBe(ctx.base!.version);
  });
});
