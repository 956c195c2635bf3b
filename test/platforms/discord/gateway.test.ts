/**
 * Discord gateway mode against the fake gateway: discord.js finds it through `GET /gateway/bot`,
 * identifies, heartbeats, resumes after a dropped connection, op 7 and op 9, and a tap the gateway
 * replays after RESUME is handled once.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type DemoHandle,
  eventually,
  type RelayHandle,
  startDemo,
  startRelay,
} from '../../helpers/relay-env.ts';
import {
  type DiscordGatewayHarness,
  hitlIdCommand,
  makeDiscordGatewayHarnessWith,
} from './gateway-harness.ts';
import { TEST_DISCORD_CHANNEL_ID, TEST_DISCORD_TOKEN } from './harness.ts';

describe('discord gateway mode', () => {
  let h: DiscordGatewayHarness;
  let demo: DemoHandle;
  let relay: RelayHandle;

  beforeEach(async () => {
    h = await makeDiscordGatewayHarnessWith();
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

  async function sendCase(type = 'approval') {
    const response = await demo.create(type, true);
    const before = h.fake.messages(TEST_DISCORD_CHANNEL_ID).length;
    const sent = await relay.send(h.target, response);
    expect(sent.status).toBe(201);
    const message = await eventually(
      async () => h.fake.messages(TEST_DISCORD_CHANNEL_ID)[before],
      10_000,
      'the card',
    );
    return {
      id: sent.body.id as string,
      caseId: response.hitl.case_id as string,
      ref: {
        platform: 'discord',
        address: TEST_DISCORD_CHANNEL_ID,
        id: `${message.channel_id}:${message.id}`,
      },
    };
  }

  async function submissionsFor(caseId: string) {
    return (await demo.submissions()).filter((s) => s.case_id === caseId);
  }

  it('finds the gateway through GET /gateway/bot and identifies once, JSON, heartbeats ACKed', async () => {
    const info = h.fake.requests().filter((r) => r.path === '/api/v10/gateway/bot');
    expect(info).toHaveLength(1);
    expect(info[0]!.authorization).toBe(`Bot ${TEST_DISCORD_TOKEN}`);
    expect(h.gateway.identifies).toBe(1);
    expect(h.gateway.connectQueries[0]).toBe('v=10&encoding=json');
    await eventually(async () => h.gateway.heartbeats >= 1, 5_000, 'a heartbeat');
  });

  it('answers /hitl id with this channel target, to that person only', async () => {
    const command = hitlIdCommand(TEST_DISCORD_CHANNEL_ID, h.users.allowed);
    const token = command.token as string;
    h.fake.registerInteraction({
      id: command.id as string,
      token,
      channelId: TEST_DISCORD_CHANNEL_ID,
      messageId: null,
    });
    h.gateway.dispatch('INTERACTION_CREATE', command);
    await h.settle(token);
    expect(h.fake.answeredWith(token)).toBe(4);
    expect(h.fake.followUps(token)[0]).toContain(`discord:${TEST_DISCORD_CHANNEL_ID}`);
  });

  it('a dropped connection resumes (no new IDENTIFY) and a tap sent meanwhile is replayed', async () => {
    const a = await sendCase();
    h.gateway.drop();
    // Sent while the socket is down: the session keeps it for the RESUME.
    const { token } = h.dispatchTap({ ref: a.ref, action: 'approve', user: h.users.allowed });
    await h.settle(token);
    expect(h.gateway.resumes).toBe(1);
    expect(h.gateway.identifies).toBe(1);
    await relay.until(a.id, (c) => c.status === 'completed');
    expect(await submissionsFor(a.caseId)).toHaveLength(1);
  });

  it('a tap the gateway replays again after RESUME is handled once', async () => {
    const a = await sendCase();
    const { token } = h.dispatchTap({ ref: a.ref, action: 'approve', user: h.users.allowed });
    await h.settle(token);
    await relay.until(a.id, (c) => c.status === 'completed');
    const callbacks = () =>
      h.fake.requests().filter((r) => r.path.startsWith('/api/v10/interactions/')).length;
    const before = callbacks();
    h.gateway.replayOverlap = 1;
    h.gateway.drop();
    await eventually(async () => h.gateway.resumes === 1 && h.gateway.live, 10_000, 'the resume');
    // The duplicate is acknowledged (Discord refuses a second answer) and not handed to the engine.
    await eventually(async () => callbacks() > before, 10_000, 'the duplicate to arrive');
    await h.adapter.drain();
    expect(await submissionsFor(a.caseId)).toHaveLength(1);
    expect(h.fake.followUps(token)).toEqual([]);
  });

  it('op 7 RECONNECT and a resumable op 9 resume the session', async () => {
    h.gateway.reconnect();
    await eventually(async () => h.gateway.resumes === 1 && h.gateway.live, 10_000, 'resume 1');
    h.gateway.invalidateSession(true);
    await eventually(async () => h.gateway.resumes === 2 && h.gateway.live, 10_000, 'resume 2');
    expect(h.gateway.identifies).toBe(1);
    const a = await sendCase();
    await h.tap({ ref: a.ref, action: 'reject', user: h.users.allowed, relayUrl: relay.url });
    await relay.until(a.id, (c) => c.status === 'completed' && c.result.action === 'reject');
  });

  it('a non-resumable op 9 makes the client IDENTIFY again; taps still land', async () => {
    h.gateway.invalidateSession(false);
    // discord.js waits out its 5 s identify throttle before the second IDENTIFY.
    await eventually(async () => h.gateway.identifies === 2 && h.gateway.live, 15_000, 'identify');
    expect(h.gateway.resumes).toBe(0);
    const a = await sendCase();
    await h.tap({ ref: a.ref, action: 'approve', user: h.users.allowed, relayUrl: relay.url });
    await relay.until(a.id, (c) => c.status === 'completed');
  }, 30_000);

  it('the connection dropped mid-run 5 times: every tap handled exactly once, no card lost', async () => {
    const cases = [];
    for (let i = 0; i < 6; i++) cases.push(await sendCase(i % 2 ? 'approval' : 'escalation'));
    const tokens: string[] = [];
    for (let i = 0; i < cases.length; i++) {
      const c = cases[i]!;
      const action = i % 2 ? 'approve' : 'skip';
      if (i < 5) {
        // Alternately: the tap arrives and the gateway also replays it, or it waits for the RESUME.
        if (i % 2) {
          tokens.push(h.dispatchTap({ ref: c.ref, action, user: h.users.allowed }).token);
          h.gateway.replayOverlap = 1;
          h.gateway.drop();
        } else {
          h.gateway.drop();
          tokens.push(h.dispatchTap({ ref: c.ref, action, user: h.users.allowed }).token);
        }
        await eventually(
          async () => h.gateway.resumes === i + 1 && h.gateway.live,
          10_000,
          'resume',
        );
      } else {
        tokens.push(h.dispatchTap({ ref: c.ref, action, user: h.users.allowed }).token);
      }
    }
    for (const token of tokens) await h.settle(token);
    expect(h.gateway.identifies).toBe(1);
    for (const c of cases) {
      await relay.until(c.id, (x) => x.status === 'completed');
      expect(await submissionsFor(c.caseId)).toHaveLength(1);
    }
    expect(h.fake.messages(TEST_DISCORD_CHANNEL_ID)).toHaveLength(6);
    for (const c of cases)
      await eventually(
        async () => (await h.read(c.ref)).actions.length === 0,
        10_000,
        'final card',
      );
  });

  it('answers within 3 s when the service takes 4 s, then edits the card', async () => {
    const a = await sendCase();
    await demo.fault({ route: 'respond', kind: 'slow', count: 1, delay_ms: 4_000 });
    const { token } = h.dispatchTap({ ref: a.ref, action: 'approve', user: h.users.allowed });
    await eventually(async () => h.fake.answeredWith(token) !== null, 10_000, 'the answer');
    expect(h.fake.answeredWith(token)).toBe(6);
    expect(h.fake.answeredAfterMs(token)).toBeLessThan(3_000);
    await relay.until(a.id, (c) => c.status === 'completed', 15_000);
    await eventually(async () => (await h.read(a.ref)).actions.length === 0, 10_000, 'final card');
    // The edit goes through the bot API (no 15-minute interaction token involved), never the webhook.
    const paths = h.fake.requests().map((r) => `${r.method} ${r.path}`);
    expect(paths.some((p) => /^PATCH \/api\/v10\/channels\/\d+\/messages\/\d+$/.test(p))).toBe(
      true,
    );
    expect(paths.some((p) => p.includes('/webhooks/') && p.startsWith('PATCH'))).toBe(false);
  });
});
