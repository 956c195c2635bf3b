/**
 * Finding 10 (smaller): a case already past its expires_at on arrival was posted with live
 * buttons. It is now stored and posted as expired, without buttons, and not polled.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';
import { type HostileService, startHostileService } from './hostile-service.ts';
import { cardOf } from './web.ts';

let relay: RelayHandle;
let svc: HostileService;
beforeAll(async () => {
  svc = await startHostileService();
  relay = await startRelay({ adapters: [createWebAdapter()] });
});
afterAll(async () => {
  await relay?.stop();
  await svc?.close();
});

it('finding 10 (expired on arrival): posted as expired, without buttons, never polled', async () => {
  const body = svc.body202({
    created_at: new Date(Date.now() - 7_200_000).toISOString(),
    expires_at: new Date(Date.now() - 60_000).toISOString(),
  });
  const sent = await relay.send('web:late', body);
  expect(sent.status).toBe(201);
  expect(sent.body.status).toBe('expired');
  const card = await eventually(() => cardOf(relay.url, 'late', sent.body.id), 5000, 'the card');
  expect(card.final).toBe(true);
  expect(card.actions).toEqual([]);
  expect(svc.requests.filter((r) => r.path.includes(body.hitl.case_id))).toEqual([]);
});
