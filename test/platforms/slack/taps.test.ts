/** The adapter's inbound side: signed block_actions and /hitl through the relay's routes. */
import { afterEach, describe, expect, it } from 'vitest';
import { SLACK_EVENTS_PATH } from '../../../platforms/slack/index.ts';
import type { TapReply } from '../../../src/adapter.ts';
import {
  blockActionsPayload,
  findButton,
  interactionForm,
  signSlackRequest,
  slashCommandForm,
} from '../../fakes/slack-interactions.ts';
import { approvalCard } from './cards.ts';
import { messageAt, SLACK_TEST_CHANNEL, SLACK_TEST_SIGNING_SECRET, tapButton } from './harness.ts';
import { SLACK_TEST_SECRETS, type SlackSetup, setupSlack } from './setup.ts';

let s: SlackSetup;
afterEach(async () => {
  await s?.close();
});

const ann = { id: 'U0ANN', name: 'ann' };
const reply = (outcome: TapReply['outcome'], text: string): TapReply => ({
  outcome,
  text,
  card: null,
});

async function postCard() {
  return s.adapter.post(SLACK_TEST_CHANNEL, approvalCard());
}

/** A signed tap request body for `action` (by payload suffix) on the message at `ref`. */
async function tapBody(ref: Awaited<ReturnType<typeof postCard>>, action: string): Promise<string> {
  const message = messageAt(s.fake, ref);
  const found = findButton(message, (b) => String(b.value ?? '').endsWith(`:${action}`));
  return interactionForm(blockActionsPayload({ fake: s.fake, message, ...found!, user: ann }));
}

async function send(body: string, headers: Record<string, string>) {
  const res = await fetch(`${s.relayUrl}${SLACK_EVENTS_PATH}`, { method: 'POST', headers, body });
  const text = await res.text();
  await s.adapter.idle();
  return { status: res.status, text };
}

