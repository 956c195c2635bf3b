/**
 * Issue 35, `/pending`'s "Re-post" on WhatsApp against the fake Graph API: the page is a list
 * message with a Re-post row per item; a pick sends the card again at the bottom of the chat,
 * answered by a text; the new card's buttons decide the case and the outcome replies to it
 * (WhatsApp cannot edit or delete the old card: nothing more is sent for it). Someone who may not
 * decide gets nothing, a second pick within 30 s is refused, an ended case is not re-posted.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startFastService } from '../../../bench/lib/hitl-service.ts';
import { eventually, type RelayHandle, startRelay } from '../../helpers/relay-env.ts';
import {
  ALLOWED,
  makeWhatsAppHarness,
  replyIds,
  STRANGER,
  shownText,
  WEBHOOK_PATH,
  type WhatsAppHarness,
} from './harness.ts';

let service: Awaited<ReturnType<typeof startFastService>>;
let h: WhatsAppHarness;
let relay: RelayHandle;
let clock = Date.now();

beforeAll(async () => {
  service = await startFastService();
  h = await makeWhatsAppHarness();
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

/** A webhook with one message from `who`; resolves with what the relay sent to them after it. */
async function say(
  who: { id: string; name: string },
  item: { text: string } | { reply: string; contextId: string; via: 'button' | 'list' },
  kind?: 'text',
) {
  const before = h.fake.sent.length;
  const body = h.fake.webhookBody([
    'text' in item
      ? { kind: 'text', from: who.id, name: who.name, text: item.text }
      : {
          kind: 'reply',
          from: who.id,
          name: who.name,
          contextId: item.contextId,
          id: item.reply,
          via: item.via,
        },
  ]);
  expect((await h.fake.deliver(`${relay.url}${WEBHOOK_PATH}`, body)).status).toBe(200);
  return eventually(
    async () =>
      h.fake.sent.slice(before).find((m) => m.to === who.id && (!kind || m.body.type === kind)),
    10_000,
    'the answer',
  );
}

/** The cards sent to `who` (not the `/pending` list, which names the case too). */
const cardsTo = (who: string) =>
  h.fake.sent.filter(
    (m) =>
      m.to === who &&
      shownText(m).includes('wa-rp-1') &&
      !shownText(m).startsWith('Waiting for a decision'),
  );

it('REPOST-WA-1 Re-post: the new card decides and gets the outcome; the old one is left as it was', async () => {
  const id = (await relay.send(h.target, service.create('wa-rp-1'))).body.id as string;
  await eventually(async () => cardsTo(ALLOWED.id).length === 1, 10_000, 'the card');
  const old = cardsTo(ALLOWED.id)[0]!;
  const list = await say(ALLOWED, { text: '/pending' });
  expect(list.body.interactive.type).toBe('list');
  expect(list.body.interactive.action.button).toBe('Options');
  const row = replyIds(list).find((r) => r.id.startsWith('hitlr:'));
  expect(row?.id).toMatch(/^hitlr:/);
  const pick = async (who: typeof ALLOWED) =>
    shownText(await say(who, { reply: row!.id, contextId: list.id, via: 'list' }, 'text'));

  expect(await pick(STRANGER)).toBe('You may not decide this case here; nothing was posted.');
  expect(cardsTo(ALLOWED.id)).toHaveLength(1);

  const sentBefore = h.fake.sent.length;
  expect(await pick(ALLOWED)).toMatch(/posted again/);
  await eventually(async () => cardsTo(ALLOWED.id).length === 2, 10_000, 'the new card');
  const fresh = cardsTo(ALLOWED.id)[1]!;
  // The new card, and the answer: nothing else (the old card cannot be edited on WhatsApp).
  expect(h.fake.sent.length - sentBefore).toBe(2);

  expect(await pick(ALLOWED)).toBe('This card was re-posted a moment ago; try again in 30 s.');
  expect(cardsTo(ALLOWED.id)).toHaveLength(2);

  const approve = replyIds(fresh).find((r) => r.id.endsWith(':approve'))!;
  await say(ALLOWED, { reply: approve.id, contextId: fresh.id, via: approve.via as 'button' });
  await relay.until(id, (c) => c.final);
  await relay.relay.services.cards.settled(id);
  const outcome = await eventually(
    async () =>
      h.fake.sent.find(
        (m) =>
          m.body.context?.message_id === fresh.id &&
          m.to === ALLOWED.id &&
          /Approved/.test(shownText(m)),
      ),
    10_000,
    'the outcome reply to the new card',
  );
  expect(outcome).toBeTruthy();
  expect(h.fake.sent.some((m) => m.body.context?.message_id === old.id)).toBe(false);

  clock += 31_000;
  expect(await pick(ALLOWED)).toBe('This case has ended (completed); nothing was posted.');
  expect(cardsTo(ALLOWED.id)).toHaveLength(2);
});
