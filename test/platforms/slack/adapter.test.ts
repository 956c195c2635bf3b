/** The adapter's Web API side against the fake: post, update, notify, 429, errors, secrets. */
import { afterEach, describe, expect, it } from 'vitest';
import { createSlackAdapter } from '../../../platforms/slack/index.ts';
import { PlatformError } from '../../../src/errors.ts';
import { createLogger } from '../../../src/log.ts';
import { MemoryKeyValue } from '../../../src/store/memory-kv.ts';
import { FakeSlack } from '../../fakes/slack-api.ts';
import { approvalCard } from './cards.ts';
import { blockTexts, SLACK_TEST_BOT_TOKEN, SLACK_TEST_CHANNEL } from './harness.ts';
import { SLACK_TEST_SECRETS, type SlackSetup, setupSlack } from './setup.ts';

let s: SlackSetup;
afterEach(async () => {
  await s?.close();
});

async function failure(run: () => Promise<unknown>): Promise<PlatformError> {
  try {
    await run();
  } catch (err) {
    if (err instanceof PlatformError) return err;
    throw err;
  }
  throw new Error('expected a PlatformError');
}

describe('slack adapter: Web API', () => {
  it('posts a card as blocks and returns a ref that names channel and ts', async () => {
    s = await setupSlack();
    const ref = await s.adapter.post(SLACK_TEST_CHANNEL, approvalCard());
    const [message] = s.fake.messages(SLACK_TEST_CHANNEL);
    expect(ref).toEqual({
      platform: 'slack',
      address: SLACK_TEST_CHANNEL,
      id: `${SLACK_TEST_CHANNEL}:${message!.ts}`,
    });
    expect(blockTexts(message!)).toContain('Approval needed');
    const [call] = s.fake.calls('chat.postMessage');
    expect(call!.headers.authorization).toBe(`Bearer ${SLACK_TEST_BOT_TOKEN}`);
    expect(call!.fields).toMatchObject({
      unfurl_links: 'false',
      unfurl_media: 'false',
      link_names: 'false',
    });
    // Known bot ids: Bolt never called auth.test.
    expect(s.fake.calls('auth.test')).toHaveLength(0);
  });

  it('renders a prompt that tries to ping as plain text in the stored blocks', async () => {
    s = await setupSlack();
    await s.adapter.post(
      SLACK_TEST_CHANNEL,
      approvalCard({ prompt: '<!channel> <@U123> & *bold*' }),
    );
    const [message] = s.fake.messages(SLACK_TEST_CHANNEL);
    const section = message!.blocks[1] as { text: { type: string; text: string } };
    expect(section.text).toMatchObject({
      type: 'plain_text',
      text: expect.stringMatching(/^&lt;!channel&gt; &lt;@U123&gt; &amp; \*bold\*/),
    });
    const raw = s.fake.calls('chat.postMessage')[0]!.body;
    expect(decodeURIComponent(raw.replace(/\+/g, ' '))).not.toMatch(/<!channel>|<@U123>/);
  });

  it('updates in place, final card without action buttons; an unchanged edit is fine', async () => {
    s = await setupSlack();
    const ref = await s.adapter.post(SLACK_TEST_CHANNEL, approvalCard());
    const final = approvalCard({ final: true, status: 'Approved by Ann at 10:15 UTC' });
    await s.adapter.update(ref, final);
    await s.adapter.update(ref, final);
    const [message] = s.fake.messages(SLACK_TEST_CHANNEL);
    expect(message!.edits).toBe(2);
    expect(blockTexts(message!)).toContain('Approved by Ann at 10:15 UTC');
    const buttons = message!.blocks
      .filter((b) => b.type === 'actions')
      .flatMap((b) => b.elements as { url?: string }[]);
    expect(buttons.map((b) => b.url)).toEqual(['https://service.example/review/42']);
    expect(s.fake.calls('chat.update')[0]!.fields).toMatchObject({
      channel: SLACK_TEST_CHANNEL,
      ts: message!.ts,
    });
  });

  it("notifies in the card's thread as plain text, with a Details button and no unfurl", async () => {
    s = await setupSlack();
    const ref = await s.adapter.post(SLACK_TEST_CHANNEL, approvalCard());
    // mrkdwn cannot escape * _ ~: a reminder quoting the prompt must still arrive as written.
    await s.adapter.notify(ref, 'Reminder: *bold* _it_ ~no~ <!channel> still waiting', {
      label: 'Details',
      url: 'https://service.example/review/42',
    });
    const [card, notice] = s.fake.messages(SLACK_TEST_CHANNEL);
    expect(notice!.threadTs).toBe(card!.ts);
    // The fake, like Slack, gives each block a block_id.
    expect(notice!.blocks).toMatchObject([
      {
        type: 'section',
        text: {
          type: 'plain_text',
          text: 'Reminder: *bold* _it_ ~no~ &lt;!channel&gt; still waiting',
          emoji: false,
        },
      },
      {
        type: 'actions',
        elements: [
          {
            type: 'button',
            text: { type: 'plain_text', text: 'Details', emoji: true },
            action_id: 'hitl:link:notice',
            url: 'https://service.example/review/42',
          },
        ],
      },
    ]);
    expect(notice!.text).toBe('Reminder: *bold* _it_ ~no~ &lt;!channel&gt; still waiting');
    expect(s.fake.calls('chat.postMessage')[1]!.fields).toMatchObject({
      unfurl_links: 'false',
      mrkdwn: 'false',
    });
  });

  it('posts a reply card in the thread of replyTo', async () => {
    s = await setupSlack();
    const first = await s.adapter.post(SLACK_TEST_CHANNEL, approvalCard());
    await s.adapter.post(SLACK_TEST_CHANNEL, approvalCard({ key: 'k2' }), { replyTo: first });
    const [a, b] = s.fake.messages(SLACK_TEST_CHANNEL);
    expect(b!.threadTs).toBe(a!.ts);
  });

  it('honours 429 Retry-After for postMessage and update without losing the call', async () => {
    s = await setupSlack();
    s.fake.rateLimit('chat.postMessage', 1, 2);
    const ref = await s.adapter.post(SLACK_TEST_CHANNEL, approvalCard());
    expect(s.waits).toEqual([2000]);
    expect(s.fake.calls('chat.postMessage')).toHaveLength(2);
    expect(s.fake.messages(SLACK_TEST_CHANNEL)).toHaveLength(1);

    s.fake.rateLimit('chat.update', 2, 1);
    await s.adapter.update(ref, approvalCard({ status: 'Still waiting' }));
    expect(s.waits).toEqual([2000, 1000, 1000]);
    expect(s.fake.messages(SLACK_TEST_CHANNEL)[0]!.edits).toBe(1);
  });

  it('gives up after the bounded retries with PlatformError rate_limited', async () => {
    s = await setupSlack();
    s.fake.rateLimit('chat.update', 10, 3);
    const ref = await s.adapter.post(SLACK_TEST_CHANNEL, approvalCard());
    const err = await failure(() => s.adapter.update(ref, approvalCard()));
    expect(err).toMatchObject({ code: 'rate_limited', retryAfterMs: 3000, call: 'chat.update' });
    expect(err.retryable).toBe(true);
    expect(s.fake.calls('chat.update')).toHaveLength(4);
    expect(s.waits).toEqual([3000, 3000, 3000]);
  });

  it('does not sit out a Retry-After longer than its limit', async () => {
    s = await setupSlack();
    s.fake.rateLimit('chat.postMessage', 1, 120);
    const err = await failure(() => s.adapter.post(SLACK_TEST_CHANNEL, approvalCard()));
    expect(err).toMatchObject({ code: 'rate_limited', retryAfterMs: 120_000 });
    expect(s.waits).toEqual([]);
  });

  it('maps Slack errors to PlatformError codes', async () => {
    s = await setupSlack();
    s.fake.fail('chat.postMessage', 'channel_not_found');
    expect(await failure(() => s.adapter.post('C0GONE', approvalCard()))).toMatchObject({
      code: 'not_found',
      call: 'chat.postMessage',
      platform: 'slack',
    });
    s.fake.fail('chat.postMessage', 'not_in_channel');
    expect((await failure(() => s.adapter.post('C0OUT', approvalCard()))).code).toBe('forbidden');
    s.fake.fail('chat.postMessage', 'invalid_blocks');
    expect((await failure(() => s.adapter.post('C0X', approvalCard()))).code).toBe('bad_request');
    s.fake.fail('chat.postMessage', 'internal_error');
    expect((await failure(() => s.adapter.post('C0X', approvalCard()))).code).toBe('remote');
    const missing = {
      platform: 'slack',
      address: SLACK_TEST_CHANNEL,
      id: `${SLACK_TEST_CHANNEL}:1.000001`,
    };
    expect((await failure(() => s.adapter.update(missing, approvalCard()))).code).toBe('not_found');
    const alien = { platform: 'slack', address: 'C1', id: 'not-a-ref' };
    expect((await failure(() => s.adapter.update(alien, approvalCard()))).code).toBe('bad_request');
  });

  it('asks auth.test at start when the bot ids are not configured, token in the header only', async () => {
    s = await setupSlack({ knownIds: false });
    const [call] = s.fake.calls('auth.test');
    expect(call!.headers.authorization).toBe(`Bearer ${SLACK_TEST_BOT_TOKEN}`);
    expect(call!.body).not.toContain(SLACK_TEST_BOT_TOKEN);
  });

  it('refuses to start with a token Slack does not know, and says so without the token', async () => {
    const fake = await FakeSlack.start({ botToken: 'xoxb-the-real-one-0000' });
    try {
      const adapter = createSlackAdapter(
        {
          botToken: SLACK_TEST_BOT_TOKEN,
          signingSecret: 'a1b2c3d4e5f6a7b8',
          apiUrl: fake.apiUrl,
          mode: 'http',
        },
        { retryConfig: { retries: 0 } },
      );
      const log = createLogger({ level: 'silent' });
      const onTap = async () => ({ outcome: 'submitted' as const, text: '', card: null });
      const err = await failure(() => adapter.start({ kv: new MemoryKeyValue(), log, onTap }));
      expect(err).toMatchObject({ code: 'forbidden', call: 'auth.test' });
      expect(err.message).not.toContain(SLACK_TEST_BOT_TOKEN);
    } finally {
      await fake.close();
    }
  });

  it('sends no secret in any request body, and logs none', async () => {
    s = await setupSlack();
    const ref = await s.adapter.post(SLACK_TEST_CHANNEL, approvalCard());
    await s.adapter.update(ref, approvalCard({ final: true }));
    await s.adapter.notify(ref, 'Reminder', null);
    s.fake.fail('chat.update', 'invalid_auth');
    await failure(() => s.adapter.update(ref, approvalCard()));
    const bodies = s.fake.requests.map((r) => r.body).join('\n');
    const logs = s.logs.join('\n');
    for (const secret of SLACK_TEST_SECRETS) {
      expect(bodies).not.toContain(secret);
      expect(logs).not.toContain(secret);
    }
  });
});
