/**
 * Slack Socket Mode against the fake Socket Mode server: the connection is opened through
 * apps.connections.open with the app-level token, `disconnect` messages and dropped sockets are
 * survived, and an envelope Slack sends again after a reconnect is handled once.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { slashCommandForm } from '../../fakes/slack-interactions.ts';
import {
  type DemoHandle,
  eventually,
  type RelayHandle,
  startDemo,
  startRelay,
} from '../../helpers/relay-env.ts';
import { SLACK_TEST_BOT_TOKEN, SLACK_TEST_CHANNEL } from './harness.ts';
import {
  makeSlackSocketHarnessWith,
  SLACK_TEST_APP_TOKEN,
  type SlackSocketHarness,
} from './socket-harness.ts';

describe('slack Socket Mode', () => {
  let h: SlackSocketHarness;
  let demo: DemoHandle;
  let relay: RelayHandle;

  beforeEach(async () => {
    h = await makeSlackSocketHarnessWith();
    demo = await startDemo();
    relay = await startRelay({
      adapters: [h.adapter],
      allow: { [h.target]: [h.users.allowed.id] },
    });
  });
  afterEach(async () => {
    await relay?.stop();
    await demo?.stop();
    await h?.close();
  });

  /** Sends a demo case to the channel and returns the relay's id, the demo's id and the card. */
  async function sendCase(type = 'approval') {
    const response = await demo.create(type, true);
    const before = h.fake.messages(SLACK_TEST_CHANNEL).length;
    const sent = await relay.send(h.target, response);
    expect(sent.status).toBe(201);
    const message = await eventually(
      async () => h.fake.messages(SLACK_TEST_CHANNEL)[before],
      10_000,
      'the card',
    );
    return {
      id: sent.body.id as string,
      caseId: response.hitl.case_id as string,
      ref: {
        platform: 'slack',
        address: SLACK_TEST_CHANNEL,
        id: `${message.channel}:${message.ts}`,
      },
    };
  }

  async function submissionsFor(caseId: string) {
    return (await demo.submissions()).filter((s) => s.case_id === caseId);
  }

  it('opens the socket through apps.connections.open with the app-level token only', async () => {
    const opens = h.fake.calls('apps.connections.open');
    expect(opens.length).toBeGreaterThanOrEqual(1);
    expect(opens[0]!.headers.authorization).toBe(`Bearer ${SLACK_TEST_APP_TOKEN}`);
    expect(opens.map((r) => r.body).join('')).not.toContain(SLACK_TEST_BOT_TOKEN);
    expect(h.socket.connected).toBe(true);
  });

  it('answers /hitl in the ack payload, to that person only', async () => {
    const form = Object.fromEntries(
      new URLSearchParams(
        slashCommandForm({
          fake: h.fake,
          command: '/hitl',
          text: 'id',
          channelId: SLACK_TEST_CHANNEL,
          userId: h.users.allowed.id,
        }),
      ),
    );
    const ack = await h.socket.deliver('slash_commands', form);
    expect(ack.payload?.response_type).toBe('ephemeral');
    expect(String(ack.payload?.text)).toContain(`slack:${SLACK_TEST_CHANNEL}`);
  });

  it('reconnects after disconnect (refresh_requested, link_disabled) and taps still land', async () => {
    const a = await sendCase();
    h.socket.disconnect('refresh_requested');
    await eventually(async () => h.socket.connections >= 2, 10_000, 'the reconnect');
    h.socket.disconnect('link_disabled');
    await eventually(async () => h.socket.connections >= 3, 10_000, 'the second reconnect');
    await h.deliverTap({ ref: a.ref, action: 'approve', user: h.users.allowed });
    const done = await relay.until(a.id, (c) => c.status === 'completed');
    expect(done.result.action).toBe('approve');
    expect(await submissionsFor(a.caseId)).toHaveLength(1);
  });

  it('an envelope sent again after its ack was lost is handled once', async () => {
    const a = await sendCase();
    const before = h.fake.calls('chat.postEphemeral').length;
    // The adapter acks and handles the tap; the ack never reaches "Slack", which drops the socket
    // and sends the same envelope again (retry_attempt 1) on the next connection.
    const ack = await h.deliverTap({
      ref: a.ref,
      action: 'approve',
      user: h.users.allowed,
      loseAcks: 1,
    });
    expect(ack.attempts).toBe(2);
    await relay.until(a.id, (c) => c.status === 'completed');
    await h.adapter.idle();
    expect(await submissionsFor(a.caseId)).toHaveLength(1);
    // The repeat was not handed to the engine: no "already decided" notice for it.
    expect(h.fake.calls('chat.postEphemeral').length).toBe(before);
  });

  it('the socket dropped mid-run 5 times: every tap handled exactly once, no card lost', async () => {
    const cases = [];
    for (let i = 0; i < 6; i++) cases.push(await sendCase(i % 2 ? 'approval' : 'escalation'));
    const taps: Promise<unknown>[] = [];
    for (let i = 0; i < cases.length; i++) {
      const c = cases[i]!;
      const action = i % 2 ? 'approve' : 'skip';
      // Every other tap loses its ack (delivered again after the reconnect); the rest are sent
      // while the socket is down and wait for the next connection.
      if (i < 5) {
        // Each of these ends its connection (a lost ack drops it too): wait for the next one, not
        // for "connected", which the old connection still is until the lost ack comes in.
        const before = h.socket.connections;
        if (i % 2) {
          taps.push(h.deliverTap({ ref: c.ref, action, user: h.users.allowed, loseAcks: 1 }));
        } else {
          h.socket.drop();
          taps.push(h.deliverTap({ ref: c.ref, action, user: h.users.allowed }));
        }
        await eventually(
          async () => h.socket.connected && h.socket.connections > before,
          10_000,
          'the reconnect',
        );
      } else {
        taps.push(h.deliverTap({ ref: c.ref, action, user: h.users.allowed }));
      }
    }
    await Promise.all(taps);
    expect(h.socket.connections).toBeGreaterThanOrEqual(6);
    for (const c of cases) {
      await relay.until(c.id, (x) => x.status === 'completed');
      expect(await submissionsFor(c.caseId)).toHaveLength(1);
    }
    // Every card reached its final state (no buttons) and none was posted twice.
    expect(h.fake.messages(SLACK_TEST_CHANNEL).filter((m) => m.blocks.length)).toHaveLength(6);
    for (const c of cases)
      await eventually(
        async () => (await h.read(c.ref)).actions.length === 0,
        10_000,
        'final card',
      );
  });

  it('acks within 3 s when the service takes 4 s to answer the submit', async () => {
    const a = await sendCase();
    await demo.fault({ route: 'respond', kind: 'slow', count: 1, delay_ms: 4_000 });
    const ack = await h.deliverTap({ ref: a.ref, action: 'approve', user: h.users.allowed });
    expect(ack.attempts).toBe(1);
    expect(ack.ms).toBeLessThan(3_000);
    await relay.until(a.id, (c) => c.status === 'completed', 15_000);
    expect(await submissionsFor(a.caseId)).toHaveLength(1);
    // The final card goes through chat.update (the bot API), never the tap's response_url.
    await eventually(async () => (await h.read(a.ref)).actions.length === 0, 10_000, 'final card');
    expect(h.fake.calls('chat.update').length).toBeGreaterThan(0);
    expect(h.fake.requests.some((r) => r.method.startsWith('actions/'))).toBe(false);
  });
});
