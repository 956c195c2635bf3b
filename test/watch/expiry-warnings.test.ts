/**
 * Issue 35, "nothing expires unnoticed": warnings before expiry under the relay's own clock, moved
 * on by the test. Exactly one warning per threshold per target, in each card's thread, recorded in
 * the history, told to the agent (notify `expiring:<seconds>`, /wait?wake=expiring) and in the case view;
 * none after the case ends. A real relay with the web chat, the fast fake HITL service over HTTP.
 */
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFastService } from '../../bench/lib/hitl-service.ts';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';
import { startReceiver } from '../notify/receiver.ts';

const SECRET = 'notify-secret-for-expiry-warnings-0123';
const HOUR = 3600_000;
const MIN = 60_000;
let service: Awaited<ReturnType<typeof startFastService>>;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let relay: RelayHandle;
/** How far the relay's clock is ahead of real time. */
let ahead = 0;

beforeAll(async () => {
  service = await startFastService();
  receiver = await startReceiver({ secret: SECRET, failFirst: 0 });
  relay = await startRelay({
    adapters: [createWebAdapter()],
    now: () => Date.now() + ahead,
    env: { RELAY_NOTIFY_SECRET: SECRET, EXPIRY_WARNING: '1h' },
    configFile: {
      routes: {
        team: { targets: ['web:exp-a', 'web:exp-b'], expiry_warning: ['2h', '30m', '5m'] },
        quiet: { targets: ['web:exp-quiet'], expiry_warning: '0' },
      },
    },
  });
});
afterAll(async () => {
  await relay?.stop();
  await service?.stop();
  await receiver?.close();
});

const room = async (name: string): Promise<any[]> => {
  const res = await request(`${relay.url}/web/api/rooms/${name}/messages`);
  return (await res.body.json()) as any[];
};
const notices = async (name: string) => (await room(name)).filter((m) => m.case === null);
const historyRows = async (id: string) =>
  ((await relay.get(id)).history as any[]).filter((h) => h.kind === 'expiry_warning');
/** Resolves after `n` more polls of `caseId` reach the service (each look ends with the hooks). */
const polls = (caseId: string, n: number) =>
  new Promise<void>((resolve) => {
    let seen = 0;
    service.onPoll = (id) => {
      if (id === caseId && ++seen >= n) {
        service.onPoll = null;
        resolve();
      }
    };
  });

