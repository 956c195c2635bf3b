/**
 * The WhatsApp adapter against the fake Graph API and a real relay with the demo service: the
 * platform's rules (buttons, lists, Details), the 24-hour window and templates, delivery statuses
 * on the case, the hitl_id command, and webhooks that are forged or replayed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { signBody } from '../../../platforms/whatsapp/verify.ts';
import {
  type DemoHandle,
  eventually,
  type RelayHandle,
  startDemo,
  startRelay,
} from '../../helpers/relay-env.ts';
import {
  ALLOWED,
  isCard,
  makeWhatsAppHarness,
  WEBHOOK_PATH,
  type WhatsAppHarness,
} from './harness.ts';

let h: WhatsAppHarness;
let demo: DemoHandle;
let relay: RelayHandle;

async function setUp(o: Parameters<typeof makeWhatsAppHarness>[0] = {}) {
  h = await makeWhatsAppHarness(o);
  demo = await startDemo();
  relay = await startRelay({ adapters: [h.adapter], allow: { [h.target]: [ALLOWED.id] } });
  await h.attach?.(relay.url);
}

afterEach(async () => {
  await relay?.stop();
  await demo?.stop();
  await h?.close();
});

/** Sends a demo case to the harness target; returns it with its card as the fake holds it. */
async function send(type: string, body: Record<string, unknown> = {}, inline = true) {
  const response = await demo.create(type, inline, body);
  const before = new Set(h.fake.sent.map((m) => m.id));
  const sent = await relay.send(h.target, response);
  expect(sent.status, JSON.stringify(sent.body)).toBe(201);
  const id = sent.body.id as string;
  await relay.until(id, (x) => x.messages[0]?.state === 'posted');
  const card = h.fake.messagesTo(ALLOWED.id).find((m) => isCard(m) && !before.has(m.id))!;
  const ref = { platform: 'whatsapp', address: `${h.fake.phoneId}:${ALLOWED.id}`, id: card.id };
  return { id, card, ref, hitl: response.hitl };
}

const url = () => `${relay.url}${WEBHOOK_PATH}`;

