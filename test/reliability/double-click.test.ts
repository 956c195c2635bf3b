/**
 * Finding 4 (a double-click skips the confirm step): two taps within milliseconds on an
 * irreversible action completed it, and the person never saw "cannot be undone". Now the
 * confirming tap counts only once the warning has been shown for CONFIRM_MIN_MS.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { CONFIRM_MIN_MS } from '../../src/tap/confirm-irreversible.ts';
import {
  type DemoHandle,
  eventually,
  type RelayHandle,
  startDemo,
  startRelay,
} from '../helpers/relay-env.ts';
import { cardOf, tapWeb } from './web.ts';

let demo: DemoHandle;
let relay: RelayHandle;
beforeAll(async () => {
  demo = await startDemo();
  relay = await startRelay({ adapters: [createWebAdapter()] });
});
afterAll(async () => {
  await relay?.stop();
  await demo?.stop();
});

async function confirmationCase(room: string) {
  const response = await demo.create('confirmation', true);
  const sent = await relay.send(`web:${room}`, response);
  const card = await eventually(() => cardOf(relay.url, room, sent.body.id), 5000, 'the card');
  const submissions = async () =>
    (await demo.submissions()).filter((s) => s.case_id === response.hitl.case_id).length;
  return { id: sent.body.id as string, card, submissions };
}

it('finding 4 (double-click skips the confirm): two simultaneous taps are one tap, nothing is submitted', async () => {
  const c = await confirmationCase('double-parallel');
  const [a, b] = await Promise.all([
    tapWeb(relay.url, 'double-parallel', c.card.id, 'confirm'),
    tapWeb(relay.url, 'double-parallel', c.card.id, 'confirm'),
  ]);
  expect([a.body.outcome, b.body.outcome]).toEqual(['confirm_required', 'confirm_required']);
  expect(a.body.text).toMatch(/cannot be undone/);
  expect(await c.submissions()).toBe(0);
  expect((await relay.get(c.id)).status).toBe('pending');
});

it('finding 4 (double-click skips the confirm): a second tap right after the warning does not confirm; one after the interval does', async () => {
  const c = await confirmationCase('double-serial');
  const first = await tapWeb(relay.url, 'double-serial', c.card.id, 'confirm');
  expect(first.body.outcome).toBe('confirm_required');
  const quick = await tapWeb(relay.url, 'double-serial', c.card.id, 'confirm');
  expect(quick.body.outcome).toBe('confirm_required');
  expect(await c.submissions()).toBe(0);
  const view = await relay.get(c.id);
  expect(view.history.map((h: any) => h.reason ?? h.kind)).toContain('confirmed too soon');
  // The person read the warning and taps again.
  await new Promise((r) => setTimeout(r, CONFIRM_MIN_MS));
  const confirmed = await tapWeb(relay.url, 'double-serial', c.card.id, 'confirm');
  expect(confirmed.body.outcome).toBe('submitted');
  expect(await c.submissions()).toBe(1);
});
