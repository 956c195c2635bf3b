/**
 * The settle step's branches (src/tap/settle.ts) on their own: the service's answer to a submit,
 * then its poll (undici's MockAgent as the HITL service, its wire format, no socket), against a
 * case held in memory with tiny implementations of the status applier and the repository.
 */
import { MockAgent } from 'undici';
import { describe, expect, it } from 'vitest';
import type { TapOutcome } from '../../src/adapter.ts';
import { loadStrings, t } from '../../src/render/templates.ts';
import type { SubmitOutcome } from '../../src/service-client/submit-outcome.ts';
import { createSealer } from '../../src/store/sealer.ts';
import type { StoredCase } from '../../src/store/types.ts';
import type { TapDeps } from '../../src/tap/deps.ts';
import { settleSubmit } from '../../src/tap/settle.ts';
import { storedCase } from './stored-case.ts';

const sealer = createSealer(undefined);
const NOW = Date.UTC(2026, 11, 1, 10);

const aCase = () => storedCase(sealer);

/** The service's poll_url answering `status` with `body` (every time), counted. */
function service(status: number, body: object) {
  const agent = new MockAgent();
  agent.disableNetConnect();
  let polls = 0;
  agent
    .get('https://svc.example')
    .intercept({ path: '/api/reviews/rev_1/status', method: 'GET' })
    .reply(
      status,
      () => {
        polls++;
        return body;
      },
      { headers: { 'content-type': 'application/json' } },
    )
    .persist();
  return { agent, polls: () => polls };
}

/** Deps over one case in memory: status.apply and the repository change it as the real ones do. */
function deps(c: StoredCase, agent: MockAgent) {
  const applied: string[] = [];
  const d = {
    strings: loadStrings('en'),
    dispatcher: agent,
    now: () => NOW,
    sealer,
    store: { getCase: async () => c },
    status: {
      apply: async (
        _id: string,
        u: { status: StoredCase['status']; result?: unknown },
        source: string,
        edit?: (x: StoredCase) => void,
      ) => {
        applied.push(source);
        c.status = u.status;
        if (u.result) c.doc.result = u.result as StoredCase['doc']['result'];
        edit?.(c);
        return c;
      },
    },
    cases: {
      mutate: async (_id: string, fn: (x: StoredCase) => boolean) => (fn(c) ? c : undefined),
      patchDoc: async (_id: string, patch: Partial<StoredCase['doc']>) => {
        Object.assign(c.doc, patch);
        return c;
      },
    },
  } as unknown as TapDeps;
  return { d, applied };
}

const replies: Array<[TapOutcome, Record<string, unknown> | undefined]> = [];
const reply = async (outcome: TapOutcome, view?: Record<string, unknown>) => {
  replies.push([outcome, view]);
  return { outcome, text: outcome, card: null };
};
const tap = { platform: 'web', key: 'k1', action: 'approve', user: { id: 'ann' }, ref: null };
const body = {
  action: 'approve',
  submitted_via: 'inline',
  submitted_by: { platform: 'web', platform_user_id: 'ann' },
  data: {},
} as never;
const settle = (d: TapDeps, c: StoredCase, outcome: SubmitOutcome) =>
  settleSubmit(d, c, tap, body, outcome, reply, { history: [] });

describe('settle', () => {
  it('queue_full: nothing was sent; the person is told, nothing polled or changed', async () => {
    const c = aCase();
    const svc = service(200, {});
    const { d, applied } = deps(c, svc.agent);
    const r = await settle(d, c, { kind: 'queue_full' } as SubmitOutcome);
    expect(r.outcome).toBe('service_busy');
    expect(svc.polls()).toBe(0);
    expect(applied).toEqual([]);
  });

  it('accepted: the poll is the truth; completed with this action is "submitted" and records who', async () => {
    const c = aCase();
    const svc = service(200, {
      status: 'completed',
      case_id: 'rev_1',
      result: { action: 'approve', data: {} },
    });
    const { d, applied } = deps(c, svc.agent);
    const r = await settle(d, c, { kind: 'accepted', answer: {} } as SubmitOutcome);
    expect(r.outcome).toBe('submitted');
    expect(applied).toEqual(['submit_confirmed']);
    expect(c.doc.submitted_by).toMatchObject({ platform_user_id: 'ann' });
  });

  it('accepted, but the poll shows another answer won: "closed", and this person is not named', async () => {
    const c = aCase();
    const svc = service(200, {
      status: 'completed',
      case_id: 'rev_1',
      result: { action: 'reject', data: {} },
    });
    const { d } = deps(c, svc.agent);
    const r = await settle(d, c, { kind: 'accepted', answer: {} } as SubmitOutcome);
    expect(r.outcome).toBe('closed');
    expect(c.doc.submitted_by).toBeUndefined();
  });

  it('unconfirmed (a 2xx that is not an answer) and the poll fails: the card says it is unknown', async () => {
    const c = aCase();
    const svc = service(503, { error: 'down' });
    const { d, applied } = deps(c, svc.agent);
    const r = await settle(d, c, { kind: 'unconfirmed' } as SubmitOutcome);
    expect(r.outcome).toBe('unconfirmed');
    expect(svc.polls()).toBe(1);
    expect(applied).toEqual([]);
    expect(c.doc.notice).toBe(t(d.strings, 'notice.unconfirmed_unknown'));
  });
});
