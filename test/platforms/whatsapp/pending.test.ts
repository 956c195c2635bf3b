/**
 * Issue 35, `/pending` on WhatsApp: a real relay and the WhatsApp adapter against the fake Graph
 * API. A chat is one person's, so the list is the answer in that chat, five a page with a "More"
 * reply button that sends the next page (WhatsApp cannot edit a sent message); another person's
 * chat sees nothing of it and cannot use its button; the approval policy leaves out cases that do
 * not name the person, and `mine` lists the ones that do.
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
    configFile: {
      policies: {
        others: { required: 1, approvers: ['whatsapp:4900000000001'] },
        hers: { required: 2, approvers: [`whatsapp:${ALLOWED.id}`, 'whatsapp:4900000000002'] },
      },
      routes: {
        others: { targets: [h.target], policy: 'others' },
        hers: { targets: [h.target], policy: 'hers' },
      },
    },
  });
  await h.attach?.(relay.url);
  for (let i = 1; i <= 6; i++) {
    clock += 1000;
    expect((await relay.send(h.target, service.create(`wa-pend-${i}`))).status).toBe(201);
  }
  clock += 1000;
  expect((await relay.send('route:others', service.create('wa-pend-others'))).status).toBe(201);
  clock += 1000;
  expect((await relay.send('route:hers', service.create('wa-pend-hers'))).status).toBe(201);
  await eventually(
    async () => (await h.messages(h.target.slice('whatsapp:'.length))).length === 8,
    10_000,
    'the cards',
  );
});
afterAll(async () => {
  await relay?.stop();
  await h?.close();
  await service?.stop();
});

/** A webhook with one message from `who`; resolves with what the relay sent to them after it. */
async function say(
  who: { id: string; name: string },
  item: { text: string } | { reply: string; contextId: string },
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
          via: 'button',
        },
  ]);
  expect((await h.fake.deliver(`${relay.url}${WEBHOOK_PATH}`, body)).status).toBe(200);
  return eventually(
    async () => h.fake.sent.slice(before).find((m) => m.to === who.id),
    10_000,
    'the answer',
  );
}

it('PENDING-WA-1 the list in the chat, newest first, and a More button sending the next page', async () => {
  const first = await say(ALLOWED, { text: '/pending' });
  const text = shownText(first);
  expect(text.split('\n')[0]).toBe('Waiting for a decision here (5+), newest first:');
  expect(text).toContain('1. Deploy build wa-pend-hers to production?');
  expect(text).toContain('2. Deploy build wa-pend-6 to production?');
  expect(text).toContain('5. Deploy build wa-pend-3 to production?');
  // The policy that does not name Ann leaves its case out of her list.
  expect(text).not.toContain('wa-pend-others');
  const [more] = replyIds(first);
  expect(more?.id).toMatch(/^hitlp:/);

  // Mallory, in her own chat, replies with Ann's button id: nothing of Ann's list.
  const refused = await say(STRANGER, { reply: more!.id, contextId: first.id });
  expect(shownText(refused)).toBe('This button is no longer active.');

  const second = await say(ALLOWED, { reply: more!.id, contextId: first.id });
  expect(shownText(second)).toContain('1. Deploy build wa-pend-2');
  expect(shownText(second)).toContain('2. Deploy build wa-pend-1');
  expect(shownText(second)).not.toContain('wa-pend-3');
  // The last page has no More button (its bulk buttons are PENDING-WA-BULK's); its items' Re-post.
  expect(replyIds(second).filter((r) => r.id.startsWith('hitlp:'))).toEqual([]);
  expect(replyIds(second).filter((r) => r.id.startsWith('hitlr:'))).toHaveLength(2);
});

it('PENDING-WA-2 privacy: another person sees nothing; mine lists what names her', async () => {
  expect(shownText(await say(STRANGER, { text: '/pending' }))).toBe(
    'Nothing is waiting for you here.',
  );
  const mine = shownText(await say(ALLOWED, { text: '/pending mine' }));
  expect(mine).toContain('1. Deploy build wa-pend-hers');
  expect(mine).toContain('0 of 2 approvals');
  expect(mine).not.toContain('wa-pend-6');
});
