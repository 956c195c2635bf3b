import { afterEach, describe, expect, it } from 'vitest';
import { createTelegramAdapter } from '../../../platforms/telegram/index.ts';
import { ValidationError } from '../../../src/errors.ts';
import { FakeTelegramApi } from '../../fakes/telegram-api.ts';
import { makeCard, type Setup, serveRoutes, setup } from './helpers.ts';

const GROUP = -1001234567890;
const WEBHOOK_URL = 'https://relay.example/telegram/webhook';
const SECRET = 'wh_Secret-0123456789';
const ann = FakeTelegramApi.user(111222333, 'Ann', { last_name: 'Example' });

let s: Setup | undefined;
let relay: { url: string; close(): Promise<void> } | undefined;
afterEach(async () => {
  await relay?.close();
  await s?.close();
  s = undefined;
  relay = undefined;
});

async function webhookSetup(start = true, path?: string) {
  s = await setup({
    webhookUrl: WEBHOOK_URL,
    webhookSecret: SECRET,
    ...(path ? { webhookPath: path } : {}),
  });
  relay = await serveRoutes(s.adapter.routes);
  if (start) await s.adapter.start(s.ctx);
  await s.adapter.post(String(GROUP), makeCard());
  return { s, relayUrl: relay.url };
}

describe('telegram adapter: webhook mode', () => {
  it('sets the webhook with its secret and allowed updates, and never polls', async () => {
    const { s } = await webhookSetup();
    expect(s.fake.calls('setWebhook')).toEqual([
      {
        url: WEBHOOK_URL,
        secret_token: SECRET,
        allowed_updates: ['message', 'channel_post', 'callback_query'],
      },
    ]);
    const methods = s.fake.requests().map((r) => r.method);
    expect(methods).not.toContain('getUpdates');
    expect(methods).not.toContain('deleteWebhook');
    expect(s.adapter.routes.map((r) => [r.method, r.path])).toEqual([
      ['POST', '/telegram/webhook'],
    ]);
  });

  it('mounts the route at a configured path', async () => {
    const { s } = await webhookSetup(true, '/hooks/tg');
    expect(s.adapter.routes.map((r) => r.path)).toEqual(['/hooks/tg']);
  });

  it('handles a tap delivered with the secret header', async () => {
    const { s, relayUrl } = await webhookSetup();
    const update = s.fake.callbackQuery({
      chatId: GROUP,
      messageId: 1,
      data: 'hitl:k7Qx2:approve',
      from: ann,
    });
    const res = await s.fake.deliverWebhook(update, { url: `${relayUrl}/telegram/webhook` });
    expect(res.status).toBe(200);
    expect(s.fake.answers()).toEqual([
      { callback_query_id: update.callback_query?.id, text: 'Done: approve' },
    ]);
    expect(s.taps).toHaveLength(1);
  });

  it('refuses a request without the right secret header and changes nothing', async () => {
    const { s, relayUrl } = await webhookSetup();
    const before = s.fake.requests().length;
    for (const secret of [null, '', 'wh_Secret-012345678', `${SECRET}x`, 'nope']) {
      const update = s.fake.callbackQuery({
        chatId: GROUP,
        messageId: 1,
        data: 'hitl:k7Qx2:approve',
        from: ann,
      });
      const res = await s.fake.deliverWebhook(update, {
        url: `${relayUrl}/telegram/webhook`,
        secret,
      });
      expect(res.status).toBe(401);
    }
    const command = s.fake.textMessage({ chatId: GROUP, from: ann, text: '/hitl_id' });
    expect(
      (await s.fake.deliverWebhook(command, { url: `${relayUrl}/telegram/webhook`, secret: 'bad' }))
        .status,
    ).toBe(401);
    expect(s.taps).toEqual([]);
    expect(s.fake.answers()).toEqual([]);
    expect(s.fake.requests()).toHaveLength(before);
    expect(s.fake.messages(GROUP)).toHaveLength(1);
    expect(s.lines.some((line) => line.includes('wrong secret token'))).toBe(true);
  });

  it('handles a re-sent update_id once', async () => {
    const { s, relayUrl } = await webhookSetup();
    const update = s.fake.callbackQuery({
      chatId: GROUP,
      messageId: 1,
      data: 'hitl:k7Qx2:approve',
      from: ann,
    });
    const url = `${relayUrl}/telegram/webhook`;
    expect((await s.fake.deliverWebhook(update, { url })).status).toBe(200);
    expect((await s.fake.deliverWebhook(update, { url })).status).toBe(200);
    expect(s.taps).toHaveLength(1);
    expect(s.fake.answers()).toHaveLength(1);
  });

  it('answers /hitl_id by webhook too', async () => {
    const { s, relayUrl } = await webhookSetup();
    const update = s.fake.textMessage({ chatId: GROUP, from: ann, text: '/hitl_id' });
    await s.fake.deliverWebhook(update, { url: `${relayUrl}/telegram/webhook` });
    expect(s.fake.messages(GROUP)[1]?.message.text).toContain(`telegram:${GROUP}`);
  });

  it('answers 503 before start and after stop (Telegram will re-send), 400 for junk', async () => {
    const { s, relayUrl } = await webhookSetup(false);
    const url = `${relayUrl}/telegram/webhook`;
    const update = s.fake.callbackQuery({
      chatId: GROUP,
      messageId: 1,
      data: 'hitl:k7Qx2:approve',
      from: ann,
    });
    expect((await s.fake.deliverWebhook(update, { url, secret: SECRET })).status).toBe(503);
    await s.adapter.start(s.ctx);
    const junk = await fetch(url, {
      method: 'POST',
      headers: { 'x-telegram-bot-api-secret-token': SECRET },
      body: '{not json',
    });
    expect(junk.status).toBe(400);
    const noId = await fetch(url, {
      method: 'POST',
      headers: { 'x-telegram-bot-api-secret-token': SECRET },
      body: '{"message":{}}',
    });
    expect(noId.status).toBe(400);
    await s.adapter.stop();
    expect((await s.fake.deliverWebhook(update, { url, secret: SECRET })).status).toBe(503);
    expect(s.taps).toEqual([]);
  });

  it('refuses webhook mode without a valid secret', () => {
    expect(() => createTelegramAdapter({ botToken: '1:abc', webhookUrl: WEBHOOK_URL })).toThrow(
      ValidationError,
    );
    expect(() =>
      createTelegramAdapter({ botToken: '1:abc', webhookUrl: WEBHOOK_URL, webhookSecret: 'a b' }),
    ).toThrow(/TELEGRAM_WEBHOOK_SECRET/);
  });

  it('never puts the bot token into a request body', async () => {
    const { s, relayUrl } = await webhookSetup();
    const update = s.fake.callbackQuery({
      chatId: GROUP,
      messageId: 1,
      data: 'hitl:k7Qx2:approve',
      from: ann,
    });
    await s.fake.deliverWebhook(update, { url: `${relayUrl}/telegram/webhook` });
    const secretPart = s.fake.token.split(':')[1] as string;
    expect(s.fake.requests().length).toBeGreaterThan(2);
    for (const request of s.fake.requests()) expect(request.body).not.toContain(secretPart);
  });
});
