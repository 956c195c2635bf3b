/**
 * Issue 35, `/pending`'s "Re-post" on Google Chat against the fake Chat API: a button per item
 * under the private list; its click posts the card again in the space (spaces.messages.create),
 * answered by a new private message; the new card's buttons decide the case and it takes the final
 * edit; the old card is edited to say it moved. Someone who may not decide gets nothing, a second
 * click within 30 s is refused, an ended case is not re-posted.
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
} from './harness.ts';

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
    allow: { [h.target]: [ALLOWED.id] },
  });
  await h.attach?.(relay.url);
});
afterAll(async () => {
  await relay?.stop();
  await h?.close();
  await service?.stop();
});

const url = () => `${relay.url}${EVENTS_PATH}`;
/** The cards in the space (the app's API writes there), oldest first. */
const cards = () =>
  h.fake.messages.filter((m) => m.space === SPACE && m.via === 'api' && !m.deleted);
const shown = (m: StoredMessage) => JSON.stringify(h.fake.message(m.name)!.body);

async function click(message: StoredMessage, p: string, user: { id: string; name: string }) {
  const event = h.fake.event('CARD_CLICKED', { space: SPACE, user, message, parameters: { p } });
  const d = await h.fake.deliver(url(), event);
  expect(d.status).toBe(200);
  return d;
}

it('REPOST-GC-1 Re-post: the new card decides, takes the final edit; the old one says it moved', async () => {
  const id = (await relay.send(h.target, service.create('gc-rp-1'))).body.id as string;
  await eventually(async () => cards().length === 1, 10_000, 'the card');
  const old = cards()[0]!;
  const asked = await h.fake.deliver(
    url(),
    h.fake.event('MESSAGE', { space: SPACE, user: ALLOWED, text: '/pending' }),
  );
  const list = asked.made!;
  const button = buttonsOf(list).find((b) => b.text === 'Re-post 1')!;
  const p = paramsOf(button).p!;
  expect(p).toMatch(/^hitlr:/);
  const press = async (user: { id: string; name: string }) => {
    const d = await click(list, p, user);
    expect(d.answer?.actionResponse?.type).toBe('NEW_MESSAGE');
    expect(d.made?.body.privateMessageViewer).toEqual({ name: user.id });
    return d.made!.body.text as string;
  };

  expect(await press(STRANGER)).toBe('You may not decide this case here; nothing was posted.');
  expect(cards()).toHaveLength(1);

  expect(await press(ALLOWED)).toMatch(/posted again/);
  expect(cards()).toHaveLength(2);
  const fresh = cards()[1]!;
  expect(shown(fresh)).toContain('gc-rp-1');
  expect(shown(old)).toContain('posted again further down');
  expect(buttonsOf(h.fake.message(old.name)!).map((b) => paramsOf(b).p ?? '')).not.toContainEqual(
    expect.stringMatching(/^hitl:/),
  );

  expect(await press(ALLOWED)).toBe('This card was re-posted a moment ago; try again in 30 s.');
  expect(cards()).toHaveLength(2);

  const approve = buttonsOf(h.fake.message(fresh.name)!)
    .map((b) => paramsOf(b).p ?? '')
    .find((v) => v.endsWith(':approve'))!;
  await click(h.fake.message(fresh.name)!, approve, ALLOWED);
  await relay.until(id, (c) => c.final);
  await relay.relay.services.cards.settled(id);
  await eventually(async () => shown(fresh).includes('Approved'), 10_000, 'the final edit');
  expect(shown(old)).not.toContain('Approved');

  clock += 31_000;
  expect(await press(ALLOWED)).toBe('This case has ended (completed); nothing was posted.');
  expect(cards()).toHaveLength(2);
});
