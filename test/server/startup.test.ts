/**
 * Start-up checks: a refused token is one clear line and a 503 /readyz naming the platform and the
 * variable to fix; a platform that is unreachable at start is retried with backoff until it answers,
 * and the relay becomes ready without a restart.
 */
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { createDiscordAdapter } from '../../platforms/discord/index.ts';
import { createSlackAdapter } from '../../platforms/slack/index.ts';
import { createTelegramAdapter } from '../../platforms/telegram/index.ts';
import { startFakeDiscord } from '../fakes/discord-api.ts';
import { FakeSlack } from '../fakes/slack-api.ts';
import { FakeTelegramApi } from '../fakes/telegram-api.ts';
import { gate } from '../helpers/gate.ts';
import { eventually, logLines, type RelayHandle, startRelay } from '../helpers/relay-env.ts';
import { TEST_DISCORD_APPLICATION_ID } from '../platforms/discord/harness.ts';
import { SLACK_TEST_BOT_TOKEN, SLACK_TEST_SIGNING_SECRET } from '../platforms/slack/harness.ts';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

async function readyz(relay: RelayHandle): Promise<{ status: number; body: any }> {
  const res = await request(`${relay.url}/readyz`);
  return { status: res.statusCode, body: await res.body.json() };
}

describe('start-up checks', () => {
  it('a refused Telegram token: /readyz 503 names the platform, the reason and TELEGRAM_BOT_TOKEN', async () => {
    const fake = await FakeTelegramApi.start();
    cleanup.push(() => fake.close());
    const adapter = createTelegramAdapter({ botToken: '1:wrong-token', apiRoot: fake.apiRoot });
    const from = logLines.length;
    const relay = await startRelay({ adapters: [adapter], startRetry: { minMs: 5, maxMs: 20 } });
    cleanup.push(() => relay.stop());
    const r = await readyz(relay);
    expect(r.status).toBe(503);
    expect(r.body.ready).toBe(false);
    expect(r.body.parts['platform:telegram']).toMatchObject({ state: 'failed' });
    expect(r.body.parts['platform:telegram'].reason).toMatch(/401.*TELEGRAM_BOT_TOKEN/s);
    expect(Date.parse(r.body.parts['platform:telegram'].since)).not.toBeNaN();
    expect(r.body.parts.store).toMatchObject({ state: 'up', reason: null });
    // One clear line, no retries: a refused token does not get better by asking again.
    const lines = logLines.slice(from).filter((l) => l.includes('platform:telegram'));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: 50, env: 'TELEGRAM_BOT_TOKEN' });
    expect(fake.calls('getMe')).toHaveLength(1);
    // /healthz still says the process lives; only /readyz says it cannot work.
    expect((await request(`${relay.url}/healthz`)).statusCode).toBe(200);
  });

  it('a refused Discord token is caught at start in HTTP interactions mode', async () => {
    const fake = await startFakeDiscord({
      token: 'right-token',
      applicationId: TEST_DISCORD_APPLICATION_ID,
    });
    cleanup.push(() => fake.close());
    const adapter = createDiscordAdapter({
      token: 'wrong-token',
      applicationId: TEST_DISCORD_APPLICATION_ID,
      publicKey: 'a'.repeat(64),
      apiUrl: fake.apiUrl,
      mode: 'http',
    });
    const relay = await startRelay({ adapters: [adapter] });
    cleanup.push(() => relay.stop());
    const r = await readyz(relay);
    expect(r.status).toBe(503);
    expect(r.body.parts['platform:discord'].state).toBe('failed');
    expect(r.body.parts['platform:discord'].reason).toMatch(/401.*DISCORD_TOKEN/s);
  });

  it('a refused Slack token: /readyz names SLACK_BOT_TOKEN', async () => {
    const fake = await FakeSlack.start({ botToken: SLACK_TEST_BOT_TOKEN });
    cleanup.push(() => fake.close());
    const adapter = createSlackAdapter(
      {
        botToken: 'xoxb-0000-0000-wrongTokenForTests',
        signingSecret: SLACK_TEST_SIGNING_SECRET,
        apiUrl: fake.apiUrl,
        mode: 'http',
      },
      { retryConfig: { retries: 0 } },
    );
    const relay = await startRelay({ adapters: [adapter] });
    cleanup.push(() => relay.stop());
    const r = await readyz(relay);
    expect(r.status).toBe(503);
    expect(r.body.parts['platform:slack']).toMatchObject({ state: 'failed' });
    expect(r.body.parts['platform:slack'].reason).toMatch(/invalid_auth.*SLACK_BOT_TOKEN/);
  });

  it('a platform unreachable at start is retried with backoff and the relay becomes ready without a restart', async () => {
    const fake = await FakeTelegramApi.start();
    const network = await gate(fake.apiRoot);
    cleanup.push(async () => {
      await network.close();
      await fake.close();
    });
    const adapter = createTelegramAdapter({
      botToken: fake.token,
      apiRoot: network.url,
      pollingTimeoutSeconds: 1,
    });
    const from = logLines.length;
    const relay = await startRelay({ adapters: [adapter], startRetry: { minMs: 10, maxMs: 40 } });
    cleanup.push(() => relay.stop());
    const down = await readyz(relay);
    expect(down.status).toBe(503);
    expect(down.body.parts['platform:telegram']).toMatchObject({ state: 'down' });
    expect(down.body.parts['platform:telegram'].reason).toMatch(/network|getMe/);
    // Each attempt is logged; wait for a few before the network comes back.
    const attempts = () =>
      logLines.slice(from).filter((l) => /telegram start failed \(attempt \d+\)/.test(l)).length;
    await eventually(async () => attempts() >= 3, 10_000, 'three logged attempts');
    network.open();
    const up = await eventually(
      async () => {
        const r = await readyz(relay);
        return r.status === 200 ? r : undefined;
      },
      10_000,
      'ready',
    );
    expect(up.body.parts['platform:telegram']).toMatchObject({ state: 'up', reason: null });
    expect(fake.calls('getMe').length).toBeGreaterThanOrEqual(1);
    expect(logLines.slice(from).some((l) => /telegram is up after \d+ attempts/.test(l))).toBe(
      true,
    );
  });

  it('a platform that stops working after start shows on /readyz (Telegram polling ended by a 409)', async () => {
    const fake = await FakeTelegramApi.start();
    cleanup.push(() => fake.close());
    const adapter = createTelegramAdapter({
      botToken: fake.token,
      apiRoot: fake.apiRoot,
      botInfo: fake.botInfo,
      pollingTimeoutSeconds: 1,
    });
    const relay = await startRelay({ adapters: [adapter] });
    cleanup.push(() => relay.stop());
    expect((await readyz(relay)).status).toBe(200);
    // Someone sets a webhook for the same bot: Telegram then answers getUpdates with 409.
    await fetch(`${fake.apiRoot}/bot${fake.token}/setWebhook`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'https://127.0.0.1:9/telegram/webhook' }),
    });
    const down = await eventually(async () => {
      const r = await readyz(relay);
      return r.status === 503 ? r : undefined;
    });
    expect(down.body.parts['platform:telegram'].state).toBe('failed');
    expect(down.body.parts['platform:telegram'].reason).toMatch(/long polling stopped.*409/);
  });

  it('LOW-PLATFORMS-2: with zero chat platforms /readyz stays ready and says so in its notes', async () => {
    const relay = await startRelay({ adapters: [] });
    cleanup.push(() => relay.stop());
    const r = await readyz(relay);
    expect(r.status).toBe(200);
    expect(r.body.notes?.platforms).toMatch(/^no chat platform is enabled/);
  });

  it('LOW-READYZ-FILES-1: /readyz turns not ready, naming the file, when the SQLite files are deleted', async () => {
    const relay = await startRelay({ adapters: [] });
    cleanup.push(() => relay.stop());
    expect((await readyz(relay)).status).toBe(200);
    // As `rm -rf "$DATA_DIR"/*.sqlite*` would: the relay's store and the asks service's.
    const files = readdirSync(relay.dataDir).filter((f) => f.includes('.sqlite'));
    expect(files).toContain('hitl-relay.sqlite');
    expect(files).toContain('asks.sqlite');
    for (const f of files) rmSync(join(relay.dataDir, f));
    const r = await readyz(relay);
    expect(r.status).toBe(503);
    expect(r.body.ready).toBe(false);
    const store = r.body.parts.store;
    expect(store).toMatchObject({ state: 'down' });
    expect(store.reason).toContain(`${join(relay.dataDir, 'hitl-relay.sqlite')} was deleted`);
    // The asks service's file too: its asks would be written to the lost inode as well.
    const asks = r.body.parts.asks;
    expect(asks).toMatchObject({ state: 'down' });
    expect(asks.reason).toContain(`${join(relay.dataDir, 'asks.sqlite')} was deleted`);
  });
});
