import { afterEach, describe, expect, it } from 'vitest';
import { createTelegramAdapter } from '../../../platforms/telegram/index.ts';
import { TAP_TEXTS } from '../../../platforms/telegram/taps.ts';
import type { TapReply } from '../../../src/adapter.ts';
import { PlatformError } from '../../../src/errors.ts';
import { FakeTelegramApi } from '../../fakes/telegram-api.ts';
import { makeCard, type Setup, setup, until } from './helpers.ts';

const GROUP = -1001234567890;
const ann = FakeTelegramApi.user(111222333, 'Ann', { last_name: 'Example' });

let s: Setup | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});

async function rejection(promise: Promise<unknown>): Promise<PlatformError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof PlatformError) return err;
    throw err;
  }
  throw new Error('expected a PlatformError');
}

describe('telegram adapter: posting and editing', () => {
  it('posts a card as an HTML message with its keyboard and returns the ref', async () => {
    s = await setup();
    const ref = await s.adapter.post(String(GROUP), makeCard({ prompt: 'Ship <v2> & more?' }));
    expect(ref).toEqual({ platform: 'telegram', address: String(GROUP), id: `${GROUP}:1` });
    const [stored] = s.fake.messages(GROUP);
    expect(stored?.message.text).toContain('Ship <v2> & more?');
    expect(stored?.sent).toContain('Ship &lt;v2&gt; &amp; more?');
    expect(stored?.message.reply_markup?.inline_keyboard.flat().map((b) => b.text)).toEqual([
      'Approve',
      'Reject',
      'Details',
    ]);
    expect(s.fake.calls('sendMessage')[0]).toMatchObject({
      chat_id: String(GROUP),
      parse_mode: 'HTML',
    });
  });

  it('posts as a reply when asked to', async () => {
    s = await setup();
    const first = await s.adapter.post(String(GROUP), makeCard());
    await s.adapter.post(String(GROUP), makeCard({ key: 'r2' }), { replyTo: first });
    expect(s.fake.messages(GROUP)[1]?.message.reply_to_message?.message_id).toBe(1);
  });

  it('edits the card, drops the callback buttons when final, and treats "not modified" as success', async () => {
    s = await setup();
    const ref = await s.adapter.post(String(GROUP), makeCard());
    const final = makeCard({ final: true, status: 'Approved by Ann Example' });
    await s.adapter.update(ref, final);
    const stored = s.fake.message(GROUP, 1);
    expect(stored?.message.text).toContain('Approved by Ann Example');
    expect(stored?.message.reply_markup?.inline_keyboard).toEqual([
      [{ text: 'Details', url: 'https://service.example/review/case-123' }],
    ]);
    await expect(s.adapter.update(ref, final)).resolves.toBeUndefined();
    expect(s.fake.calls('editMessageText')).toHaveLength(2);
  });

  it('edits a decided card to its outcome as a disabled button (Bot API 10 DisabledButton)', async () => {
    s = await setup();
    const ref = await s.adapter.post(String(GROUP), makeCard());
    const outcome = { kind: 'approved' as const, label: '✅ Approved' };
    await s.adapter.update(ref, makeCard({ final: true, status: 'Approved by Ann', outcome }));
    // The payload sent, as the fake checked it (a DisabledButton is an empty object, its own kind).
    expect(s.fake.calls('editMessageText')[0]?.reply_markup).toEqual({
      inline_keyboard: [
        [{ text: '✅ Approved', disabled: {}, style: 'success' }],
        [{ text: 'Details', url: 'https://service.example/review/case-123' }],
      ],
    });
    expect(s.fake.message(GROUP, 1)?.message.reply_markup?.inline_keyboard[0]).toEqual([
      { text: '✅ Approved', disabled: {}, style: 'success' },
    ]);
  });

  it('edits a decided card without the disabled button when the Bot API server is older than 10', async () => {
    s = await setup();
    await s.adapter.start(s.ctx);
    s.fake.useOlderBotApi();
    const ref = await s.adapter.post(String(GROUP), makeCard());
    const outcome = { kind: 'rejected' as const, label: '❌ Rejected' };
    await s.adapter.update(ref, makeCard({ final: true, status: 'Rejected by Ann', outcome }));
    const edits = s.fake.calls('editMessageText');
    expect(edits).toHaveLength(2);
    expect(s.fake.message(GROUP, 1)?.message.text).toContain('Rejected by Ann');
    expect(s.fake.message(GROUP, 1)?.message.reply_markup?.inline_keyboard).toEqual([
      [{ text: 'Details', url: 'https://service.example/review/case-123' }],
    ]);
    expect(s.lines.some((line) => line.includes('disabled outcome button'))).toBe(true);
  });

  it('follows a group that became a supergroup, and says so in the log', async () => {
    s = await setup();
    await s.adapter.start(s.ctx);
    s.fake.migrateChat(-4242, GROUP);
    const ref = await s.adapter.post('-4242', makeCard());
    expect(ref).toEqual({ platform: 'telegram', address: String(GROUP), id: `${GROUP}:1` });
    expect(s.fake.messages(GROUP)).toHaveLength(1);
    expect(s.lines.some((line) => line.includes(`"to":"telegram:${GROUP}"`))).toBe(true);
  });

  it('sends the Details link as text when Telegram refuses the button URL', async () => {
    s = await setup();
    s.fake.refuseButtonUrls(/^https?:\/\/(localhost|127\.)/);
    const link = { label: 'Details', url: 'http://127.0.0.1:8787/r/abc' };
    const ref = await s.adapter.post('42', makeCard({ link }));
    const posted = s.fake.message(42, 1)?.message;
    expect(posted?.text).toContain('Details: http://127.0.0.1:8787/r/abc');
    expect(posted?.reply_markup?.inline_keyboard.flat().map((b) => b.text)).toEqual([
      'Approve',
      'Reject',
    ]);
    await s.adapter.update(ref, makeCard({ link, final: true, status: 'Approved' }));
    expect(s.fake.message(42, 1)?.message.text).toContain('Details: http://127.0.0.1:8787/r/abc');
    expect(s.fake.message(42, 1)?.message.reply_markup).toBeUndefined();
    await s.adapter.notify(ref, 'Still waiting', link);
    expect(s.fake.message(42, 2)?.message.text).toBe(
      'Still waiting\n\nDetails: http://127.0.0.1:8787/r/abc',
    );
  });

  it('maps a vanished message, a bad ref and a bad address to PlatformError', async () => {
    s = await setup();
    const gone = await rejection(
      s.adapter.update({ platform: 'telegram', address: '5', id: '5:99' }, makeCard()),
    );
    expect(gone).toMatchObject({ code: 'not_found', call: 'editMessageText', status: 400 });
    const foreign = await rejection(
      s.adapter.update({ platform: 'slack', address: 'C1', id: '1.2' }, makeCard()),
    );
    expect(foreign.code).toBe('bad_request');
    const address = await rejection(s.adapter.post('general', makeCard()));
    expect(address.code).toBe('bad_request');
  });

  it('honours 429 retry_after for sends and edits without losing them', async () => {
    s = await setup();
    s.fake.inject429('sendMessage', 2, 1);
    const ref = await s.adapter.post(String(GROUP), makeCard());
    expect(s.fake.calls('sendMessage')).toHaveLength(3);
    expect(s.fake.messages(GROUP)).toHaveLength(1);

    s.fake.inject429('editMessageText', 1, 1);
    await s.adapter.update(ref, makeCard({ status: 'Opened by Ann' }));
    expect(s.fake.calls('editMessageText')).toHaveLength(2);
    expect(s.fake.message(GROUP, 1)?.message.text).toContain('Opened by Ann');
  });

  it('gives up after bounded retries with rate_limited and retryAfterMs', async () => {
    s = await setup();
    s.fake.inject429('sendMessage', 10, 7);
    const err = await rejection(s.adapter.post(String(GROUP), makeCard()));
    expect(err).toMatchObject({ code: 'rate_limited', call: 'sendMessage', retryAfterMs: 7000 });
    expect(err.retryable).toBe(true);
    expect(s.fake.calls('sendMessage')).toHaveLength(4);
  });

  it('does not wait out a retry_after beyond the limit', async () => {
    s = await setup({ retry: { retryAfterUnitMs: 1, maxWaitMs: 10 } });
    s.fake.inject429('editMessageText', 1, 30);
    const ref = { platform: 'telegram', address: '5', id: '5:1' };
    const err = await rejection(s.adapter.update(ref, makeCard()));
    expect(err).toMatchObject({ code: 'rate_limited', retryAfterMs: 30_000 });
    expect(s.fake.calls('editMessageText')).toHaveLength(1);
  });

  it('sends a reminder as a plain reply with a link button and no mention', async () => {
    s = await setup();
    const ref = await s.adapter.post('42', makeCard());
    await s.adapter.notify(ref, 'Still waiting, @ann <b>', {
      label: 'Details',
      url: 'https://service.example/review/case-123',
    });
    const notice = s.fake.messages(42)[1];
    expect(notice?.message.text).toBe('Still waiting, @\u2060ann <b>');
    expect(notice?.message.reply_to_message?.message_id).toBe(1);
    expect(notice?.message.reply_markup?.inline_keyboard).toEqual([
      [{ text: 'Details', url: 'https://service.example/review/case-123' }],
    ]);
    expect(s.fake.calls('sendMessage')[1]?.parse_mode).toBeUndefined();
  });
});

