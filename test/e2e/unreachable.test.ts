/** A service that goes away: past expires_at the card still ends, saying it expired, with no buttons. */
import { request } from 'undici';
import { afterAll, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { eventually, type RelayHandle, startDemo, startRelay } from '../helpers/relay-env.ts';

let relay: RelayHandle | undefined;
afterAll(async () => relay?.stop());

it('expires the card locally when the service is unreachable past expires_at', async () => {
  const demo = await startDemo();
  relay = await startRelay({ adapters: [createWebAdapter()], watcher: { expiryGraceMs: 200 } });
  const response = await demo.create('approval', true, { expires_in_seconds: 1 });
  const sent = await relay.send('web:gone', response);
  expect(sent.status).toBe(201);
  await demo.stop();
  const c = await relay.until(sent.body.id, (x) => x.status === 'expired', 15_000);
  expect(c.history.some((h: any) => h.kind === 'status' && h.source === 'local_expiry')).toBe(true);
  const card = await eventually(async () => {
    const res = await request(`${relay!.url}/web/api/rooms/gone/messages`);
    const [m] = (await res.body.json()) as any[];
    return m?.final ? m : null;
  });
  expect(card.actions).toEqual([]);
  expect(card.status).toMatch(/^Expired at/);
});
