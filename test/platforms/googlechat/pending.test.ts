/**
 * Issue 35, `/pending` on Google Chat: a real relay and the Google Chat adapter against the fake
 * Chat API. The list is a private message (privateMessageViewer: only the asker sees it), five a
 * page with a "More" button that replaces it (UPDATE_MESSAGE) and only its owner can use; someone
 * the allowlist leaves out sees nothing of the cases; `mine` lists what names the person.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFastService } from '../../../bench/lib/hitl-service.ts';
import type { StoredMessage } from '../../fakes/googlechat-api.ts';
import { eventually, type RelayHandle, startRelay } from '../../helpers/relay-env.ts';
import {
  ALLOWED,
  buttonsOf,
  EVENTS_PATH,
  type GooglechatHarness,
  makeGooglechatHarness,
  paramsOf,
  SPACE,
  STRANGER,
  seen,
} from './harness.ts';

const CAROL = { id: 'users/104857600000000000003', name: 'Carol' };
let service: Awaited<ReturnType<typeof startFastService>>;
let h: GooglechatHarness;
let relay: RelayHandle;
let clock = Date.now();

beforeAll(async () => {
  service = await startFastService();
  h = await makeGooglechatHarness();
  relay = await startRelay({
    adapters: [h.adapter],
    now: () => clock,
    allow: { [h.target]: [ALLOWED.id, CAROL.id] },
    configFile: {
      policies: { pair: { required: 2, approvers: [`googlechat:${CAROL.id}`, 'googlechat:x'] } },
      routes: { four: { targets: [h.target], policy: 'pair' } },
    },
  });
  await h.attach?.(relay.url);
  for (let i = 1; i <= 6; i++) {
    clock += 1000;
    expect((await relay.send(h.target, service.create(`gc-pend-${i}`))).status).toBe(201);
  }
  clock += 1000;
  expect((await relay.send('route:four', service.create('gc-pend-policy'))).status).toBe(201);
  await eventually(async () => (await h.messages(SPACE)).length >= 7, 10_000, 'the cards');
});
afterAll(async () => {
  await relay?.stop();
  await h?.close();
  await service?.stop();
});

const url = () => `${relay.url}${EVENTS_PATH}`;

async function ask(user: { id: string; name: string }, text: string): Promise<StoredMessage> {
  const d = await h.fake.deliver(url(), h.fake.event('MESSAGE', { space: SPACE, user, text }));
  expect(d.status).toBe(200);
  return d.made!;
}

async function more(list: StoredMessage, user: { id: string; name: string }) {
  const [button] = buttonsOf(list);
  const event = h.fake.event('CARD_CLICKED', {
    space: SPACE,
    user,
    message: list,
    parameters: paramsOf(button!),
  });
  const d = await h.fake.deliver(url(), event);
  expect(d.status).toBe(200);
  return d;
}

it('PENDING-GC-1 a private list, newest first, and a More button replacing it for its owner only', async () => {
  const list = await ask(ALLOWED, '/pending');
  expect(list.body.privateMessageViewer).toEqual({ name: ALLOWED.id });
  const text = seen(list).text;
  expect(text.split('\n')[0]).toBe('Waiting for a decision here (5+), newest first:');
  expect(text).toContain('1. Deploy build gc-pend-6 to production?');
  expect(text).toContain('5. Deploy build gc-pend-2 to production?');
  expect(text).not.toContain('gc-pend-1 ');
  expect(text).not.toContain('gc-pend-policy');
  expect(paramsOf(buttonsOf(list)[0]!).p).toMatch(/^hitlp:/);

  const refused = await more(list, STRANGER);
  expect(refused.answer?.actionResponse?.type).toBe('NEW_MESSAGE');
  expect(refused.made?.body.privateMessageViewer).toEqual({ name: STRANGER.id });
  expect(seen(refused.made!).text).toBe('This button is no longer active.');
  expect(seen(list).text).toContain('gc-pend-6');

  const second = await more(list, ALLOWED);
  expect(second.answer?.actionResponse?.type).toBe('UPDATE_MESSAGE');
  expect(second.made?.name).toBe(list.name);
  expect(seen(list).text).toContain('1. Deploy build gc-pend-1');
  expect(seen(list).text).not.toContain('gc-pend-2');
  // The last page has no More button (its bulk buttons are PENDING-GC-BULK's); its item's Re-post.
  expect(buttonsOf(list).filter((b) => paramsOf(b).p?.startsWith('hitlp:'))).toEqual([]);
  const labels = buttonsOf(list).map((b: any) => String(b.text));
  expect(labels.filter((t) => t.startsWith('Re-post'))).toEqual(['Re-post 1']);
});

it('PENDING-GC-2 privacy: not on the allowlist sees nothing; mine lists the policy case for its approver', async () => {
  const none = await ask(STRANGER, '/pending');
  expect(none.body.privateMessageViewer).toEqual({ name: STRANGER.id });
  expect(seen(none).text).toBe('Nothing is waiting for you here.');
  const mine = await ask(CAROL, '/pending mine');
  expect(mine.body.privateMessageViewer).toEqual({ name: CAROL.id });
  expect(seen(mine).text).toContain('1. Deploy build gc-pend-policy');
  expect(seen(mine).text).toContain('0 of 2 approvals');
  expect(seen(mine).text).not.toContain('gc-pend-6');
});
