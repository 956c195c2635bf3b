/**
 * Each tap step on its own (src/tap/*.ts), against tiny in-memory implementations of the deps it
 * takes (a store of one case, the real sealer, strings and policy) and, for the submit, undici's
 * MockAgent as the HITL service (its wire format, no socket). A unit test: a fake clock, nothing
 * started.
 */
import { MockAgent } from 'undici';
import { describe, expect, it } from 'vitest';
import type { Tap } from '../../src/adapter.ts';
import { casePolicy } from '../../src/policy/policy.ts';
import { loadStrings } from '../../src/render/templates.ts';
import { MemoryKeyValue } from '../../src/store/memory-kv.ts';
import { createSealer } from '../../src/store/sealer.ts';
import type { StoredCase, StoredMessage } from '../../src/store/types.ts';
import { authorize, checkTapAnswer, policyRefusal } from '../../src/tap/authorize.ts';
import { claimForTap, serviceWait, voteStep } from '../../src/tap/claim.ts';
import { CONFIRM_MIN_MS, confirmStep } from '../../src/tap/confirm-irreversible.ts';
import type { ResolvedTap } from '../../src/tap/deps.ts';
import { resolveTap } from '../../src/tap/resolve.ts';
import { sendSubmit } from '../../src/tap/submit.ts';
import { storedCase } from './stored-case.ts';

const sealer = createSealer(undefined);
const strings = loadStrings('en');

/** A fake clock: only the test moves it. */
function clock(start = Date.UTC(2026, 11, 1, 10)) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

const aCase = (over: Partial<StoredCase['doc']> = {}, status: StoredCase['status'] = 'pending') =>
  storedCase(sealer, over, status);

const message = (over: Partial<StoredMessage> = {}) =>
  ({
    case_id: 'hc_1',
    platform: 'web',
    target: 'web:room',
    ref_id: 'm1',
    ...over,
  }) as StoredMessage;

const tap = (over: Partial<Tap> = {}): Tap => ({
  platform: 'web',
  key: 'k1',
  action: 'approve',
  user: { id: 'ann', name: 'Ann' },
  ref: null,
  ...over,
});

const resolved = (c = aCase(), who: Record<string, unknown> = { user: 'ann' }): ResolvedTap => ({
  c,
  target: 'web:room',
  who,
});

const targets = (allowed = true, identity = (a: string) => a) => ({
  mayAct: () => allowed,
  identityOfAccount: identity,
});

describe('resolve', () => {
  const store = (c: StoredCase | undefined, messages: StoredMessage[]) => ({
    getCaseByKey: async (key: string) => (c && key === c.key ? c : undefined),
    listMessages: async () => messages,
  });

  it('an unknown key resolves to nothing; a case never posted to this platform to the case alone', async () => {
    expect(await resolveTap({ store: store(undefined, []) as never }, tap())).toEqual({});
    const r = await resolveTap(
      { store: store(aCase(), [message({ platform: 'slack' })]) as never },
      tap(),
    );
    expect(r.c?.id).toBe('hc_1');
    expect(r.resolved).toBeUndefined();
  });

  it('picks the target of the tapped message, and bounds the name in the audit line', async () => {
    const messages = [
      message({ target: 'web:a', ref_id: 'm1' }),
      message({ target: 'web:b', ref_id: 'm2' }),
    ];
    const long = 'N'.repeat(300);
    const r = await resolveTap(
      { store: store(aCase(), messages) as never },
      tap({ ref: { platform: 'web', address: 'b', id: 'm2' }, user: { id: 'ann', name: long } }),
    );
    expect(r.resolved?.target).toBe('web:b');
    expect(r.resolved?.who).toEqual({
      platform: 'web',
      target: 'web:b',
      user: 'ann',
      name: 'N'.repeat(128),
      action: 'approve',
    });
  });
});

