/**
 * A PostgreSQL outage under load: the server is stopped (`pg_ctl stop -m fast`, which ends every
 * connection with 57P01) for 10 s while intakes and taps keep coming, then started again. The relay
 * stays up, answers 503 with Retry-After meanwhile, /readyz says why, and it resumes by itself.
 * Afterwards every accepted case is there, every card is posted, and no case was submitted twice.
 */
import { request } from 'undici';
import { afterAll, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { openPostgresStore } from '../../src/store/postgres-store.ts';
import { type PgCluster, startPgCluster } from '../helpers/pg-cluster.ts';
import {
  type DemoHandle,
  eventually,
  logLines,
  type RelayHandle,
  startDemo,
  startRelay,
} from '../helpers/relay-env.ts';

const DOWN_MS = 10_000;
const ROOM = 'pgload';
let cluster: PgCluster | undefined;
let relay: RelayHandle | undefined;
let demo: DemoHandle | undefined;
afterAll(async () => {
  const t = setTimeout(
    () => console.log(logLines.filter((l) => /shutdown|stop/.test(l)).join('\n')),
    20_000,
  );
  await relay?.stop().catch(() => {});
  clearTimeout(t);
  await demo?.stop();
  cluster?.destroy();
});

async function call(method: 'GET' | 'POST', url: string, body?: unknown) {
  const res = await request(url, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.body.text();
  return {
    status: res.statusCode,
    retryAfter: res.headers['retry-after'],
    body: text ? JSON.parse(text) : undefined,
  };
}

it('survives PostgreSQL stopped for 10 s under intakes and taps: 503 meanwhile, nothing lost or doubled', async () => {
  cluster = await startPgCluster();
  const lost: Error[] = [];
  const store = await openPostgresStore(cluster.url, Date.now, {
    onError: (err) => void lost.push(err),
  });
  demo = await startDemo();
  relay = await startRelay({
    adapters: [createWebAdapter()],
    store,
    reconcileEveryMs: 200,
    env: { INTAKE_RATE_LIMIT_PER_MINUTE: '0' },
  });
  const r = relay;
  const intakes: Array<{ status: number; retryAfter: unknown; id?: string; body: unknown }> = [];
  const taps: Array<{ id: string; status: number; outcome?: string }> = [];
  let running = true;

  const pause = (ms: number) => new Promise((res) => setTimeout(res, ms));
  const accepted = new Set<string>();
  /** Agents: a new case every few ms; a 503 is logged and the agent moves on. */
  const agent = async () => {
    while (running) {
      const body = await demo!.create('approval', true);
      const sent = await call('POST', `${r.url}/v1/cases`, {
        target: `web:${ROOM}`,
        response: body,
      });
      intakes.push({ status: sent.status, retryAfter: sent.retryAfter, id: sent.body?.id, body });
      if (sent.status === 201) accepted.add(sent.body.id);
      await pause(sent.status === 201 ? 20 : 200);
    }
  };
  /** A reviewer: taps the open cards one after another, through the outage too (from the page as last seen). */
  const reviewer = async () => {
    let seen: any[] = [];
    const done = new Set<string>();
    while (running) {
      const room = await call('GET', `${r.url}/web/api/rooms/${ROOM}/messages`);
      if (Array.isArray(room.body)) seen = room.body;
      const card = seen.find(
        (m: any) =>
          !m.final &&
          !done.has(m.case) &&
          m.actions.some((a: any) => a.action === 'approve') &&
          taps.filter((t) => t.id === m.case).length < 3,
      );
      if (card) {
        const tap = await call(
          'POST',
          `${r.url}/web/api/rooms/${ROOM}/messages/${card.id}/actions/approve`,
          { user: { id: 'ann', name: 'Ann' } },
        );
        taps.push({ id: card.case, status: tap.status, outcome: tap.body?.outcome });
        if (tap.status === 200) done.add(card.case);
      }
      await pause(card ? 50 : 100);
    }
  };
  const workers = [agent(), agent(), reviewer()];
  await eventually(
    async () => taps.filter((t) => t.outcome === 'submitted').length >= 5 && accepted.size >= 15,
    15_000,
    'cases and taps before the outage',
  );
  const tapsBefore = taps.length;

  cluster.stop();
  const stoppedAt = intakes.length;
  const down = await eventually(
    async () => {
      const rz = await call('GET', `${r.url}/readyz`);
      return rz.status === 503 ? rz : undefined;
    },
    5000,
    'readyz 503',
  );
  expect(down.body.parts.store.state).toBe('down');
  expect(down.body.parts.store.reason).toMatch(/store not writable/);
  await new Promise((res) => setTimeout(res, DOWN_MS));
  const during = intakes.slice(stoppedAt);
  cluster.start();
  await eventually(
    async () => (await call('GET', `${r.url}/readyz`)).status === 200,
    20_000,
    'ready again',
  );
  const afterAt = intakes.length;
  await eventually(
    async () => intakes.slice(afterAt).filter((i) => i.status === 201).length >= 4,
    15_000,
    'intakes after',
  );
  running = false;
  await Promise.all(workers);

  // Meanwhile: refused with 503 and Retry-After, never a 500.
  expect(during.some((i) => i.status === 503)).toBe(true);
  for (const i of intakes) expect([201, 503]).toContain(i.status);
  for (const i of intakes.filter((x) => x.status === 503)) expect(i.retryAfter).toBe('5');
  for (const t of taps) expect([200, 503]).toContain(t.status);
  // Taps went on during the outage (answered 503: nothing decided, the person taps again).
  expect(taps.slice(tapsBefore).some((t) => t.status === 503)).toBe(true);
  expect(lost.length).toBeGreaterThan(0); // the pool's idle connections were ended (57P01)
  expect(logLines.some((l) => l.includes('store unavailable; answered 503'))).toBe(true);

  // An intake answered 503 is sent again by its agent: stored once, never twice.
  for (const i of intakes.filter((x) => x.status === 503)) {
    const again = await call('POST', `${r.url}/v1/cases`, {
      target: `web:${ROOM}`,
      response: i.body,
    });
    expect([200, 201]).toContain(again.status);
    i.id = again.body.id;
  }
  const ids = intakes.map((i) => i.id!);
  expect(new Set(ids).size).toBe(ids.length);
  // Every accepted case is there and its card is posted (reconcile finished what the outage cut).
  for (const id of ids) {
    const c = await r.until(
      id,
      (x) => x.messages.length > 0 && x.messages.every((m: any) => m.state === 'posted'),
      20_000,
    );
    expect(c.id).toBe(id);
  }
  // No case was submitted twice; every tap answered "submitted" was submitted once.
  const submissions = await demo.submissions();
  const perCase = new Map<string, number>();
  for (const s of submissions) perCase.set(s.case_id, (perCase.get(s.case_id) ?? 0) + 1);
  for (const n of perCase.values()) expect(n).toBe(1);
  const byRelayId = new Map<string, string>();
  for (const id of ids)
    byRelayId.set(id, (await call('GET', `${r.url}/v1/cases/${id}`)).body.case_id);
  for (const t of taps.filter((x) => x.outcome === 'submitted'))
    expect(perCase.get(byRelayId.get(t.id)!)).toBe(1);
  // Every submitted case ends completed in the relay (confirmed by a poll if the write was cut).
  for (const [id, caseId] of byRelayId)
    if (perCase.has(caseId)) await r.until(id, (x) => x.status === 'completed', 30_000);
  // The reviewer taps what is still open; then every case is completed, each submitted exactly once.
  await eventually(
    async () => {
      const room = await call('GET', `${r.url}/web/api/rooms/${ROOM}/messages`);
      const open = room.body.filter(
        (m: any) => !m.final && m.actions.some((a: any) => a.action === 'approve'),
      );
      for (const m of open)
        await call('POST', `${r.url}/web/api/rooms/${ROOM}/messages/${m.id}/actions/approve`, {
          user: { id: 'ann', name: 'Ann' },
        });
      const views = await Promise.all(ids.map((id) => call('GET', `${r.url}/v1/cases/${id}`)));
      return views.every((v) => v.body.status === 'completed');
    },
    30_000,
    'every case completed',
  );
  const finalCounts = new Map<string, number>();
  for (const x of await demo.submissions())
    finalCounts.set(x.case_id, (finalCounts.get(x.case_id) ?? 0) + 1);
  for (const caseId of byRelayId.values()) expect(finalCounts.get(caseId)).toBe(1);
}, 120_000);
