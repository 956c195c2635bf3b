/**
 * Finding 10 (smaller): a tap on a superseded ("Revised") card was still submitted. A case whose
 * next round arrived shows no buttons, and a tap from an old render is refused before any POST.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';
import { type HostileService, startHostileService } from './hostile-service.ts';
import { cardOf, tapWeb } from './web.ts';

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

it('finding 10 (tap on a superseded card): refused, nothing submitted', async () => {
  const round1 = svc.body202();
  const first = await relay.send('web:revised', round1);
  const card = await eventually(() => cardOf(relay.url, 'revised', first.body.id), 5000, 'card');
  const round2 = svc.body202({ previous_case_id: round1.hitl.case_id });
  const second = await relay.send('web:revised', round2);
  expect(second.body.previous_id).toBe(first.body.id);
  await eventually(async () => (await relay.get(first.body.id)).next_id, 5000, 'the link');
  const tap = await tapWeb(relay.url, 'revised', card.id, 'approve');
  expect(tap.body.outcome).toBe('closed');
  expect(
    svc.requests.filter((r) => r.method === 'POST' && r.path.includes(round1.hitl.case_id)),
  ).toEqual([]);
  const view = await relay.get(first.body.id);
  expect(view.history.map((h: any) => h.reason).filter(Boolean)).toContain('the case was revised');
});
