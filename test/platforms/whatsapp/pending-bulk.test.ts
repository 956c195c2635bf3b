/**
 * Issue 35, bulk decisions in a WhatsApp `/pending` list: a real relay and the WhatsApp adapter
 * against the fake Graph API, a fast fake HITL service counting submits per case. The list (the
 * person's own chat) offers "Approve all (n)" reply buttons only for cases a bulk decision may
 * take; a reply answers with a confirm step naming each case and those left out with why
 * (four-eyes); Confirm is this person's only and single use, and submits each chosen case once.
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
const submitted: string[] = [];

beforeAll(async () => {
  service = await startFastService();
  service.onSubmit = (id) => submitted.push(id);
  h = await makeWhatsAppHarness();
  relay = await startRelay({
    adapters: [h.adapter],
    now: () => clock,
    allow: { [h.target]: [ALLOWED.id] },
    configFile: {
      policies: {
        pair: { required: 2, approvers: [`whatsapp:${ALLOWED.id}`, 'whatsapp:4900000000002'] },
      },
      routes: { four: { targets: [h.target], policy: 'pair' } },
    },
  });
  await h.attach?.(relay.url);
  for (const [target, name] of [
    [h.target, 'wa-bulk-1'],
    [h.target, 'wa-bulk-2'],
    ['route:four', 'wa-bulk-four'],
  ] as const) {
    clock += 1000;
    expect((await relay.send(target, service.create(name))).status).toBe(201);
  }
  await eventually(
    async () => (await h.messages(h.target.slice('whatsapp:'.length))).length === 3,
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

// A reply button (the confirm step) or a row of the list message (the page, beside Re-post).
const titled = (m: any, title: string) => {
  const action = m.body.interactive?.action ?? {};
  const rows = [
    ...(action.buttons ?? []).map((b: any) => b.reply),
    ...(action.sections ?? []).flatMap((s: any) => s.rows),
  ];
  return rows.find((r: any) => r.title === title)?.id as string;
};

it('PENDING-WA-BULK-1 no bulk button when no listed case may be in a bulk decision', async () => {
  const mine = await say(ALLOWED, { text: '/pending mine' });
  expect(shownText(mine)).toContain('wa-bulk-four');
  expect(replyIds(mine).filter((r) => /^hitl[bc]:/.test(r.id))).toEqual([]);
});

it('PENDING-WA-BULK-2 confirm lists the cases and those left out; only its owner, only once', async () => {
  const list = await say(ALLOWED, { text: '/pending' });
  const all = titled(list, 'Approve all (2)');
  expect(all).toMatch(/^hitlb:/);

  const refused = await say(STRANGER, { reply: all, contextId: list.id });
  expect(shownText(refused)).toBe('This button is no longer active.');

  const step = await say(ALLOWED, { reply: all, contextId: list.id });
  const text = shownText(step);
  expect(text.split('\n')[0]).toMatch(/^Approve: 2 cases/);
  expect(text).toContain('1. Deploy build wa-bulk-2 to production?');
  expect(text).toContain('2. Deploy build wa-bulk-1 to production?');
  expect(text).toMatch(/Left out:\n• Deploy build wa-bulk-four to production\? — four-eyes/);
  expect(submitted).toEqual([]);
  const confirm = titled(step, 'Confirm');
  expect(titled(step, 'Cancel')).toMatch(/^hitlp:/);

  const theirs = await say(STRANGER, { reply: confirm, contextId: step.id });
  expect(shownText(theirs)).toContain('used, expired or not yours');
  expect(submitted).toEqual([]);

  // Each decided card says its outcome too (a message of its own); the results follow them.
  const before = h.fake.sent.length;
  await say(ALLOWED, { reply: confirm, contextId: step.id });
  const done = await eventually(
    async () =>
      h.fake.sent
        .slice(before)
        .map(shownText)
        .find((t) => t.startsWith('Approve: the outcome')),
    10_000,
    'the results',
  );
  expect(done).toMatch(/^Approve: the outcome of each of 2 cases/);
  expect(done).toContain('✅ Deploy build wa-bulk-2 to production?');
  expect(done).toContain('✅ Deploy build wa-bulk-1 to production?');
  expect([...submitted].sort()).toEqual(['wa-bulk-1', 'wa-bulk-2']);

  const after = h.fake.sent.length;
  await say(ALLOWED, { reply: confirm, contextId: step.id });
  await eventually(
    async () =>
      h.fake.sent.slice(after).some((m) => shownText(m).includes('used, expired or not yours')),
    10_000,
    'the refusal',
  );
  expect(submitted).toHaveLength(2);
});
