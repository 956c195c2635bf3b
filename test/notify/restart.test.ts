/**
 * The outbox survives a crash: the relay is SIGKILLed while one delivery is mid-attempt and another
 * is waiting for its retry; the restarted relay finishes both, and each case end still reaches the
 * receiver exactly once (same delivery id, attempts counted across the restart).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, expect, it } from 'vitest';
import { tapWhenPosted } from '../client/helpers.ts';
import { freePort, type RelayProcess, spawnRelay } from '../helpers/process.ts';
import { eventually } from '../helpers/relay-env.ts';
import { type Received, startReceiver } from './receiver.ts';

const SECRET = 'notify-secret-for-restart-0123456789';
const dataDir = mkdtempSync(join(tmpdir(), 'hitl-notify-restart-'));
let proc: RelayProcess | undefined;
let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;
afterAll(async () => {
  await proc?.kill();
  await receiver?.close();
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

it('keeps notify deliveries across a SIGKILL mid-attempt; one success per case end', async () => {
  let heldCase: string | undefined;
  let crashed = false;
  receiver = await startReceiver({
    secret: SECRET,
    failFirst: 3,
    // Down until the crash, so nothing can succeed before it.
    down: () => !crashed,
    // The first case's second attempt is never answered: the relay dies while it is in flight.
    hold: (r: Received, nth: number) => r.body.id === heldCase && nth === 2,
  });
  const env = {
    DATA_DIR: dataDir,
    PORT: String(await freePort()),
    POLL_INTERVAL_MIN_SECONDS: '0.2',
    POLL_INTERVAL_MAX_SECONDS: '1',
    RELAY_NOTIFY_SECRET: SECRET,
    NOTIFY_RETRY_MIN_SECONDS: '0.2',
    NOTIFY_RETRY_MAX_SECONDS: '1',
    // The held attempt times out after 2 s; its lease (2 x timeout + 1 s) lapses 5 s after it began.
    NOTIFY_TIMEOUT_SECONDS: '2',
  };
  proc = await spawnRelay(env);
  const ids: string[] = [];
  for (const type of ['approval', 'escalation']) {
    const response = await json('POST', `${proc.url}/demo/api/reviews?type=${type}&inline=1`);
    const c = await json('POST', `${proc.url}/v1/cases`, {
      target: 'web:notify-restart',
      response,
      notify_url: receiver.url,
    });
    ids.push(c.id);
  }
  const [first, second] = ids as [string, string];
  heldCase = first;
  await tapWhenPosted(proc.url, 'notify-restart', 'approve', (m) => m.case === first);
  await tapWhenPosted(proc.url, 'notify-restart', 'skip', (m) => m.case === second);
  await eventually(
    async () =>
      receiver!.got.some((r) => r.answered === 'held') &&
      receiver!.got.some((r) => r.body.id === second),
    15_000,
    'the held attempt and a first attempt of the other case',
  );
  await proc.kill('SIGKILL');
  crashed = true;
  const before = receiver.got.length;
  expect(receiver.delivered()).toEqual([]);

  proc = await spawnRelay(env);
  await eventually(async () => receiver!.delivered().length === 2, 20_000, 'both deliveries');
  expect(receiver.got.length).toBeGreaterThan(before);
  const delivered = receiver.delivered();
  expect(delivered.map((d) => [d.body.id, d.event]).sort()).toEqual(
    [
      [first, 'completed'],
      [second, 'completed'],
    ].sort(),
  );
  for (const d of delivered) {
    const attempts = receiver.got.filter((r) => r.delivery === d.delivery);
    expect(attempts.every((r) => r.signed && r.body.id === d.body.id)).toBe(true);
    expect(attempts.filter((r) => r.answered === 200)).toHaveLength(1);
    expect(attempts.at(-1)!.answered).toBe(200);
  }
  // The attempt the crash cut short still counts: 503, held (killed), 503, then the 200.
  const held = receiver.got.filter((r) => r.body.id === first);
  expect(held.map((r) => [r.attempt, r.answered])).toEqual([
    [1, 503],
    [2, 'held'],
    [3, 503],
    [4, 200],
  ]);
  expect(new Set(receiver.got.map((r) => r.delivery)).size).toBe(2);
  const view = await json('GET', `${proc.url}/v1/cases/${first}`);
  expect(view.history.filter((h: any) => h.kind === 'notify_delivered')).toHaveLength(1);
});
