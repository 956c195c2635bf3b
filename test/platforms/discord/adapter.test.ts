import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { Tap, TapReply } from '../../../src/adapter.ts';
import { PlatformError } from '../../../src/errors.ts';
import {
  componentInteraction,
  type DiscordHarness,
  makeDiscordHarnessWith,
  makeSigningKeys,
  signInteraction,
  TEST_DISCORD_CHANNEL_ID,
  TEST_DISCORD_TOKEN,
  visibleText,
} from './harness.ts';
import { makeCard, makeContext, serveRoutes } from './helpers.ts';

let harness: DiscordHarness | null = null;
const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
  await harness?.adapter.stop();
  await harness?.close();
  harness = null;
});

async function setup(onTap: (tap: Tap) => Promise<TapReply>, options = {}) {
  const h = await makeDiscordHarnessWith(options);
  harness = h;
  const ctx = makeContext(onTap);
  await h.adapter.start(ctx);
  const relay = await serveRoutes(h.adapter.routes);
  cleanups.push(relay.close);
  return { h, ctx, relay };
}

const noTap = async (): Promise<TapReply> => {
  throw new Error('no tap expected');
};

/** POSTs a signed interaction body to the relay's Discord route. */
async function postInteraction(
  h: DiscordHarness,
  url: string,
  payload: unknown,
  headers?: Record<string, string>,
) {
  const body = JSON.stringify(payload);
  return fetch(`${url}/discord/interactions`, {
    method: 'POST',
    headers: headers ?? signInteraction(h.privateKey, body),
    body,
  });
}

