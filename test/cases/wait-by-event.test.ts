/**
 * Issue 22, waiting by event: open /wait requests read nothing while their case does not change
 * (they used to re-read it every second), wake at once on a change in this process (the change
 * carries the case: no read), and wake on a change another replica wrote (PostgreSQL
 * LISTEN/NOTIFY). Timers are fake while waiting, so a wait that relied on a periodic re-read
 * would never wake here.
 */
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, afterEach, expect, it, vi } from 'vitest';
import { startFastService } from '../../bench/lib/hitl-service.ts';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { openPostgresStore } from '../../src/store/postgres-store.ts';
import { openSqliteStore } from '../../src/store/sqlite-store.ts';
import { freshSchemaUrl } from '../helpers/postgres.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';
import { countStore } from '../helpers/store-counter.ts';
import { tempDirs } from '../helpers/temp.ts';
import { cardOf, tapWeb } from '../reliability/web.ts';

const temp = tempDirs();

const service = await startFastService();
afterAll(() => service.stop());
afterEach(() => {
  vi.useRealTimers();
});
// No poll falls due while a test runs: every change below is one the test makes.
const QUIET = { POLL_INTERVAL_MIN_SECONDS: '3600', POLL_INTERVAL_MAX_SECONDS: '7200' };

/** Lets pending I/O callbacks and promise jobs run (setImmediate is not faked). */
const turn = () => new Promise<void>((r) => setImmediate(r));

async function waitHttp(relay: RelayHandle, id: string) {
  const res = await request(`${relay.url}/v1/cases/${id}/wait?timeout=60`);
  return (await res.body.json()) as { status: string };
}

it('1,000 open waits (and 20 over HTTP) cost no store reads while nothing changes, and none to wake on a change here', async () => {
  const counted = countStore(openSqliteStore(join(temp.make('hitl-relay-wait-'), 'store.sqlite')));
  const relay = await startRelay({
    adapters: [createWebAdapter()],
    store: counted.store,
    env: QUIET,
    reconcileEveryMs: 3_600_000,
  });
  // Each /wait listens for the relay's shutdown: 11 and more must not look like a leak to Node.
  const warnings: string[] = [];
  const onWarning = (w: Error) => warnings.push(`${w.name}: ${w.message}`);
  process.on('warning', onWarning);
  try {
    const sent = await relay.send('web:waits', service.create('wait-here'));
    const id = sent.body.id as string;
    const card = await eventually(() => cardOf(relay.url, 'waits', id), 5000, 'the card');
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    const waits = Array.from({ length: 1000 }, () =>
      relay.relay.services.cases.waitFor(id, 60_000),
    );
    const overHttp = Array.from({ length: 20 }, () => waitHttp(relay, id));
    const listening = () => relay.relay.services.cases.events.listenerCount(`change:${id}`);
    for (let i = 0; listening() < 1020 && i < 10_000; i++) await turn();
    expect(listening()).toBe(1020);

    counted.reset();
    // Ten seconds of nothing (the old wait re-read its case every second: 10,200 reads).
    await vi.advanceTimersByTimeAsync(10_000);
    expect(counted.summary().calls).toBe(0);

    // A tap completes the case: every wait wakes with the case the change wrote, read by none.
    const tap = await tapWeb(relay.url, 'waits', card.id, 'approve');
    expect(tap.body.outcome).toBe('submitted');
    const done = await Promise.all(waits);
    expect(done.every((c) => c?.status === 'completed')).toBe(true);
    expect((await Promise.all(overHttp)).map((v) => v.status)).toEqual(Array(20).fill('completed'));
    const reads = counted.calls.filter((c) => c.method === 'getCase');
    expect(reads).toHaveLength(0);
    expect(listening()).toBe(0);
    expect(warnings.filter((w) => w.startsWith('MaxListenersExceededWarning'))).toEqual([]);
  } finally {
    process.off('warning', onWarning);
    vi.useRealTimers();
    await relay.stop();
  }
});

it('PostgreSQL: a change written by replica B wakes a /wait on replica A (LISTEN/NOTIFY), with no reads before it', async () => {
  const url = await freshSchemaUrl();
  const a = countStore(await openPostgresStore(url));
  const relayA = await startRelay({
    adapters: [createWebAdapter()],
    store: a.store,
    env: QUIET,
    reconcileEveryMs: 3_600_000,
  });
  const relayB = await startRelay({
    adapters: [createWebAdapter()],
    store: await openPostgresStore(url),
    env: QUIET,
    reconcileEveryMs: 3_600_000,
  });
  try {
    const sent = await relayA.send('web:replicas', service.create('wait-there'));
    const id = sent.body.id as string;
    const card = await eventually(() => cardOf(relayB.url, 'replicas', id), 5000, 'the card');
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    const waiting = waitHttp(relayA, id);
    const listening = () => relayA.relay.services.cases.events.listenerCount(`change:${id}`);
    for (let i = 0; listening() < 1 && i < 10_000; i++) await turn();
    a.reset();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(a.summary().calls).toBe(0);
    // The tap lands on B; A hears of it through the database, reads the case once and answers.
    const tap = await tapWeb(relayB.url, 'replicas', card.id, 'approve');
    expect(tap.body.outcome).toBe('submitted');
    expect((await waiting).status).toBe('completed');
    expect(a.calls.filter((c) => c.method === 'getCase').length).toBeGreaterThanOrEqual(1);
  } finally {
    vi.useRealTimers();
    await relayB.stop();
    await relayA.stop();
  }
});