describe('authorize', () => {
  it('refuses, in order: not on the allowlist, closed, revised, not inline-allowed', () => {
    const d = { targets: targets(), sealer };
    expect(authorize({ targets: targets(false), sealer }, resolved(), tap())).toMatchObject({
      outcome: 'forbidden',
      row: { kind: 'tap_refused', detail: { reason: 'not on the allowlist' } },
    });
    expect(authorize(d, resolved(aCase({}, 'completed')), tap())).toMatchObject({
      outcome: 'closed',
      view: { status: 'completed' },
    });
    expect(authorize(d, resolved(aCase({ next_id: 'hc_2' })), tap())).toMatchObject({
      outcome: 'closed',
      view: { status: 'revised' },
    });
    expect(authorize(d, resolved(), tap({ action: 'nonsense' }))).toMatchObject({
      outcome: 'not_allowed',
    });
    expect(authorize(d, resolved(aCase({ inline_refused: ['approve'] })), tap())).toMatchObject({
      outcome: 'not_allowed',
    });
    expect(authorize(d, resolved(aCase({ inline_unavailable: true })), tap())).toMatchObject({
      outcome: 'not_allowed',
    });
  });

  it('an allowed tap carries the opened secrets on', () => {
    const ok = authorize({ targets: targets(), sealer }, resolved(), tap());
    expect(ok).toMatchObject({ secrets: { submit_token: 'tok' }, ask: undefined });
  });

  it('the approval policy refuses someone who is not an approver, and nothing is recorded', () => {
    const policy = casePolicy('two', {
      required: 2,
      approvers: ['web:bob'],
      actions: ['approve'],
      veto: true,
      requester_may_approve: false,
    });
    expect(policyRefusal({ targets: targets() }, resolved(aCase({ policy })), tap())).toEqual({
      outcome: 'not_an_approver',
      view: { required: 2 },
    });
    expect(
      policyRefusal(
        { targets: targets() },
        resolved(aCase({ policy })),
        tap({ user: { id: 'bob' } }),
      ),
    ).toBeNull();
  });

  it('a plain case answers with no data; a confirmation is irreversible', () => {
    expect(checkTapAnswer(resolved(), tap(), undefined)).toEqual({ data: {}, irreversible: false });
    const confirmation = aCase();
    confirmation.doc.hitl.type = 'confirmation';
    expect(checkTapAnswer(resolved(confirmation), tap({ action: 'confirm' }), undefined)).toEqual({
      data: {},
      irreversible: true,
    });
  });
});

describe('confirm-irreversible', () => {
  const deps = () => {
    const time = clock();
    return {
      time,
      d: { store: { kv: new MemoryKeyValue(time.now) } as never, now: time.now, strings },
    };
  };

  it('a reversible or natively confirmed tap passes at once', async () => {
    const { d } = deps();
    expect(await confirmStep(d, resolved(), tap(), false)).toBeNull();
    expect(await confirmStep(d, resolved(), tap({ confirmed: true }), true)).toBeNull();
  });

  it('the first tap asks; a second within a second is the same click; one after it confirms', async () => {
    const { d, time } = deps();
    expect(await confirmStep(d, resolved(), tap(), true)).toMatchObject({
      outcome: 'confirm_required',
      row: { kind: 'tap_confirm_asked' },
    });
    time.advance(CONFIRM_MIN_MS - 1);
    expect(await confirmStep(d, resolved(), tap(), true)).toMatchObject({
      outcome: 'confirm_required',
      row: { kind: 'tap_refused', detail: { reason: 'confirmed too soon' } },
    });
    time.advance(1);
    expect(await confirmStep(d, resolved(), tap(), true)).toBeNull();
    // Used up: the next tap asks again.
    expect(await confirmStep(d, resolved(), tap(), true)).toMatchObject({
      row: { kind: 'tap_confirm_asked' },
    });
  });
});

