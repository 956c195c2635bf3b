/**
 * Graceful shutdown of a real `hitl-relay serve` process: SIGTERM with 20 open /wait requests and a
 * tap whose submit is in flight. The process exits within 5 s, every waiter gets an answer (the
 * case as it stands), and the tap's submit is either completed (the service has it and the case is
 * completed) or was never sent, never half.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, expect, it } from 'vitest';
import { freePort, type RelayProcess, spawnRelay } from '../helpers/process.ts';
import { type DemoHandle, eventually, startDemo } from '../helpers/relay-env.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'hitl-shutdown-'));
let proc: RelayProcess | undefined;
let demo: DemoHandle | undefined;
afterAll(async () => {
  await proc?.kill();
  await demo?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function json(method: 'GET' | 'POST', url: string, body?: unknown): Promise<any> {
  const res = await request(url, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.statusCode, body: await res.body.json() };
}

it('SIGTERM: exits within 5 s, answers every waiter, and a tap in flight is submitted whole', async () => {
  demo = await startDemo();
  proc = await spawnRelay({
    DATA_DIR: dataDir,
    PORT: String(await freePort()),
    DEMO: '0',
    POLL_INTERVAL_MIN_SECONDS: '0.2',
    POLL_INTERVAL_MAX_SECONDS: '1',
  });
  const ids: string[] = [];
  for (let i = 0; i < 21; i++) {
    const r = await json('POST', `${proc.url}/v1/cases`, {
      target: 'web:shutdown',
      response: await demo.create('approval', true),
    });
    expect(r.status).toBe(201);
    ids.push(r.body.id);
  }
  const tapped = ids[20]!;
  const waiters = ids.slice(0, 20).map((id) =>
    request(`${proc!.url}/v1/cases/${id}/wait?timeout=60`).then(async (res) => ({
      status: res.statusCode,
      body: (await res.body.json()) as any,
    })),
  );
  // The submit takes 1.5 s at the service, so SIGTERM lands while it is in flight.
  await demo.fault({ route: 'respond', kind: 'slow', delay_ms: 1500, count: 1 });
  const messages = await eventually(async () => {
    const r = await json('GET', `${proc!.url}/web/api/rooms/shutdown/messages`);
    return r.body.length === 21 ? r.body : undefined;
  });
  const card = messages.find((m: any) => m.case === tapped);
  const tap = json(
    'POST',
    `${proc.url}/web/api/rooms/shutdown/messages/${card.id}/actions/approve`,
    { user: { id: 'ann', name: 'Ann' } },
  ).catch((err: unknown) => ({ status: 0, body: String(err) }));
  // The relay records the tap just before it POSTs submit_url.
  await eventually(async () => {
    const r = await json('GET', `${proc!.url}/v1/cases/${tapped}`);
    return r.body.history.some((h: any) => h.kind === 'tap');
  });
  const t0 = Date.now();
  const exited = new Promise<number | null>((resolve) => proc!.child.once('exit', resolve));
  proc.child.kill('SIGTERM');
  const code = await exited;
  const took = Date.now() - t0;
  expect(took).toBeLessThan(5000);
  expect(code).toBe(0);
  const answers = await Promise.all(waiters);
  for (const a of answers) {
    expect(a.status).toBe(200);
    expect(a.body.status).toBe('pending');
  }
  const tapAnswer = await tap;
  const submissions = await demo.submissions();
  const out = proc.output();
  expect(out).toMatch(/shutdown: refusing new cases and taps/);
  expect(out).toMatch(/shutdown: store closed; done/);
  // Completed whole: the service got the submit once and the relay recorded the case completed.
  expect(tapAnswer.status).toBe(200);
  expect(tapAnswer.body.outcome).toBe('submitted');
  expect(submissions).toHaveLength(1);
  // After a restart the stored case says completed (the outcome was written before the exit).
  proc = await spawnRelay({
    DATA_DIR: dataDir,
    PORT: String(await freePort()),
    DEMO: '0',
    POLL_INTERVAL_MIN_SECONDS: '0.2',
    POLL_INTERVAL_MAX_SECONDS: '1',
  });
  const after = await json('GET', `${proc.url}/v1/cases/${tapped}`);
  expect(after.body.status).toBe('completed');
}, 60_000);