describe('Discord adapter against the fake REST API', () => {
  it('posts content and components with allowed_mentions.parse empty; @everyone is shown as text', async () => {
    const { h } = await setup(noTap);
    const ref = await h.adapter.post(
      TEST_DISCORD_CHANNEL_ID,
      makeCard({ prompt: '@everyone **x**' }),
    );
    expect(ref.address).toBe(TEST_DISCORD_CHANNEL_ID);
    expect(ref.id).toMatch(/^\d+:\d+$/);
    const sent = h.fake.requests().find((r) => r.method === 'POST' && r.path.endsWith('/messages'));
    expect(sent?.authorization).toBe(`Bot ${TEST_DISCORD_TOKEN}`);
    const body = JSON.parse(sent!.body);
    expect(body.allowed_mentions).toEqual({ parse: [] });
    expect(body.content).not.toContain('@everyone');
    expect(visibleText(body.content)).toContain('@everyone **x**');
    const seen = await h.read(ref);
    expect(seen.actions).toEqual(['approve', 'reject']);
    expect(seen.link).toBe('https://service.example/review/abc');
    for (const row of body.components) {
      for (const b of row.components)
        if (b.custom_id) expect(b.custom_id.length).toBeLessThanOrEqual(100);
    }
  });

  it('updates with PATCH (an identical edit succeeds) and the final card has no action buttons', async () => {
    const { h } = await setup(noTap);
    const ref = await h.adapter.post(TEST_DISCORD_CHANNEL_ID, makeCard());
    await h.adapter.update(ref, makeCard({ status: 'Still waiting' }));
    await h.adapter.update(ref, makeCard({ status: 'Still waiting' }));
    await h.adapter.update(ref, makeCard({ final: true, status: 'Approved by Ann', link: null }));
    const patches = h.fake.requests().filter((r) => r.method === 'PATCH');
    expect(patches).toHaveLength(3);
    for (const p of patches) expect(JSON.parse(p.body).allowed_mentions).toEqual({ parse: [] });
    expect(JSON.parse(patches[2]!.body).components).toEqual([]);
    const seen = await h.read(ref);
    expect(seen.actions).toEqual([]);
    expect(seen.text).toContain('Approved by Ann');
  });

  it('maps a vanished message to not_found and refuses refs that are not Discord ids', async () => {
    const { h } = await setup(noTap);
    const gone = {
      platform: 'discord',
      address: TEST_DISCORD_CHANNEL_ID,
      id: `${TEST_DISCORD_CHANNEL_ID}:42`,
    };
    await expect(h.adapter.update(gone, makeCard())).rejects.toMatchObject({
      code: 'not_found',
      status: 404,
    });
    await expect(h.adapter.post('../../oops', makeCard())).rejects.toMatchObject({
      code: 'bad_request',
    });
  });

  it('notifies as a reply that pings nobody, not even the replied-to author', async () => {
    const { h } = await setup(noTap);
    const ref = await h.adapter.post(TEST_DISCORD_CHANNEL_ID, makeCard());
    await h.adapter.notify(ref, 'Reminder: @here still waiting', {
      label: 'Details',
      url: 'https://x.example/r',
    });
    const messages = h.fake.messages(TEST_DISCORD_CHANNEL_ID);
    expect(messages).toHaveLength(2);
    const reminder = messages[1]!;
    expect(reminder.message_reference?.message_id).toBe(ref.id.split(':')[1]);
    expect(reminder.allowed_mentions).toEqual({ parse: [], replied_user: false });
    expect(reminder.content).not.toContain('@here');
    expect(reminder.components[0]!.components[0]).toMatchObject({
      style: 5,
      url: 'https://x.example/r',
    });
  });

  it('honours a short 429 (Retry-After) and delivers the update', async () => {
    const { h } = await setup(noTap);
    const ref = await h.adapter.post(TEST_DISCORD_CHANNEL_ID, makeCard());
    h.fake.rateLimitNext(1, { retryAfter: 0.2, match: /^PATCH / });
    await h.adapter.update(ref, makeCard({ status: 'After the wait' }));
    expect(h.fake.requests().filter((r) => r.method === 'PATCH')).toHaveLength(2);
    expect((await h.read(ref)).text).toContain('After the wait');
  });

  it('gives up on a long 429 with rate_limited and retryAfterMs', async () => {
    const { h } = await setup(noTap, { maxRateLimitWaitMs: 1000 });
    h.fake.rateLimitNext(1, { retryAfter: 60 });
    const error = await h.adapter
      .post(TEST_DISCORD_CHANNEL_ID, makeCard())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PlatformError);
    expect(error).toMatchObject({ code: 'rate_limited' });
    expect((error as PlatformError).retryAfterMs).toBeGreaterThanOrEqual(60_000);
  });

  it('answers PING with type 1 and /hitl id with an ephemeral target string', async () => {
    const { h, relay } = await setup(noTap);
    const ping = JSON.parse(readFileSync(new URL('./fixtures/ping.json', import.meta.url), 'utf8'));
    const pong = await postInteraction(h, relay.url, ping);
    expect(pong.status).toBe(200);
    expect(await pong.json()).toEqual({ type: 1 });
    const command = JSON.parse(
      readFileSync(new URL('./fixtures/command-hitl-id.json', import.meta.url), 'utf8'),
    );
    const res = await postInteraction(h, relay.url, command);
    const answer = await res.json();
    expect(answer.type).toBe(4);
    expect(answer.data.flags).toBe(64);
    expect(answer.data.allowed_mentions).toEqual({ parse: [] });
    expect(answer.data.content).toContain('`discord:645027906669510667`');
  });

  it('refuses a bad signature with 401 and changes nothing', async () => {
    let taps = 0;
    const { h, relay } = await setup(async () => {
      taps += 1;
      return { outcome: 'submitted', text: 'ok', card: null };
    });
    const ref = await h.adapter.post(TEST_DISCORD_CHANNEL_ID, makeCard());
    const before = h.fake.requests().length;
    const message = h.fake.message(TEST_DISCORD_CHANNEL_ID, ref.id.split(':')[1]!)!;
    const payload = componentInteraction({
      message,
      customId: 'hitl:k7f3q:approve',
      user: h.users.allowed,
    });
    const body = JSON.stringify(payload);
    const forged = signInteraction(makeSigningKeys().privateKey, body);
    const res = await postInteraction(h, relay.url, payload, forged);
    expect(res.status).toBe(401);
    // Like every inbound refusal, a JSON error.
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toMatchObject({ error: 'invalid_signature' });
    const unsigned = await postInteraction(h, relay.url, payload, {
      'content-type': 'application/json',
    });
    expect(unsigned.status).toBe(401);
    await h.adapter.drain();
    expect(taps).toBe(0);
    expect(h.fake.requests().length).toBe(before);
    expect((await h.read(ref)).actions).toEqual(['approve', 'reject']);
  });

  it('answers a quick tap with UPDATE_MESSAGE (type 7) carrying the card', async () => {
    const taps: Tap[] = [];
    const { h, relay } = await setup(async (tap) => {
      taps.push(tap);
      return {
        outcome: 'submitted',
        text: 'Approved',
        card: makeCard({ final: true, status: 'Approved by Ann' }),
      };
    });
    const ref = await h.adapter.post(TEST_DISCORD_CHANNEL_ID, makeCard());
    const { notice } = await h.tap({
      ref,
      action: 'approve',
      user: h.users.allowed,
      relayUrl: relay.url,
    });
    expect(notice).toBeNull();
    expect(taps[0]).toMatchObject({ key: 'k7f3q', action: 'approve', user: h.users.allowed, ref });
    const seen = await h.read(ref);
    expect(seen.actions).toEqual([]);
    expect(seen.text).toContain('Approved by Ann');
  });

  it('shows a non-submitted outcome to the person only, as an ephemeral follow-up', async () => {
    const { h, relay } = await setup(async () => ({
      outcome: 'forbidden',
      text: 'You are not allowed to answer this (ask @everyone)',
      card: makeCard(),
    }));
    const ref = await h.adapter.post(TEST_DISCORD_CHANNEL_ID, makeCard());
    const { notice } = await h.tap({
      ref,
      action: 'approve',
      user: h.users.stranger,
      relayUrl: relay.url,
    });
    expect(notice).toBe('You are not allowed to answer this (ask @everyone)');
    const followUp = h.fake.requests().find((r) => r.path.startsWith('/api/v10/webhooks/'));
    expect(followUp?.authorization).toBeUndefined();
    const body = JSON.parse(followUp!.body);
    expect(body.flags).toBe(64);
    expect(body.allowed_mentions).toEqual({ parse: [] });
    expect((await h.read(ref)).actions).toEqual(['approve', 'reject']);
  });

  it('defers a slow tap (type 6) and sends the follow-up when it resolves', async () => {
    let release: (reply: TapReply) => void = () => {};
    const { h, relay } = await setup(
      () => new Promise<TapReply>((resolve) => (release = resolve)),
      { tapDeadlineMs: 20 },
    );
    const ref = await h.adapter.post(TEST_DISCORD_CHANNEL_ID, makeCard());
    const message = h.fake.message(TEST_DISCORD_CHANNEL_ID, ref.id.split(':')[1]!)!;
    const payload = componentInteraction({
      message,
      customId: 'hitl:k7f3q:approve',
      user: h.users.allowed,
    });
    h.fake.registerInteraction({
      id: payload.id as string,
      token: payload.token as string,
      channelId: TEST_DISCORD_CHANNEL_ID,
      messageId: message.id,
    });
    const res = await postInteraction(h, relay.url, payload);
    expect(await res.json()).toEqual({ type: 6 });
    release({ outcome: 'busy', text: 'Someone else is answering right now', card: null });
    await h.adapter.drain();
    expect(h.fake.followUps(payload.token as string)).toEqual([
      'Someone else is answering right now',
    ]);
  });

  it('handles a redelivered interaction id once', async () => {
    let taps = 0;
    const { h, relay } = await setup(async () => {
      taps += 1;
      return { outcome: 'submitted', text: 'ok', card: makeCard({ status: 'Approved' }) };
    });
    const ref = await h.adapter.post(TEST_DISCORD_CHANNEL_ID, makeCard());
    const message = h.fake.message(TEST_DISCORD_CHANNEL_ID, ref.id.split(':')[1]!)!;
    const payload = componentInteraction({
      message,
      customId: 'hitl:k7f3q:approve',
      user: h.users.allowed,
    });
    const first = await (await postInteraction(h, relay.url, payload)).json();
    const second = await (await postInteraction(h, relay.url, payload)).json();
    expect(first.type).toBe(7);
    expect(second).toEqual({ type: 6 });
    expect(taps).toBe(1);
  });

  it('never sends the bot token in a request body', async () => {
    const { h, relay } = await setup(async () => ({
      outcome: 'closed',
      text: 'Already answered',
      card: makeCard(),
    }));
    const ref = await h.adapter.post(TEST_DISCORD_CHANNEL_ID, makeCard());
    await h.adapter.update(ref, makeCard({ status: 'x' }));
    await h.adapter.notify(ref, 'Reminder', null);
    await h.tap({ ref, action: 'reject', user: h.users.allowed, relayUrl: relay.url });
    const bodies = h.requests();
    expect(bodies.length).toBeGreaterThanOrEqual(4);
    for (const body of bodies) {
      expect(body).not.toContain(TEST_DISCORD_TOKEN);
      expect(body).not.toContain(TEST_DISCORD_TOKEN.split('.')[2]!);
    }
  });
});