describe('slack adapter: taps', () => {
  it('hands a signed tap to the engine with the users.info name and the message ref', async () => {
    s = await setupSlack();
    const ref = await postCard();
    const result = await tapButton({
      fake: s.fake,
      adapter: s.adapter,
      ref,
      action: 'approve',
      user: ann,
      relayUrl: s.relayUrl,
    });
    expect(result).toMatchObject({ status: 200, notice: null });
    expect(s.taps).toEqual([
      {
        platform: 'slack',
        key: 'k7Qx2',
        action: 'approve',
        user: { id: 'U0ANN', name: 'Ann' },
        ref,
      },
    ]);
    // Submitted: the card update shows it; nobody gets an ephemeral.
    expect(s.fake.ephemerals).toEqual([]);
  });

  it('marks a tap on a button with a confirm dialog as confirmed', async () => {
    s = await setupSlack();
    const ref = await postCard();
    await tapButton({
      fake: s.fake,
      adapter: s.adapter,
      ref,
      action: 'reject',
      user: ann,
      relayUrl: s.relayUrl,
    });
    expect(s.taps[0]).toMatchObject({ action: 'reject', confirmed: true });
  });

  it('tells only that person, ephemerally, when the tap was refused', async () => {
    s = await setupSlack({
      onTap: async () => reply('forbidden', 'You are not allowed to decide <this> & that.'),
    });
    const ref = await postCard();
    const result = await tapButton({
      fake: s.fake,
      adapter: s.adapter,
      ref,
      action: 'approve',
      user: ann,
      relayUrl: s.relayUrl,
    });
    expect(result.notice).toBe('You are not allowed to decide <this> & that.');
    expect(s.fake.ephemerals).toEqual([
      expect.objectContaining({
        channel: SLACK_TEST_CHANNEL,
        user: 'U0ANN',
        text: 'You are not allowed to decide &lt;this&gt; &amp; that.',
      }),
    ]);
  });

  it('answers a failing engine with an ephemeral, not silence', async () => {
    s = await setupSlack({
      onTap: async () => {
        throw new Error('store down');
      },
    });
    const ref = await postCard();
    const result = await tapButton({
      fake: s.fake,
      adapter: s.adapter,
      ref,
      action: 'approve',
      user: ann,
      relayUrl: s.relayUrl,
    });
    expect(result.notice).toMatch(/nothing was decided/);
  });

  it('acknowledges before the work: the HTTP answer comes while the engine is still busy', async () => {
    let release: (r: TapReply) => void = () => {};
    let entered: () => void = () => {};
    const inEngine = new Promise<void>((resolve) => {
      entered = resolve;
    });
    s = await setupSlack({
      onTap: () => {
        entered();
        return new Promise<TapReply>((resolve) => {
          release = resolve;
        });
      },
    });
    const ref = await postCard();
    const body = await tapBody(ref, 'approve');
    try {
      // The engine cannot answer before release() below, yet Slack already has its 200.
      const res = await fetch(`${s.relayUrl}${SLACK_EVENTS_PATH}`, {
        method: 'POST',
        headers: signSlackRequest(SLACK_TEST_SIGNING_SECRET, body),
        body,
      });
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('');
      await inEngine;
      expect(s.fake.ephemerals).toEqual([]);
    } finally {
      release(reply('busy', 'Someone else is deciding right now.'));
    }
    await s.adapter.idle();
    expect(s.fake.ephemerals.map((e) => e.text)).toEqual(['Someone else is deciding right now.']);
  });

  it('looks a person up once (cached) and falls back to the payload name when users.info fails', async () => {
    s = await setupSlack();
    const ref = await postCard();
    for (let i = 0; i < 3; i++) {
      await tapButton({
        fake: s.fake,
        adapter: s.adapter,
        ref,
        action: 'approve',
        user: ann,
        relayUrl: s.relayUrl,
      });
    }
    expect(s.fake.calls('users.info')).toHaveLength(1);
    const bob = { id: 'U0BOB', name: 'Bob Builder' };
    await tapButton({
      fake: s.fake,
      adapter: s.adapter,
      ref,
      action: 'approve',
      user: bob,
      relayUrl: s.relayUrl,
    });
    expect(s.taps.at(-1)!.user).toEqual({ id: 'U0BOB', name: 'bob.builder' });
  });

  it('only acknowledges a tap on the Details URL button', async () => {
    s = await setupSlack();
    const ref = await postCard();
    const result = await tapButton({
      fake: s.fake,
      adapter: s.adapter,
      ref,
      action: 'link',
      user: ann,
      relayUrl: s.relayUrl,
    });
    expect(result).toMatchObject({ status: 200, notice: null });
    expect(s.taps).toEqual([]);
    expect(s.fake.requests.map((r) => r.method)).toEqual(['chat.postMessage']);
  });

  it('refuses a bad or stale signature with 401 and changes nothing', async () => {
    s = await setupSlack();
    const ref = await postCard();
    const body = await tapBody(ref, 'approve');
    const calls = s.fake.requests.length;
    const wrong = await send(body, signSlackRequest('0000wrongsecret0000', body));
    const stale = await send(
      body,
      signSlackRequest(SLACK_TEST_SIGNING_SECRET, body, Math.floor(Date.now() / 1000) - 6 * 60),
    );
    const tampered = await send(
      body.replace('approve', 'reject0'),
      signSlackRequest(SLACK_TEST_SIGNING_SECRET, body),
    );
    const unsigned = await send(body, { 'content-type': 'application/x-www-form-urlencoded' });
    expect([wrong.status, stale.status, tampered.status, unsigned.status]).toEqual([
      401, 401, 401, 401,
    ]);
    expect(s.taps).toEqual([]);
    expect(s.fake.requests.length).toBe(calls);
    expect(s.fake.messages(SLACK_TEST_CHANNEL)[0]!.edits).toBe(0);
  });

  it("answers /hitl (any text) ephemerally with the channel's target string", async () => {
    s = await setupSlack();
    for (const text of ['id', '']) {
      const body = slashCommandForm({
        fake: s.fake,
        command: '/hitl',
        text,
        channelId: 'C0TARGET',
        userId: 'U0ANN',
      });
      const res = await send(body, signSlackRequest(SLACK_TEST_SIGNING_SECRET, body));
      expect(res.status).toBe(200);
      expect(JSON.parse(res.text)).toEqual({
        response_type: 'ephemeral',
        text: expect.stringContaining('slack:C0TARGET'),
      });
    }
  });

  it("answers Slack's ssl_check and refuses a body it cannot read", async () => {
    s = await setupSlack();
    const check = 'ssl_check=1&token=legacyVerificationToken0';
    expect((await send(check, signSlackRequest(SLACK_TEST_SIGNING_SECRET, check))).status).toBe(
      200,
    );
    const junk = 'payload=%7Bnot-json';
    expect((await send(junk, signSlackRequest(SLACK_TEST_SIGNING_SECRET, junk))).status).toBe(400);
  });

  it('is not ready before start and after stop', async () => {
    s = await setupSlack();
    await s.adapter.stop();
    const body = 'command=%2Fhitl&channel_id=C1&user_id=U1';
    expect((await send(body, signSlackRequest(SLACK_TEST_SIGNING_SECRET, body))).status).toBe(503);
  });

  it('leaks no secret into the fake or the logs through the tap path', async () => {
    s = await setupSlack({ onTap: async () => reply('failed', 'The service did not answer.') });
    const ref = await postCard();
    await tapButton({
      fake: s.fake,
      adapter: s.adapter,
      ref,
      action: 'approve',
      user: ann,
      relayUrl: s.relayUrl,
    });
    const body = await tapBody(ref, 'approve');
    await send(body, signSlackRequest('0000wrongsecret0000', body));
    const all = [...s.fake.requests.map((r) => r.body), ...s.logs].join('\n');
    for (const secret of SLACK_TEST_SECRETS) expect(all).not.toContain(secret);
  });
});