describe('cards follow the platform rules', () => {
  it('reply button titles are at most 20 characters; no actions: one CTA URL to Details', async () => {
    await setUp();
    const { card } = await send('approval');
    expect(card.body.interactive.type).toBe('button');
    for (const b of card.body.interactive.action.buttons)
      expect([...b.reply.title].length).toBeLessThanOrEqual(20);
    const { card: details } = await send('approval', {}, false);
    expect(details.body.interactive.type).toBe('cta_url');
    expect(details.body.interactive.action.parameters.url).toMatch(/\/r\//);
  });
});

describe('the 24-hour window', () => {
  it('closed and no template for the type: nothing sent, and the case says why', async () => {
    await setUp({ openWindow: false });
    const before = h.fake.sent.length;
    const sent = await relay.send(h.target, await demo.create('approval', true));
    // Intake refuses at once: the target cannot show the case, and the answer says why.
    expect(sent.status).toBe(422);
    expect(String(sent.body.message)).toMatch(
      /24-hour customer-service window with whatsapp:\d+:\d+ is closed.*no approved template for "approval" cases/,
    );
    expect(h.fake.sent.length).toBe(before);
  });

  it('closed with a template: the template goes out, and its quick reply decides the case', async () => {
    await setUp({
      openWindow: false,
      fake: {
        templates: [{ name: 'hitl_approval', language: 'en', bodyParams: 2, quickReplies: 2 }],
      },
      adapter: {
        templates: {
          approval: {
            name: 'hitl_approval',
            language: 'en',
            body: ['title', 'prompt'],
            buttons: ['approve', 'reject'],
          },
        },
      },
    });
    const { id, card, ref } = await send('approval');
    expect(card.body.type).toBe('template');
    expect(card.body.template.components.at(-1).parameters[0].payload).toMatch(/^hitl:.+:reject$/);
    await h.tap({ ref, action: 'approve', user: ALLOWED, relayUrl: relay.url });
    const done = await relay.until(id, (x) => x.status === 'completed');
    expect(done.result.action).toBe('approve');
    // The tap opened the window, so the outcome reply quoting the template reaches the person.
    await eventually(
      async () => (await h.replies!(ref)).some((r) => /approved/i.test(r.text)),
      10_000,
      'the outcome',
    );
  });
});

describe('webhooks', () => {
  it('the handshake echoes the challenge only for the verify token', async () => {
    await setUp();
    const token = (h.adapter as unknown as { options: { verifyToken: string } }).options
      .verifyToken;
    const ok = await fetch(
      `${url()}?hub.mode=subscribe&hub.verify_token=${token}&hub.challenge=1158201444`,
    );
    expect(ok.status).toBe(200);
    expect(await ok.text()).toBe('1158201444');
    const bad = await fetch(
      `${url()}?hub.mode=subscribe&hub.verify_token=nope&hub.challenge=1158201444`,
    );
    expect(bad.status).toBe(403);
    expect(await bad.text()).not.toContain('1158201444');
  });

  it('a forged signature is refused and taps nothing; a replayed delivery is taken once', async () => {
    await setUp();
    const { id, card, hitl } = await send('approval');
    const reply = card.body.interactive.action.buttons.find((b: any) =>
      b.reply.id.endsWith(':approve'),
    );
    const body = h.fake.webhookBody([
      {
        kind: 'reply',
        from: ALLOWED.id,
        name: ALLOWED.name,
        contextId: card.id,
        id: reply.reply.id,
        via: 'button',
      },
    ]);
    const forged = await h.fake.deliver(url(), body, 'not-the-app-secret');
    expect(forged.status).toBe(401);
    const unsigned = await fetch(url(), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(unsigned.status).toBe(401);
    // A body changed after signing (another button) fails the signature too.
    const tampered = body.replace(':approve', ':reject');
    const res = await fetch(url(), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-hub-signature-256': signBody(body, h.fake.appSecret),
      },
      body: tampered,
    });
    expect(res.status).toBe(401);
    expect((await relay.get(id)).status).toBe('pending');
    expect((await demo.submissions()).filter((s) => s.case_id === hitl.case_id)).toHaveLength(0);
    expect((await h.fake.deliver(url(), body)).status).toBe(200);
    await relay.until(id, (x) => x.status === 'completed');
    const sentBefore = h.fake.sent.length;
    expect((await h.fake.deliver(url(), body)).status).toBe(200);
    const taps = (await relay.get(id)).history.filter(
      (e: any) => e.kind === 'submit' || e.kind === 'refused',
    );
    expect((await demo.submissions()).filter((s) => s.case_id === hitl.case_id)).toHaveLength(1);
    expect(taps.filter((e: any) => e.kind === 'refused')).toHaveLength(0);
    // Nothing answered the replay ("already decided" would mean it was taken as a tap).
    expect(
      h.fake.sent.slice(sentBefore).some((m) => /already decided/i.test(m.body.text?.body ?? '')),
    ).toBe(false);
  });

  it('a signed delivery older than a day is skipped (a replay beyond the de-duplication memory)', async () => {
    await setUp();
    const { id, card } = await send('approval');
    const reply = card.body.interactive.action.buttons[0].reply.id;
    const body = h.fake.webhookBody([
      {
        kind: 'reply',
        from: ALLOWED.id,
        name: ALLOWED.name,
        contextId: card.id,
        id: reply,
        via: 'button',
        at: Date.now() - 25 * 3600_000,
      },
    ]);
    expect((await h.fake.deliver(url(), body)).status).toBe(200);
    const after = await relay.get(id);
    expect(after.status).toBe('pending');
    expect(after.history.some((e: any) => e.kind === 'submit')).toBe(false);
  });

  it('statuses are recorded on the case: sent, delivered, read, failed with its error', async () => {
    await setUp();
    const { id, card } = await send('approval');
    const cardId = card.id;
    const items = (['sent', 'delivered', 'read'] as const).map((status) => ({
      kind: 'status' as const,
      messageId: cardId,
      recipient: ALLOWED.id,
      status,
    }));
    expect((await h.fake.deliver(url(), h.fake.webhookBody(items))).status).toBe(200);
    // Redelivered: recorded once each.
    expect((await h.fake.deliver(url(), h.fake.webhookBody(items))).status).toBe(200);
    await h.fake.deliver(
      url(),
      h.fake.webhookBody([
        {
          kind: 'status',
          messageId: cardId,
          recipient: ALLOWED.id,
          status: 'failed',
          errorCode: 131026,
        },
      ]),
    );
    const rows = await eventually(
      async () => {
        const got = (await relay.get(id)).history.filter((e: any) => e.kind === 'message_status');
        return got.length >= 4 ? got : null;
      },
      10_000,
      'the status rows',
    );
    expect(rows.map((r: any) => r.detail?.state ?? r.state)).toEqual([
      'sent',
      'delivered',
      'read',
      'failed',
    ]);
    expect(JSON.stringify(rows.at(-1))).toContain('#131026');
  });

  it('/hitl_id tells the chat its target string and the person their id', async () => {
    await setUp();
    const reply = h.fake.messagesTo(ALLOWED.id).find((m) => m.body.type === 'text')!;
    expect(reply.body.text.body).toContain(`whatsapp:${h.fake.phoneId}:${ALLOWED.id}`);
    expect(reply.body.text.body).toContain(ALLOWED.id);
  });
});

describe('the pair rate', () => {
  it('a burst to one person: each card once, in order, every 131056 waited out', async () => {
    // The fake's pair interval is longer than the adapter's pace, so 131056 answers do come.
    await setUp({
      fake: { pairIntervalMs: 60 },
      adapter: { pace: { pairIntervalMs: 30 }, rateLimitAttempts: 8 },
    });
    const made = await Promise.all(Array.from({ length: 8 }, () => demo.create('approval', true)));
    const sent = await Promise.all(made.map((r) => relay.send(h.target, r)));
    for (const one of sent) expect(one.status).toBe(201);
    await Promise.all(
      sent.map((one) => relay.until(one.body.id, (x) => x.messages[0]?.state === 'posted', 20_000)),
    );
    const cards = h.fake.messagesTo(ALLOWED.id).filter((m) => m.body.type === 'interactive');
    expect(cards).toHaveLength(8);
    expect(h.fake.pairRateErrors).toBeGreaterThan(0);
    expect(h.adapter.rateLimitAnswers).toBe(h.fake.pairRateErrors);
    for (let i = 1; i < cards.length; i++)
      expect(cards[i]!.at - cards[i - 1]!.at).toBeGreaterThanOrEqual(60);
  });
});
