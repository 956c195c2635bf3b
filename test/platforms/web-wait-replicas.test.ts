/**
 * Issue 22, the web chat woken by events across replicas: a page waiting on replica B is answered
 * when replica A posts into its room (PostgreSQL NOTIFY through AdapterContext.signals), and B
 * reads nothing of the room while nothing changes. The wait's own timer is faked and then dropped,
 * so only the change signal can end it.
 */
import { request } from 'undici';
import { afterAll, afterEach, expect, it, vi } from 'vitest';
import { startFastService } from '../../bench/lib/hitl-service.ts';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { openPostgresStore } from '../../src/store/postgres-store.ts';
import { freshSchemaUrl } from '../helpers/postgres.ts';
import { startRelay } from '../helpers/relay-env.ts';
import { countStore } from '../helpers/store-counter.ts';

const service = await startFastService();
afterAll(() => service.stop());
afterEach(() => {
  vi.useRealTimers();
});
const QUIET = { POLL_INTERVAL_MIN_SECONDS: '3600', POLL_INTERVAL_MAX_SECONDS: '7200' };
const turn = () => new Promise<void>((r) => setImmediate(r));

it('PostgreSQL: a card posted by replica A wakes a page waiting on replica B, with no reads while it waits', async () => {
  const url = await freshSchemaUrl();
  const relayA = await startRelay({
    adapters: [createWebAdapter()],
    store: await openPostgresStore(url),
    env: QUIET,
    reconcileEveryMs: 3_600_000,
  });
  const b = countStore(await openPostgresStore(url));
  const relayB = await startRelay({
    adapters: [createWebAdapter()],
    store: b.store,
    env: QUIET,
    reconcileEveryMs: 3_600_000,
  });
  try {
    const rooms = `${relayB.url}/web/api/rooms/wake/messages`;
    const first = await request(rooms);
    expect(await first.body.json()).toEqual([]);
    const etag = String(first.headers.etag);
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    const waiting = request(`${rooms}?wait=30`, { headers: { 'if-none-match': etag } });
    const listening = () =>
      relayB.relay.services.cases.events.listenerCount('change:web:room:wake');
    for (let i = 0; listening() < 1 && i < 10_000; i++) await turn();
    expect(listening()).toBe(1);
    b.reset();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(b.calls.filter((c) => c.key?.startsWith('web:'))).toEqual([]);
    // The wait's timer is gone with the fake clock: only the change signal can answer it now.
    vi.useRealTimers();
    const sent = await relayA.send('web:wake', service.create('wake-b'));
    expect(sent.status).toBe(201);
    const res = await waiting;
    expect(res.statusCode).toBe(200);
    const messages = (await res.body.json()) as Array<{ case: string }>;
    expect(messages.map((m) => m.case)).toEqual([sent.body.id]);
    expect(listening()).toBe(0);
  } finally {
    vi.useRealTimers();
    await relayB.stop();
    await relayA.stop();
  }
});
