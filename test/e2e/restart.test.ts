/** Kill the relay (SIGKILL) with open cases and start it again: nothing lost, nothing posted twice, watching resumes. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, expect, it } from 'vitest';
import { freePort, type RelayProcess, spawnRelay } from '../helpers/process.ts';
import { eventually } from '../helpers/relay-env.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'hitl-restart-'));
let proc: RelayProcess | undefined;
afterAll(async () => {
  await proc?.kill();
  rmSync(dataDir, { recursive: true, force: true });
});

async function json(method: 'GET' | 'POST', url: string, body?: unknown): Promise<any> {
  const res = await request(url, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return res.body.json();
}

it('keeps cases across a SIGKILL, posts no message twice, and resumes watching', async () => {
  const env = {
    DATA_DIR: dataDir,
    PORT: String(await freePort()),
    POLL_INTERVAL_MIN_SECONDS: '0.2',
    POLL_INTERVAL_MAX_SECONDS: '1',
    // The killed process's poll leases lapse after this; the 15 s windows below outlast it on a busy machine.
    LEASE_SECONDS: '2',
  };
  proc = await spawnRelay(env);
  const created: any[] = [];
  for (const type of ['approval', 'escalation', 'confirmation']) {
    const response = await json('POST', `${proc.url}/demo/api/reviews?type=${type}&inline=1`, {});
    const c = await json('POST', `${proc.url}/v1/cases`, { target: 'web:restart', response });
    created.push({ response, id: c.id });
  }
  const before = await json('GET', `${proc.url}/web/api/rooms/restart/messages`);
  expect(before).toHaveLength(3);

  await proc.kill('SIGKILL');
  proc = await spawnRelay(env);

  const open = await json('GET', `${proc.url}/v1/cases?open=1`);
  expect(open.cases.map((c: any) => c.id).sort()).toEqual(created.map((c) => c.id).sort());
  // A reviewer answers the first case on the review page while the relay was away: polling finds it.
  const first = created[0];
  const review = new URL(first.response.hitl.review_url);
  const answered = await request(
    `${review.origin}/demo/api/reviews/${first.response.hitl.case_id}/respond?token=${review.searchParams.get('token')}`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ action: 'approve', data: {} }),
    },
  );
  expect(answered.statusCode).toBe(200);
  await answered.body.dump();
  await eventually(
    async () => (await json('GET', `${proc!.url}/v1/cases/${first.id}`)).status === 'completed',
    15_000,
    'polling after restart',
  );
  // A tap after the restart still works.
  const msgs = await json('GET', `${proc.url}/web/api/rooms/restart/messages`);
  const second = msgs.find((m: any) => m.case === created[1].id);
  const tap = await json(
    'POST',
    `${proc.url}/web/api/rooms/restart/messages/${second.id}/actions/skip`,
    { user: { id: 'ann' } },
  );
  expect(tap.outcome).toBe('submitted');
  const after = await eventually(
    async () => {
      const m = await json('GET', `${proc!.url}/web/api/rooms/restart/messages`);
      return m.find((x: any) => x.case === first.id)?.final ? m : null;
    },
    15_000,
    'the final card',
  );
  expect(after).toHaveLength(3);
  expect(new Set(after.map((m: any) => m.case)).size).toBe(3);
});