describe('claim', () => {
  it('the service asked to wait: refused until Retry-After has passed', () => {
    const time = clock();
    const c = aCase({ retry_after_until: time.now() + 30_000 });
    expect(serviceWait(time, resolved(c))).toMatchObject({
      outcome: 'rate_limited',
      view: { seconds: 30 },
    });
    time.advance(30_000);
    expect(serviceWait(time, resolved(c))).toBeNull();
  });

  /** A store holding one case whose claim is compare-and-set, as the real stores do it. */
  function oneCaseStore(c: StoredCase) {
    const rows: unknown[] = [];
    return {
      rows,
      store: {
        claimCase: async (_id: string, holder: string, until: number, row: unknown) => {
          if (c.claim) return false;
          c.claim = { holder, until };
          rows.push(row);
          return true;
        },
        getCase: async () => c,
      },
    };
  }

  it('one claim per case: the second tap is busy, and a tap on an ended case is closed', async () => {
    const time = clock();
    const c = aCase();
    const { store, rows } = oneCaseStore(c);
    const recorded: string[] = [];
    const d = {
      store,
      now: time.now,
      instanceId: 'i1',
      config: { claimMs: 10_000, submitTimeoutMs: 1000 },
      cases: { recorded: (id: string) => recorded.push(id) },
    } as never;
    const holder = await claimForTap(d, resolved(c));
    expect(holder).toMatch(/^i1:/);
    expect(rows).toHaveLength(1);
    expect(recorded).toEqual(['hc_1']);
    expect(await claimForTap(d, resolved(c))).toMatchObject({ outcome: 'busy' });
    c.status = 'completed';
    expect(await claimForTap(d, resolved(c))).toMatchObject({ outcome: 'closed' });
  });
});

describe('vote', () => {
  const policy = casePolicy('two', {
    required: 2,
    actions: ['approve'],
    veto: true,
    requester_may_approve: false,
  });

  /** CaseRepository.mutate over one case held in memory (the change applies when fn says so). */
  function host(c: StoredCase) {
    const time = clock();
    return {
      now: time.now,
      targets: targets(),
      cases: {
        mutate: async (_id: string, fn: (x: StoredCase) => boolean) => (fn(c) ? c : undefined),
        history: async () => {},
      },
    } as never;
  }

  it('no policy: the tap goes on; the first of two votes is counted and stops there; the second decides', async () => {
    expect(await voteStep(host(aCase()), resolved(), tap())).toBeNull();
    const c = aCase({ policy });
    const h = host(c);
    const first = await voteStep(h, resolved(c, { user: 'ann' }), tap());
    expect(first).toMatchObject({ outcome: 'vote_recorded' });
    expect(c.doc.votes?.map((v) => v.identity)).toEqual(['web:ann']);
    expect(await voteStep(h, resolved(c), tap({ user: { id: 'bob' } }))).toBeNull();
    expect(c.doc.votes?.map((v) => v.identity)).toEqual(['web:ann', 'web:bob']);
  });
});

describe('submit', () => {
  function service(reply: { status: number; body?: object }) {
    const agent = new MockAgent();
    agent.disableNetConnect();
    const bodies: unknown[] = [];
    agent
      .get('https://svc.example')
      .intercept({ path: '/api/reviews/rev_1/submit', method: 'POST' })
      .reply(reply.status, (opts) => {
        bodies.push(JSON.parse(String(opts.body)));
        return reply.body ?? {};
      });
    return { agent, bodies };
  }
  const warnings: string[] = [];
  const deps = (agent: MockAgent) => ({
    submitDispatcher: agent,
    now: clock().now,
    config: { claimMs: 10_000, submitTimeoutMs: 2000 },
    log: { warn: (_o: unknown, m: string) => warnings.push(m) } as never,
  });

  it('sends the answer with the token and carries its history row and the claim release', async () => {
    const { agent, bodies } = service({ status: 200, body: { status: 'completed' } });
    const sent = await sendSubmit(deps(agent), resolved(), tap(), 'tok', {}, 'i1:h');
    expect(sent.outcome.kind).toBe('accepted');
    expect(bodies).toHaveLength(1);
    expect(bodies[0]).toMatchObject({ action: 'approve' });
    expect(sent.carry.releaseClaim).toBe('i1:h');
    expect(sent.carry.history?.[0]).toMatchObject({
      kind: 'submit',
      detail: { outcome: 'accepted' },
    });
    // No secret in what is recorded.
    expect(JSON.stringify(sent.carry)).not.toContain('tok');
  });

  it('a refusal is an outcome (never a throw), logged without the token', async () => {
    const { agent } = service({ status: 409, body: { error: 'duplicate_submission' } });
    warnings.length = 0;
    const sent = await sendSubmit(deps(agent), resolved(), tap(), 'tok', {}, 'i1:h');
    expect(sent.outcome.kind).not.toBe('accepted');
    expect(warnings).toEqual(['submit not accepted']);
  });
});