describe('telegram adapter: long polling', () => {
  async function started(options: Parameters<typeof setup>[0] = {}): Promise<Setup> {
    const current = await setup(options);
    await current.adapter.start(current.ctx);
    return current;
  }

  async function tapOn(current: Setup, data: string, extra: { inaccessible?: boolean } = {}) {
    const update = current.fake.callbackQuery({
      chatId: GROUP,
      messageId: 1,
      data,
      from: ann,
      ...extra,
    });
    current.fake.queueUpdate(update);
    const id = update.callback_query?.id as string;
    return current.fake.waitForAnswer(id);
  }

  it('deletes any webhook before polling and asks only for the updates it uses', async () => {
    s = await started();
    const methods = s.fake.requests().map((r) => r.method);
    expect(methods.indexOf('deleteWebhook')).toBeGreaterThanOrEqual(0);
    await until(() => s?.fake.calls('getUpdates').length !== 0, 'getUpdates');
    expect(methods).not.toContain('setWebhook');
    expect(s.fake.calls('getUpdates')[0]?.allowed_updates).toEqual([
      'message',
      'channel_post',
      'callback_query',
    ]);
  });

  it('turns a tap into a Tap and answers with the outcome text', async () => {
    s = await started();
    await s.adapter.post(String(GROUP), makeCard());
    const answer = await tapOn(s, 'hitl:k7Qx2:approve');
    expect(answer.text).toBe('Done: approve');
    expect(s.taps).toEqual([
      {
        platform: 'telegram',
        key: 'k7Qx2',
        action: 'approve',
        user: { id: '111222333', name: 'Ann Example' },
        ref: { platform: 'telegram', address: String(GROUP), id: `${GROUP}:1` },
      },
    ]);
  });

  it('answers foreign buttons without asking the engine', async () => {
    s = await started();
    await s.adapter.post(String(GROUP), makeCard());
    const answer = await tapOn(s, 'vote:42');
    expect(answer.text).toBe(TAP_TEXTS.unknownButton);
    expect(s.taps).toEqual([]);
  });

  it('answers "Submitting…" when the engine is slow, and the engine still finishes', async () => {
    s = await started({ tapAnswerWaitMs: 20 });
    let release: (reply: TapReply) => void = () => {};
    s.reply.fn = () =>
      new Promise<TapReply>((resolve) => {
        release = resolve;
      });
    await s.adapter.post(String(GROUP), makeCard());
    const answer = await tapOn(s, 'hitl:k7Qx2:reject');
    expect(answer.text).toBe(TAP_TEXTS.submitting);
    release({ outcome: 'submitted', text: 'Rejected.', card: null });
    expect(s.fake.answers()).toHaveLength(1);
  });

  it('answers even when the engine throws, and truncates long texts to 200', async () => {
    s = await started();
    await s.adapter.post(String(GROUP), makeCard());
    s.reply.fn = async () => {
      throw new Error('boom');
    };
    expect((await tapOn(s, 'hitl:k7Qx2:approve')).text).toBe(TAP_TEXTS.failed);
    s.reply.fn = async () => ({ outcome: 'refused', text: 'n'.repeat(500), card: null });
    expect((await tapOn(s, 'hitl:k7Qx2:approve')).text).toHaveLength(200);
  });

  it('a "not one of the approvers" refusal in a group is an ephemeral message to the tapper', async () => {
    s = await started();
    await s.adapter.post(String(GROUP), makeCard());
    const text = 'You are not one of the approvers of this case.';
    s.reply.fn = async () => ({ outcome: 'forbidden', text, card: null });
    const before = s.fake.messages(GROUP).length;
    const answer = await tapOn(s, 'hitl:k7Qx2:approve');
    // Bot API 10: only Ann sees it, tied to her query; the query itself is answered silently.
    expect(s.fake.ephemeralMessages()).toEqual([
      {
        chat_id: GROUP,
        receiver_user_id: ann.id,
        callback_query_id: answer.callback_query_id,
        text,
      },
    ]);
    expect(answer.text).toBeUndefined();
    expect(s.fake.messages(GROUP)).toHaveLength(before);
    // Other outcomes stay toasts.
    s.reply.fn = async () => ({ outcome: 'closed', text: 'Already decided.', card: null });
    expect((await tapOn(s, 'hitl:k7Qx2:approve')).text).toBe('Already decided.');
    expect(s.fake.ephemeralMessages()).toHaveLength(1);
  });

  it('passes a null ref for a tap on an inaccessible message', async () => {
    s = await started();
    await s.adapter.post(String(GROUP), makeCard());
    await tapOn(s, 'hitl:k7Qx2:approve', { inaccessible: true });
    expect(s.taps[0]?.ref).toBeNull();
  });

  it('answers /hitl_id, /start and /hitl_id@thisbot with the target; ignores other bots', async () => {
    s = await started();
    const username = s.fake.botInfo.username;
    const texts = [
      '/hitl_id',
      `/hitl_id@${username}`,
      '/start',
      '/hitl_id@some_other_bot',
      'hello',
    ];
    for (const text of texts)
      s.fake.queueUpdate(s.fake.textMessage({ chatId: GROUP, from: ann, text }));
    await until(() => s?.fake.messages(GROUP).length === 3, 'three replies');
    // Let the last two updates be processed too: a later update proves the earlier were handled.
    const marker = s.fake.textMessage({ chatId: 5, from: ann, text: '/hitl_id' });
    s.fake.queueUpdate(marker);
    await until(() => s?.fake.messages(5).length === 1, 'marker reply');
    const replies = s.fake.messages(GROUP).map((m) => m.message.text);
    expect(replies).toHaveLength(3);
    for (const reply of replies) expect(reply).toContain(`telegram:${GROUP}`);
    expect(s.fake.messages(5)[0]?.message.text).toContain('telegram:5');
    expect(s.fake.calls('sendMessage').every((call) => call.parse_mode === undefined)).toBe(true);
  });

  it('stops polling on stop()', async () => {
    // The fake holds each long poll for 30 s: within the test only stop() can end the open one.
    s = await started({ pollingTimeoutSeconds: 30 });
    await until(() => s?.fake.openPolls() === 1, 'the long poll');
    const before = s.fake.calls('getUpdates').length;
    // stop() resolves once the polling loop has ended, so nothing is left to poll again.
    await s.adapter.stop();
    await until(() => s?.fake.openPolls() === 0, 'the long poll given up');
    // One more call only: the last one, which saves the offset and waits for nothing.
    const after = s.fake.calls('getUpdates').slice(before);
    expect(after).toEqual([expect.objectContaining({ limit: 1 })]);
    expect(after[0]).not.toHaveProperty('timeout');
  });

  it('fails start fast with a clear error when the token is refused', async () => {
    s = await setup();
    const adapter = createTelegramAdapter({ botToken: '1:wrong', apiRoot: s.fake.apiRoot });
    const err = await rejection(adapter.start(s.ctx));
    expect(err).toMatchObject({ code: 'forbidden', call: 'getMe', status: 401 });
    await adapter.stop();
  });

  it('never puts the bot token into a request body or a log line', async () => {
    s = await started();
    const ref = await s.adapter.post(String(GROUP), makeCard());
    await s.adapter.update(ref, makeCard({ final: true }));
    await s.adapter.notify(ref, 'reminder', null);
    await tapOn(s, 'hitl:k7Qx2:approve');
    const token = s.fake.token;
    const secretPart = token.split(':')[1] as string;
    for (const request of s.fake.requests()) {
      expect(request.body).not.toContain(secretPart);
    }
    s.fake.inject429('sendMessage', 10, 1);
    await rejection(s.adapter.post(String(GROUP), makeCard()));
    for (const line of s.lines) expect(line).not.toContain(secretPart);
  });
});
