/**
 * The final rung of an escalation ladder never decides for a person (v0.9 §8, the spec's non-goal
 * "does NOT submit on behalf of the human"). With a fake clock: when it falls due (across a
 * restart) the relay sends the service zero submits (its respond POSTs are counted) and every
 * surface says nobody decided and what the ladder's policy answer is: the case view, /wait, the
 * client's outcome, the CLI, notify_url, every card, the history, the log and (after the service's
 * own expiry) the receipt. A ladder an older relay stored half-way through a submit is upgraded as
 * it is read, and the relay's own asks are closed as expired with the policy's default_action.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { main } from '../../src/cli/main.ts';
import { RelayClient } from '../../src/client/relay-client.ts';
import { escalationSchema } from '../../src/policy/escalation.ts';
import { receiptProblem } from '../../src/receipts/receipt.ts';
import { KINDS } from '../asks/fixtures.ts';
import {
  type DemoHandle,
  eventually,
  logLines,
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
  // An approving policy answer under four-eyes: still never submitted, never an approval.
  guarded: {
    targets: ['web:guarded'],
    policy: 'four-eyes',
    escalation: { final: { action: 'approve', after_seconds: 600 } },
  },
  old: { targets: ['web:old'], escalation: { final: { action: 'reject', after_seconds: 600 } } },
  asks: { targets: ['web:asks'], escalation: { final: { action: 'reject', after_seconds: 600 } } },
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
/** The fake service's respond POSTs for a case: what the relay submitted. */
const submitsTo = async (caseId: string) =>
  (await demo.submissions()).filter((s) => s.case_id === caseId);
const events = (id: string) =>
  receiver
    .delivered()
    .filter((r) => r.body.id === id)
    .map((r) => r.event);
/** The final rung's history row. */
const taken = (h: any) => h.kind === 'escalation_final';
const NOBODY =
  /^nobody decided by .*; the escalation ladder's policy answer is "(reject|approve)" \(a timeout policy, not a person's decision; nothing was submitted to the service\)$/;

async function cli(args: string[]) {
  let out = '';
  const code = await main(args, {
    io: {
      out: (t) => {
        out += t;
      },
      err: (t) => {
        out += t;
      },
    },
    env: { RELAY_URL: relay.url },
    stdin: async () => '',
  });
  return { code, out };
}

