/**
 * The last step of an escalation ladder as configured, with a fake clock: a final answer
 * ("reject after 2 h") is submitted once by the relay itself, across restarts (one of them just
 * before the final step is due), with submitted_by naming the relay, in the history, the receipt and
 * a notify event. A final answer the case cannot take (an action it does not offer inline, an
 * approving action under a policy) is recorded as not possible and the agent is told.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { escalationSchema } from '../../src/policy/escalation.ts';
import { receiptProblem } from '../../src/receipts/receipt.ts';
import {
  type DemoHandle,
  eventually,
  type RelayHandle,
  startDemo,
  startRelay,
} from '../helpers/relay-env.ts';
import { startReceiver } from '../notify/receiver.ts';

const SECRET = 'notify-secret-for-tests-0123456789';
const dataDir = mkdtempSync(join(tmpdir(), 'hitl-escalation-final-'));
let clock = Date.now();
const now = () => clock;
let demo: DemoHandle;
let relay: RelayHandle;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

const routes = {
  ladder: {
    targets: ['web:owner'],
    escalation: {
      steps: [
        { after_seconds: 900, targets: ['web:team'] },
        { after_seconds: 3600, targets: ['web:oncall'] },
      ],
      final: { action: 'reject', after_seconds: 7200 },
    },
  },
  // An approval has no "skip": this final answer can never be given.
  odd: { targets: ['web:odd'], escalation: { final: { action: 'skip', after_seconds: 600 } } },
  // The service fails the final answer's submit once.
  flaky: {
    targets: ['web:flaky'],
    escalation: { final: { action: 'reject', after_seconds: 600 } },
  },
  // Abort cannot be undone: it takes a person's confirming tap, never the relay's.
  risky: { targets: ['web:risky'], escalation: { final: { action: 'abort', after_seconds: 600 } } },
  // Approving needs two votes under the policy: the relay never approves on its own.
  guarded: {
    targets: ['web:guarded'],
    policy: 'four-eyes',
    escalation: { final: { action: 'approve', after_seconds: 600 } },
  },
};
const start = () =>
  startRelay({
    adapters: [createWebAdapter()],
    dataDir,
    now,
    configFile: { routes, policies: { 'four-eyes': { required: 2 } } },
    env: { RELAY_NOTIFY_SECRET: SECRET },
  });

beforeAll(async () => {
  demo = await startDemo();
  receiver = await startReceiver({ secret: SECRET, failFirst: 0 });
  relay = await start();
});
afterAll(async () => {
  await relay?.stop();
  await demo?.stop();
  await receiver?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function cards(room: string, caseId: string): Promise<any[]> {
  const res = await request(`${relay.url}/web/api/rooms/${room}/messages`);
  return ((await res.body.json()) as any[]).filter((m) => m.case === caseId);
}
const submissionsFor = async (caseId: string) =>
  (await demo.submissions()).filter((s) => s.case_id === caseId);
const events = (id: string) =>
  receiver
    .delivered()
    .filter((r) => r.body.id === id)
    .map((r) => r.event);

describe('the final step of an escalation ladder', () => {
  it('submits the configured final answer once, as the relay, across restarts', async () => {
    const response = await demo.create('approval', true);
    const sent = await relay.send('route:ladder', response, { notify_url: receiver.url });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    const id = sent.body.id;
    expect(sent.body.escalation.final).toMatchObject({ action: 'reject', outcome: null });

    clock += 901_000;
    await eventually(async () => (await cards('team', id)).length === 1, 10_000, 'step 1');
    await relay.stop();
    clock += 2700_000;
    relay = await start();
    await eventually(async () => (await cards('oncall', id)).length === 1, 10_000, 'step 2');
    expect(await submissionsFor(response.hitl.case_id)).toEqual([]);
    expect((await relay.get(id)).status).toBe('pending');

    // Down when the final step falls due; the restarted relay gives it.
    await relay.stop();
    clock += 3600_000;
    relay = await start();
    const view = await relay.until(id, (c) => c.final, 15_000);
    const subs = await submissionsFor(response.hitl.case_id);
    expect(subs).toHaveLength(1);
    expect(subs[0]!.body).toMatchObject({
      action: 'reject',
      submitted_via: 'x-hitl-relay_escalation_final',
      submitted_by: { platform: 'x-hitl-relay', platform_user_id: 'escalation-final' },
    });
    expect(view).toMatchObject({
      status: 'completed',
      result: { action: 'reject' },
      submitted_by: { platform: 'x-hitl-relay' },
    });
    const settled = await relay.until(id, (c) => c.escalation.final.outcome === 'submitted');
    expect(settled.escalation).toMatchObject({ step: 2, of: 2, final: { action: 'reject' } });
    expect(
      settled.history.filter((h: any) => h.kind === 'escalation_final').map((h: any) => h.outcome),
    ).toEqual(['submitted']);
    // Every card ends.
    for (const room of ['owner', 'team', 'oncall'])
      await eventually(async () => (await cards(room, id))[0]?.final, 10_000, `final in ${room}`);
    // The receipt names the relay as the submitter and verifies.
    const r = (await (await request(`${relay.url}/v1/cases/${id}/receipt`)).body.json()) as any;
    expect(r.receipt.decision.submitted_by).toMatchObject({ platform: 'x-hitl-relay' });
    expect(receiptProblem(r)).toBeNull();
    // The agent heard of the end.
    await eventually(async () => events(id).includes('completed'), 10_000, 'notify completed');
    // Later looks do not give it again.
    clock += 600_000;
    await relay.until(id, (c) => c.final);
    expect(await submissionsFor(response.hitl.case_id)).toHaveLength(1);
  }, 60_000);

  it.each([
    ['odd', 'approval', /"skip" is not an inline action of this case \(approve, reject\)/],
    ['risky', 'escalation', /"abort" cannot be undone and needs a person's confirmation/],
    ['guarded', 'approval', /"approve" needs 2 approvals under policy four-eyes/],
  ])(
    'route %s: a final answer the case cannot take is recorded as not possible, and the agent told',
    async (route, type, why) => {
      const response = await demo.create(type, true);
      const sent = await relay.send(`route:${route}`, response, { notify_url: receiver.url });
      const id = sent.body.id;
      await eventually(async () => (await cards(route, id)).length === 1);
      clock += 601_000;
      const view = await relay.until(id, (c) => c.escalation.final.outcome === 'not_possible');
      expect(view.escalation.final.reason).toMatch(why);
      expect(view.status).toBe('pending');
      expect(view.history.find((h: any) => h.kind === 'escalation_final')).toMatchObject({
        outcome: 'not_possible',
      });
      await eventually(
        async () => events(id).includes('escalation_final:not_possible'),
        10_000,
        'notify',
      );
      expect(await submissionsFor(response.hitl.case_id)).toEqual([]);
    },
  );
});

describe('the final step when the service does not take it', () => {
  it('records it as failed, tells the agent, and leaves the case to a person', async () => {
    const response = await demo.create('approval', true);
    const sent = await relay.send('route:flaky', response, { notify_url: receiver.url });
    const id = sent.body.id;
    await eventually(async () => (await cards('flaky', id)).length === 1);
    await demo.fault({ route: 'respond', kind: '500', count: 1 });
    clock += 601_000;
    const view = await relay.until(id, (c) => c.escalation.final.outcome === 'failed');
    expect(view.escalation.final.reason).toBe('the service did not take it (service_failed 500)');
    expect(view.status).toBe('pending');
    await eventually(async () => events(id).includes('escalation_final:failed'), 10_000, 'notify');
    // One attempt, answered 500 by the service.
    expect(
      (await submissionsFor(response.hitl.case_id)).map((s: any) => [s.body.action, s.status]),
    ).toEqual([['reject', 500]]);
    // Not given again; a person's tap still decides.
    clock += 600_000;
    const [card] = await cards('flaky', id);
    const res = await request(
      `${relay.url}/web/api/rooms/flaky/messages/${card.id}/actions/approve`,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ user: { id: 'ann', name: 'Ann' } }),
      },
    );
    expect(((await res.body.json()) as any).outcome).toBe('submitted');
    expect(
      (await submissionsFor(response.hitl.case_id)).map((s: any) => [s.body.action, s.status]),
    ).toEqual([
      ['reject', 500],
      ['approve', 200],
    ]);
  });
});

describe('ladder configuration', () => {
  it('refuses a final answer due before the last step, and a ladder with nothing in it', () => {
    const early = escalationSchema.safeParse({
      steps: [{ after_seconds: 3600, targets: ['web:b'] }],
      final: { action: 'reject', after_seconds: 60 },
    });
    expect(early.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['final.after_seconds', 'the final answer comes last: at least 3600 (the last step)'],
    ]);
    expect(escalationSchema.safeParse({}).error?.issues[0]?.message).toBe(
      'give steps, a final answer or both',
    );
    expect(
      escalationSchema.parse({ final: { action: 'reject', after_seconds: 60 } }).steps,
    ).toEqual([]);
  });
});
