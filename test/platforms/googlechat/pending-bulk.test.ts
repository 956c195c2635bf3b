/**
 * Issue 35, bulk decisions in a Google Chat `/pending` list: a real relay and the Google Chat
 * adapter against the fake Chat API, a fast fake HITL service counting submits per case. The
 * private list offers "Approve all (n)" only for cases a bulk decision may take; a click replaces
 * it (UPDATE_MESSAGE) with a confirm step naming each case and those left out with why
 * (four-eyes); Confirm is this person's only and single use, and submits each chosen case once.
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

let service: Awaited<ReturnType<typeof startFastService>>;
let h: GooglechatHarness;
let relay: RelayHandle;
let clock = Date.now();
const submitted: string[] = [];

beforeAll(async () => {
  service = await startFastService();
  service.onSubmit = (id) => submitted.push(id);
  h = await makeGooglechatHarness();
  relay = await startRelay({
    adapters: [h.adapter],
    now: () => clock,
    allow: { [h.target]: [ALLOWED.id] },
    configFile: {
      policies: { pair: { required: 2, approvers: [`googlechat:${ALLOWED.id}`, 'googlechat:x'] } },
      routes: { four: { targets: [h.target], policy: 'pair' } },
    },
  });
  await h.attach?.(relay.url);
  for (const [target, name] of [
    [h.target, 'gc-bulk-1'],
    [h.target, 'gc-bulk-2'],
    ['route:four', 'gc-bulk-four'],
  ] as const) {
    clock += 1000;
    expect((await relay.send(target, service.create(name))).status).toBe(201);
  }
  await eventually(async () => (await h.messages(SPACE)).length >= 3, 10_000, 'the cards');
});
afterAll(async () => {
  await relay?.stop();
  await h?.close();
  await service?.stop();
});

const url = () => `${relay.url}${EVENTS_PATH}`;

async function ask(text: string): Promise<StoredMessage> {
  const event = h.fake.event('MESSAGE', { space: SPACE, user: ALLOWED, text });
  const d = await h.fake.deliver(url(), event);
  expect(d.status).toBe(200);
  return d.made!;
}

async function click(list: StoredMessage, p: string, user: { id: string; name: string }) {
  const event = h.fake.event('CARD_CLICKED', {
    space: SPACE,
    user,
    message: list,
    parameters: { p },
  });
  const d = await h.fake.deliver(url(), event);
  expect(d.status).toBe(200);
  return d;
}

it('PENDING-GC-BULK-1 no bulk button when no listed case may be in a bulk decision', async () => {
  const mine = await ask('/pending mine');
  expect(seen(mine).text).toContain('gc-bulk-four');
  expect(buttonsOf(mine).filter((b: any) => / all \(/.test(String(b.text)))).toEqual([]);
});

it('PENDING-GC-BULK-2 confirm lists the cases and those left out; only its owner, only once', async () => {
  const list = await ask('/pending');
  const all = buttonsOf(list).find((b) => b.text === 'Approve all (2)')!;
  const offer = paramsOf(all).p!;
  expect(offer).toMatch(/^hitlb:/);

  const refused = await click(list, offer, STRANGER);
  expect(refused.answer?.actionResponse?.type).toBe('NEW_MESSAGE');
  expect(seen(refused.made!).text).toBe('This button is no longer active.');

  const step = await click(list, offer, ALLOWED);
  expect(step.answer?.actionResponse?.type).toBe('UPDATE_MESSAGE');
  expect(step.made?.name).toBe(list.name);
  const text = seen(list).text;
  expect(text.split('\n')[0]).toMatch(/^Approve: 2 cases/);
  expect(text).toContain('1. Deploy build gc-bulk-2 to production?');
  expect(text).toContain('2. Deploy build gc-bulk-1 to production?');
  expect(text).toMatch(/Left out:\n• Deploy build gc-bulk-four to production\? — four-eyes/);
  expect(submitted).toEqual([]);
  const [confirm, cancel] = buttonsOf(list);
  expect([confirm!.text, cancel!.text]).toEqual(['Confirm', 'Cancel']);
  const yes = paramsOf(confirm!).p!;

  const theirs = await click(list, yes, STRANGER);
  expect(theirs.made?.body.privateMessageViewer).toEqual({ name: STRANGER.id });
  expect(seen(theirs.made!).text).toContain('used, expired or not yours');
  expect(submitted).toEqual([]);

  await click(list, yes, ALLOWED);
  const results = seen(list).text;
  expect(results).toMatch(/^Approve: the outcome of each of 2 cases/);
  expect(results).toContain('✅ Deploy build gc-bulk-2 to production?');
  expect(results).toContain('✅ Deploy build gc-bulk-1 to production?');
  expect([...submitted].sort()).toEqual(['gc-bulk-1', 'gc-bulk-2']);

  const again = await click(list, yes, ALLOWED);
  expect(seen(again.made!).text).toContain('used, expired or not yours');
  expect(submitted).toHaveLength(2);
});
