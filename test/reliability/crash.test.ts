/**
 * SIGKILL of a real relay process in the middle of the tap flow, one case held at each step:
 *   A: after the claim, the submit never reached the service;
 *   B: during the submit, the service still working on it (a slow answer) when the relay dies;
 *   C: after the submit, the service accepted it but the relay died before applying the answer.
 * After a restart no case is submitted twice: B and C (whose outcome the relay never heard) are
 * settled by polling and their cards end right; A's claim blocks a second submit until it lapses
 * and a poll has shown the case still open, and then a tap works, exactly once.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freePort, type RelayProcess, spawnRelay } from '../helpers/process.ts';
import { type DemoHandle, eventually, startDemo } from '../helpers/relay-env.ts';
import { type ServiceProxy, startServiceProxy } from './service-proxy.ts';
import { cardOf, tapWeb } from './web.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'hitl-crash-'));
let demo: DemoHandle;
let proxy: ServiceProxy;
let proc: RelayProcess | undefined;
let env: Record<string, string>;

beforeAll(async () => {
  demo = await startDemo();
  proxy = await startServiceProxy(new URL(demo.url).origin);
  env = {
    DATA_DIR: dataDir,
    PORT: String(await freePort()),
    DEMO: '0',
    POLL_INTERVAL_MIN_SECONDS: '0.2',
    POLL_INTERVAL_MAX_SECONDS: '1',
    // The killed process's poll leases lapse after this; the 15 s windows below outlast it on a busy machine.
    LEASE_SECONDS: '2',
    // A's claim (its submit never arrived) is waited out below: the shortest claim allowed, which
    // is the submit queue's 20 s + SUBMIT_TIMEOUT_SECONDS + 5 s. B's slow answer (1.5 s) and C's
    // lost one are both cut by the kill well inside a 5 s submit timeout.
    SUBMIT_TIMEOUT_SECONDS: '5',
    CLAIM_SECONDS: '30',
  };
});
afterAll(async () => {
  await proc?.kill();
  await proxy?.close();
  await demo?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function getCase(id: string): Promise<any> {
  const res = await request(`${proc!.url}/v1/cases/${id}`);
  return res.body.json();
}

/** Accepted submissions the service recorded for a case (answers a fault replaced excluded; slow ones are real). */
async function accepted(caseId: string): Promise<number> {
  return (await demo.submissions()).filter(
    (s: any) => s.case_id === caseId && s.status === 200 && (!s.fault || s.fault === 'slow'),
  ).length;
}

async function finalCard(id: string): Promise<any> {
  return eventually(
    async () => {
      const m = await cardOf(proc!.url, 'crash', id);
      return m?.final ? m : null;
    },
    15_000,
    `the final card of ${id}`,
  );
}

it('after a SIGKILL at each step of a tap, nothing is submitted twice and every card ends right', async () => {
  proc = await spawnRelay(env);
  const cases: Record<'A' | 'B' | 'C', { id: string; caseId: string; msg: string }> = {} as never;
  for (const name of ['A', 'B', 'C'] as const) {
    const response = await demo.create('approval', true);
    const res = await request(`${proc.url}/v1/cases`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ target: 'web:crash', response: proxy.wrap(response) }),
    });
    const body = (await res.body.json()) as { id: string };
    expect(res.statusCode).toBe(201);
    const card = await eventually(() => cardOf(proc!.url, 'crash', body.id), 5000, 'card');
    cases[name] = { id: body.id, caseId: response.hitl.case_id, msg: card.id };
  }
  const { A, B, C } = cases;
  const tap = (c: { msg: string }) =>
    tapWeb(proc!.url, 'crash', c.msg, 'approve').catch(() => null); // dies with the relay

  // C: the service accepts, the answer never comes back.
  proxy.mode(C.caseId, 'land');
  void tap(C);
  await eventually(async () => proxy.submits(C.caseId).includes('landed'), 10_000, 'C landed');
  // B: the service is slow to answer; it is still working when the relay dies.
  await demo.fault({ route: 'respond', kind: 'slow', count: 1, delay_ms: 1500 });
  void tap(B);
  await eventually(async () => proxy.submits(B.caseId).includes('forwarded'), 10_000, 'B sent');
  // A: the submit never reaches the service.
  proxy.mode(A.caseId, 'hold');
  void tap(A);
  await eventually(async () => proxy.submits(A.caseId).includes('held'), 10_000, 'A claimed');

  await proc.kill('SIGKILL');
  // The service finishes B on its own; C is already done; A never arrived.
  await eventually(async () => (await accepted(B.caseId)) === 1, 10_000, 'B done at the service');
  expect(await accepted(C.caseId)).toBe(1);
  expect(await accepted(A.caseId)).toBe(0);

  proc = await spawnRelay(env);
  proxy.mode(A.caseId, 'pass');
  proxy.mode(C.caseId, 'pass');

  // B and C: the relay never heard the answers; polling settles both and their cards end.
  for (const c of [B, C]) {
    const settled = await eventually(
      async () => {
        const x = await getCase(c.id);
        return x.status === 'completed' ? x : null;
      },
      15_000,
      'settled by polling',
    );
    expect(settled.result.action).toBe('approve');
    const card = await finalCard(c.id);
    expect(card.actions).toEqual([]);
    const again = await tapWeb(proc.url, 'crash', c.msg, 'approve');
    expect(again.body.outcome).toBe('closed');
  }

  // A: open, buttons kept; its claim (outcome unknown) blocks a second submit while it lasts.
  const open = await getCase(A.id);
  expect(open.status).toBe('pending');
  const cardA = await cardOf(proc.url, 'crash', A.id);
  expect(cardA.final).toBe(false);
  expect(cardA.actions.map((a: any) => a.action)).toEqual(['approve', 'reject']);
  const blocked = await tapWeb(proc.url, 'crash', A.msg, 'approve');
  expect(blocked.body.outcome).toBe('busy');
  expect(proxy.submits(A.caseId)).toEqual(['held']);

  // Once the claim has lapsed and a poll has shown the case still open, a tap submits, once.
  const done = await eventually(
    async () => {
      const r = await tapWeb(proc!.url, 'crash', A.msg, 'approve');
      if (r.body.outcome === 'busy') {
        await new Promise((resolve) => setTimeout(resolve, 2000));
        return null;
      }
      return r;
    },
    90_000,
    "A's claim to lapse",
  );
  expect(done.body.outcome).toBe('submitted');
  expect(await finalCard(A.id)).toMatchObject({ actions: [] });

  for (const c of [A, B, C]) expect(await accepted(c.caseId), c.caseId).toBe(1);
  expect(proxy.submits(B.caseId)).toEqual(['forwarded', 'landed']);
  expect(proxy.submits(C.caseId)).toEqual(['forwarded', 'landed']);
  const history = (await getCase(A.id)).history.map((h: any) => h.kind);
  expect(history.filter((k: string) => k === 'submit')).toHaveLength(1);
}, 150_000);