it('EXPIRY-1 one warning per threshold per target, in the thread, in history, notify and /wait; none after the end', async () => {
  const body = service.create('exp-1');
  const expires = Date.parse((body.hitl as any).expires_at);
  const sent = await relay.send('route:team', body, { notify_url: receiver.url });
  expect(sent.status).toBe(201);
  const id = sent.body.id as string;
  expect(sent.body.expiry_warning).toEqual({
    before_seconds: [7200, 1800, 300],
    sent: [],
    last_at: null,
    next_at: new Date(expires - 2 * HOUR).toISOString(),
  });
  const [cardA] = (await room('exp-a')).filter((m) => m.case === id);
  const [cardB] = (await room('exp-b')).filter((m) => m.case === id);

  // The agent waits for the end or a warning; the clock moves into the 2 h threshold.
  const waiting = request(`${relay.url}/v1/cases/${id}/wait?timeout=60&wake=expiring`);
  ahead = expires - Date.now() - 2 * HOUR + MIN;
  const woken = (await (await waiting).body.json()) as any;
  expect(woken.final).toBe(false);
  expect(woken.expiry_warning.sent.map((s: any) => s.before_seconds)).toEqual([7200]);
  expect(woken.expiry_warning.last_at).toBe(woken.expiry_warning.sent[0].at);
  expect(woken.expiry_warning.next_at).toBe(new Date(expires - 30 * MIN).toISOString());

  const first = await eventually(
    async () =>
      (await notices('exp-a')).length && (await notices('exp-b')).length
        ? [await notices('exp-a'), await notices('exp-b')]
        : null,
    10_000,
    'the first warning on both cards',
  );
  expect(first[0]![0].reply_to).toBe(cardA.id);
  expect(first[1]![0].reply_to).toBe(cardB.id);
  expect(first[0]![0].text).toMatch(
    /^Expires in 1 h 59 min \(.* UTC\): a decision is still needed: Deploy build exp-1/,
  );
  expect(first[0]![0].link).toEqual(cardA.link);

  // Three more looks at the case within the same threshold: still one warning each.
  await polls('exp-1', 3);
  expect(await notices('exp-a')).toHaveLength(1);
  expect(await notices('exp-b')).toHaveLength(1);
  expect(await historyRows(id)).toHaveLength(1);

  // The 30 min threshold: a second warning on each card.
  ahead = expires - Date.now() - 25 * MIN;
  await eventually(
    async () => (await notices('exp-a')).length === 2 && (await notices('exp-b')).length === 2,
    10_000,
    'the second warning',
  );
  expect((await notices('exp-b'))[1].text).toMatch(/^Expires in 25 min /);
  const rows = await historyRows(id);
  expect(rows.map((h) => h.before_s)).toEqual([[7200], [1800]]);
  expect(rows[1].targets).toEqual(['web:exp-a', 'web:exp-b']);

  // Decided; then the clock passes the 5 min threshold. A marker case proves the relay got there.
  const tap = await request(
    `${relay.url}/web/api/rooms/exp-a/messages/${cardA.id}/actions/approve`,
    {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ user: { id: 'ann', name: 'Ann' } }),
    },
  );
  expect(((await tap.body.json()) as any).outcome).toBe('submitted');
  await relay.until(id, (c) => c.final);
  const marker = await relay.send('web:exp-marker', service.create('exp-marker'), {
    expiry_warning: '5m',
  });
  expect(marker.status).toBe(201);
  ahead = expires - Date.now() - 4 * MIN + 5_000;
  await eventually(async () => (await notices('exp-marker')).length === 1, 10_000, 'the marker');
  expect(await notices('exp-a')).toHaveLength(2);
  expect(await notices('exp-b')).toHaveLength(2);
  expect(await historyRows(id)).toHaveLength(2);
  const view = await relay.get(id);
  expect(view.expiry_warning.sent).toHaveLength(2);
  expect(view.expiry_warning.next_at).toBeNull();

  // The agent heard of each warning once, before the end (signatures carry the relay's moved clock,
  // so the receiver's freshness check is not the point here: test/notify covers signing).
  const events = await eventually(async () => {
    const mine = receiver.delivered().filter((r) => r.body.id === id);
    return mine.some((r) => r.event === 'completed') ? mine.map((r) => r.event) : null;
  });
  expect(events).toEqual(['expiring:7200', 'expiring:1800', 'completed']);
});

it('EXPIRY-2 thresholds: the case over the route over EXPIRY_WARNING; "0" and passed ones give none', async () => {
  ahead = 0;
  const direct = await relay.send('web:exp-direct', service.create('exp-2a'));
  expect(direct.body.expiry_warning.before_seconds).toEqual([3600]);
  const quiet = await relay.send('route:quiet', service.create('exp-2b'));
  expect(quiet.body.expiry_warning).toBeNull();
  // 25 h, 1 h 30 min and 90 s before a 24 h expiry: the first has passed on arrival.
  const own = await relay.send('route:quiet', service.create('exp-2c'), {
    expiry_warning: '90s, 25h ,1h30m',
  });
  expect(own.body.expiry_warning.before_seconds).toEqual([5400, 90]);
  const bad = await relay.send('web:exp-direct', service.create('exp-2d'), {
    expiry_warning: 'soon',
  });
  expect(bad.status).toBe(400);
  expect(JSON.stringify(bad.body)).toContain('expiry_warning');
  const wait = await request(`${relay.url}/v1/cases/${direct.body.id}/wait?wake=later`);
  expect(wait.statusCode).toBe(400);
  expect(((await wait.body.json()) as any).details[0].path).toBe('wake');
});
