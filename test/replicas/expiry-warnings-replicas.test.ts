/**
 * Issue 35, expiry warnings across replicas: two relays on one PostgreSQL schema, one clock moved
 * on by the test, both watching. Besides their watchers, each replica is also made to send the due
 * warning at once from the same (stale) copy of the case: the compare-and-set record lets exactly
 * one through, so every target gets each threshold once and the history says it once.
 */
import { request } from 'undici';
import { afterAll, expect, it } from 'vitest';
import { startFastService } from '../../bench/lib/hitl-service.ts';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { openPostgresStore } from '../../src/store/postgres-store.ts';
import { ExpiryWarnings } from '../../src/watch/expiry-warnings.ts';
import { freshSchemaUrl } from '../helpers/postgres.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';

const service = await startFastService();
afterAll(() => service.stop());
const MIN = 60_000;

it('PostgreSQL: two replicas, one warning per threshold per target, whoever looks and however often', async () => {
  const url = await freshSchemaUrl();
  let ahead = 0;
  const replica = async () =>
    startRelay({
      adapters: [createWebAdapter()],
      store: await openPostgresStore(url),
      now: () => Date.now() + ahead,
      configFile: {
        routes: { pair: { targets: ['web:rep-a', 'web:rep-b'], expiry_warning: '2h,30m' } },
      },
    });
  const relays: RelayHandle[] = [await replica(), await replica()];
  try {
    const [a, b] = relays as [RelayHandle, RelayHandle];
    const body = service.create('rep-1');
    const expires = Date.parse((body.hitl as any).expires_at);
    const sent = await a.send('route:pair', body);
    expect(sent.status).toBe(201);
    const id = sent.body.id as string;
    const stale = (await a.relay.services.store.getCase(id))!;
    const senders = relays.map((r) => new ExpiryWarnings(r.relay.services));
    const notices = async (room: string) => {
      const res = await request(`${b.url}/web/api/rooms/${room}/messages`);
      return ((await res.body.json()) as any[]).filter((m) => m.case === null);
    };
    const rows = async () =>
      ((await a.get(id)).history as any[]).filter((h) => h.kind === 'expiry_warning');
    const polls = (n: number) =>
      new Promise<void>((resolve) => {
        let seen = 0;
        service.onPoll = (caseId) => {
          if (caseId === 'rep-1' && ++seen >= n) {
            service.onPoll = null;
            resolve();
          }
        };
      });

    for (const [threshold, left] of [
      [7200, 119 * MIN],
      [1800, 29 * MIN],
    ] as const) {
      ahead = expires - Date.now() - left;
      // Both replicas at once, from the same copy, while both watchers look too.
      const results = await Promise.all(senders.map((s) => s.sendDue(stale)));
      expect(results.filter(Boolean).length).toBeLessThanOrEqual(1);
      await eventually(async () => (await rows()).length === (threshold === 7200 ? 1 : 2));
      // Several more looks by whichever replica holds the lease: nothing more is sent.
      await polls(4);
      await Promise.all(senders.map((s) => s.sendDue(stale)));
      const expected = threshold === 7200 ? 1 : 2;
      expect(await notices('rep-a')).toHaveLength(expected);
      expect(await notices('rep-b')).toHaveLength(expected);
      expect((await rows()).map((h) => h.before_s)).toEqual([[7200], [1800]].slice(0, expected));
    }
    const view = await b.get(id);
    expect(view.expiry_warning.sent.map((s: any) => s.before_seconds)).toEqual([7200, 1800]);
  } finally {
    for (const r of relays) await r.stop();
  }
});