describe('the final rung of an escalation ladder', () => {
  it('sends zero submits and ends the wait as a timeout policy on every surface', async () => {
    const response = await demo.create('approval', true);
    const sent = await relay.send('route:ladder', response, { notify_url: receiver.url });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    const id = sent.body.id;
    expect(sent.body.escalation.final).toMatchObject({ action: 'reject', outcome: null });

    clock += 3601_000;
    await eventually(async () => (await cards('oncall', id)).length === 1, 10_000, 'step 2');
    // Down when the final rung falls due; the restarted relay takes it.
    await relay.stop();
    clock += 3600_000;
    relay = await start();
    const view = await relay.until(id, (c) => c.history.some(taken), 15_000);

    // Nothing reached the service: zero respond POSTs, and the case is still open there.
    expect(await submitsTo(response.hitl.case_id)).toEqual([]);
    expect(view).toMatchObject({
      status: 'pending',
      final: false,
      result: null,
      submitted_by: null,
    });
    expect(view.escalation.final).toMatchObject({ action: 'reject', decided_by: null });
    expect(view.escalation.final.reason).toMatch(NOBODY);
    const rows = view.history.filter((h: any) => h.kind === 'escalation_final');
    expect(rows).toEqual([
      expect.objectContaining({ outcome: 'policy', decided_by: null, submitted: false }),
    ]);
    expect(view.history.some((h: any) => h.kind === 'submit' || h.kind === 'tap')).toBe(false);
    expect(logLines.some((l) => l.includes('nothing submitted') && l.includes(id))).toBe(true);

    // /wait, the client's outcome and the CLI: nobody decided, the policy answer, no approval.
    const client = new RelayClient({ relayUrl: relay.url, waitChunkSeconds: 5 });
    const waited = await client.wait(id, { timeoutMs: 30_000 });
    expect(waited.escalation?.final?.outcome).toBe('policy');
    const { outcomeOf } = await import('../../src/client/outcome.ts');
    const outcome = outcomeOf(waited);
    expect(outcome.approval).toEqual({ approved: false, reason: expect.stringMatching(NOBODY) });
    expect(outcome.policy).toMatchObject({ action: 'reject', source: 'escalation_final' });
    const gate = await cli(['status', id, '--require-approval', '--timeout', '5']);
    expect(gate.out).toMatch(/not approved: nobody decided by .* policy answer is "reject"/);
    expect(gate.code).toBe(4);

    // notify_url: the agent hears at once (notify_on final).
    await eventually(async () => events(id).includes('escalation_final:policy'), 10_000, 'notify');
    // Every card says nobody decided and what the policy answer is.
    for (const room of ['owner', 'team', 'oncall'])
      await eventually(
        async () =>
          /Nobody decided by .*policy's answer is "reject".*not a person's decision/s.test(
            (await cards(room, id))[0]?.status ?? '',
          ),
        10_000,
        `card in ${room}`,
      );

    // The service's own expiry ends the case; its receipt keeps "nobody decided".
    await demo.act(response.hitl.case_id, { step: 'expire' });
    const ended = await relay.until(id, (c) => c.final, 15_000);
    expect(ended).toMatchObject({ status: 'expired', result: null, submitted_by: null });
    const r = (await (await request(`${relay.url}/v1/cases/${id}/receipt`)).body.json()) as any;
    expect(receiptProblem(r)).toBeNull();
    expect(r.receipt.decision).toMatchObject({ result: null, submitted_by: null });
    expect(
      r.receipt.history.entries.find((e: any) => e.kind === 'escalation_final').detail,
    ).toMatchObject({ outcome: 'policy', decided_by: null, submitted: false });
    // Later looks take nothing again, and nothing was ever submitted.
    clock += 600_000;
    await relay.until(id, (c) => c.final);
    expect(await submitsTo(response.hitl.case_id)).toEqual([]);
  }, 60_000);

  it('an approving policy answer is never an approval and never submitted', async () => {
    const response = await demo.create('approval', true);
    const sent = await relay.send('route:guarded', response, { notify_url: receiver.url });
    const id = sent.body.id;
    await eventually(async () => (await cards('guarded', id)).length === 1);
    // A client already waiting is woken by the final rung (its /wait returns, not its timeout).
    const client = new RelayClient({ relayUrl: relay.url, waitChunkSeconds: 20 });
    const waiting = client.wait(id, { timeoutMs: 20_000 });
    clock += 601_000;
    const view = await relay.until(id, (c) => c.escalation.final.outcome === 'policy');
    const waited = await waiting;
    expect(waited.escalation?.final?.outcome).toBe('policy');
    const { outcomeOf } = await import('../../src/client/outcome.ts');
    expect(outcomeOf(view).approval.approved).toBe(false);
    expect(view.status).toBe('pending');
    await eventually(async () => events(id).includes('escalation_final:policy'), 10_000, 'notify');
    expect(await submitsTo(response.hitl.case_id)).toEqual([]);
    // A person can still decide at the service: their tap is the decision.
    const [card] = await cards('guarded', id);
    expect(card.actions.map((a: any) => a.action)).toContain('reject');
  });

  it('a ladder an older relay stored mid-submit is upgraded as read: policy, zero submits', async () => {
    const response = await demo.create('approval', true);
    const id = (await relay.send('route:old', response)).body.id;
    await eventually(async () => (await cards('old', id)).length === 1);
    // What an older relay left when it died between marking and sending its own submit.
    await relay.relay.services.cases.mutate(id, (x) => {
      x.doc.escalation!.final!.outcome = 'submitting';
      return true;
    });
    expect((await relay.get(id)).escalation.final.outcome).toBeNull();
    clock += 601_000;
    const view = await relay.until(id, (c) => c.escalation.final.outcome === 'policy');
    expect(view.status).toBe('pending');
    expect(await submitsTo(response.hitl.case_id)).toEqual([]);
  });

  it("closes the relay's own ask as expired with the policy's default_action", async () => {
    const created = await request(`${relay.url}/v1/asks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        target: 'route:asks',
        content: KINDS['approval.binary'].content,
        default: 'skip',
      }),
    });
    const body = (await created.body.json()) as any;
    expect(created.statusCode, JSON.stringify(body)).toBe(202);
    const id = body.relay.id;
    await eventually(async () => (await cards('asks', id)).length === 1);
    clock += 601_000;
    const view = await relay.until(id, (c) => c.final && c.history.some(taken));
    expect(view).toMatchObject({ status: 'expired', default_action: 'reject', result: null });
    expect(view.history.some((h: any) => h.kind === 'submit')).toBe(false);
    // The service side says it too: the ask's poll is expired with the policy's default_action.
    // (An ask's poll is the asking agent's: its credential is the 202's submit_token.)
    const owner = { authorization: `Bearer ${body.hitl.submit_token}` };
    const poll = (await (await request(body.hitl.poll_url, { headers: owner })).body.json()) as any;
    expect(poll).toMatchObject({ status: 'expired', default_action: 'reject' });
    expect(poll.result).toBeUndefined();
    // The typed answer marks it as policy, not a person's answer.
    const ask = (await (await request(`${relay.url}/v1/asks/${id}`)).body.json()) as any;
    expect(ask).toMatchObject({ answer: null, approval: { approved: false } });
    expect(ask.policy).toMatchObject({ action: 'reject', source: 'escalation_final' });
  });
});

describe('ladder configuration', () => {
  it('refuses a final rung due before the last step, and a ladder with nothing in it', () => {
    const early = escalationSchema.safeParse({
      steps: [{ after_seconds: 3600, targets: ['web:b'] }],
      final: { action: 'reject', after_seconds: 60 },
    });
    expect(early.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['final.after_seconds', 'the final rung comes last: at least 3600 (the last step)'],
    ]);
    expect(escalationSchema.safeParse({}).error?.issues[0]?.message).toBe(
      'give steps, a final rung or both',
    );
    expect(
      escalationSchema.parse({ final: { action: 'reject', after_seconds: 60 } }).steps,
    ).toEqual([]);
  });
});
