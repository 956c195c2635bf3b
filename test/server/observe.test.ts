/**
 * The lifecycle log and the metrics of one scripted run: a case fanned out to the web chat and to
 * Telegram (whose first post is rate limited), tapped, submitted, final, notify delivered. The info
 * log has one line per lifecycle event and no secret; /metrics has every series, with the values
 * of this run.
 */
import { request } from 'undici';
import { afterAll, expect, it } from 'vitest';
import { createTelegramAdapter } from '../../platforms/telegram/index.ts';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { createLogger } from '../../src/log.ts';
import { tapWhenPosted } from '../client/helpers.ts';
import { FakeTelegramApi } from '../fakes/telegram-api.ts';
import {
  type DemoHandle,
  eventually,
  logLines,
  type RelayHandle,
  startDemo,
  startRelay,
} from '../helpers/relay-env.ts';
import { startReceiver } from '../notify/receiver.ts';

const API_KEY = 'observe-api-key-0123456789';
let relay: RelayHandle | undefined;
let demo: DemoHandle | undefined;
let fake: FakeTelegramApi | undefined;
let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;
afterAll(async () => {
  await relay?.stop();
  await demo?.stop();
  await fake?.close();
  await receiver?.close();
});

it('logs each lifecycle event of a case at info, no secret anywhere, and counts it in /metrics', async () => {
  demo = await startDemo();
  fake = await FakeTelegramApi.start();
  receiver = await startReceiver({ secret: 'x'.repeat(32), failFirst: 0 });
  const telegram = createTelegramAdapter({
    botToken: fake.token,
    apiRoot: fake.apiRoot,
    botInfo: fake.botInfo,
    pace: { perChatIntervalMs: 1, groupWindowMs: 1, globalWindowMs: 1 },
    retry: { maxRetries: 0, retryAfterUnitMs: 1 },
    pollingTimeoutSeconds: 1,
  });
  relay = await startRelay({
    adapters: [createWebAdapter(), telegram],
    routes: { both: { targets: ['web:observe', 'telegram:-1007'] } },
    env: { RELAY_API_KEY: API_KEY, WEB_CHAT: '1', RELAY_ALLOW_HTTP_LOOPBACK: '1' },
    reconcileEveryMs: 50,
  });
  const from = logLines.length;
  fake.inject429('sendMessage', 1, 0);
  const body = await demo.create('approval', true);
  const sent = await relay.send('route:both', body, { notify_url: receiver.url });
  expect(sent.status).toBe(201);
  const id = sent.body.id as string;
  const tap = await tapWhenPosted(relay.url, 'observe', 'approve');
  expect(tap.outcome).toBe('submitted');
  await relay.until(
    id,
    (c) => c.final && c.messages.every((m: any) => m.state === 'posted'),
    15_000,
  );
  await relay.until(id, (c) => c.history.some((h: any) => h.kind === 'notify_delivered'), 15_000);

  const lines = logLines.slice(from).map((l) => JSON.parse(l));
  const mine = lines.filter((l) => l.case === id && l.level === 30);
  const has = (msg: string | RegExp, extra: Record<string, unknown> = {}) =>
    mine.some(
      (l) =>
        (typeof msg === 'string' ? l.msg === msg : msg.test(l.msg)) &&
        Object.entries(extra).every(([k, v]) => l[k] === v),
    );
  expect(has('case ingested', { target: 'route:both' })).toBe(true);
  expect(has('card posted', { target: 'web:observe', outcome: 'posted' })).toBe(true);
  expect(has('card posted', { target: 'telegram:-1007', outcome: 'posted' })).toBe(true);
  expect(has('tap', { target: 'web:observe', action: 'approve' })).toBe(true);
  expect(has('submit accepted', { outcome: 'accepted' })).toBe(true);
  expect(has('case final: completed', { to: 'completed' })).toBe(true);
  expect(has('notify delivered', { outcome: 'delivered' })).toBe(true);
  // The rate-limited first post is a warning naming the case and target.
  expect(lines.some((l) => l.level === 40 && l.case === id && l.target === 'telegram:-1007')).toBe(
    true,
  );

  // No secret in any line: the submit token, the review URL's token, the bot token, the API key.
  const text = logLines.slice(from).join('\n');
  const secrets = [
    body.hitl.submit_token,
    new URL(body.hitl.review_url).searchParams.get('token') ?? body.hitl.review_url,
    fake.token,
    fake.token.split(':')[1],
    API_KEY,
  ];
  for (const s of secrets) expect(text).not.toContain(s);

  // /metrics wants the API key, then shows this run.
  expect((await request(`${relay.url}/metrics`)).statusCode).toBe(401);
  const scrape = async () => {
    const res = await request(`${relay!.url}/metrics`, {
      headers: { authorization: `Bearer ${API_KEY}` },
    });
    expect(res.statusCode).toBe(200);
    return res.body.text();
  };
  const valueIn = (text: string, series: string) => {
    const line = text.split('\n').find((l) => l.startsWith(`${series} `));
    return line === undefined ? undefined : Number(line.slice(series.length + 1));
  };
  // The final card's edit and the watcher's polls run in the background: wait for their first count.
  const m = await eventually(async () => {
    const text = await scrape();
    return valueIn(text, 'hitl_relay_edits_total{platform="web",outcome="ok"}') !== undefined
      ? text
      : undefined;
  });
  const value = (series: string) => valueIn(m, series);
  expect(value('hitl_relay_posts_total{platform="web",outcome="posted"}')).toBe(1);
  expect(value('hitl_relay_posts_total{platform="telegram",outcome="retry"}')).toBe(1);
  expect(value('hitl_relay_posts_total{platform="telegram",outcome="posted"}')).toBe(1);
  expect(value('hitl_relay_platform_rate_limited_total{platform="telegram"}')).toBe(1);
  expect(value('hitl_relay_edits_total{platform="web",outcome="ok"}')).toBeGreaterThanOrEqual(1);
  expect(value('hitl_relay_submits_total{outcome="accepted",status_class="2xx"}')).toBe(1);
  expect(value('hitl_relay_notify_deliveries_total{outcome="delivered"}')).toBe(1);
  expect(value('hitl_relay_open_cases')).toBe(0);
  expect(value('hitl_relay_oldest_open_case_age_seconds')).toBe(0);
  expect(value('hitl_relay_undelivered_cases')).toBe(0);
  expect(value('hitl_relay_sse_connections')).toBe(0);
  // A second case stays open: it is polled, and the open-case gauges show it.
  expect((await relay.send('web:observe', await demo.create('input', true))).status).toBe(201);
  const open = await eventually(async () => {
    const text = await scrape();
    return valueIn(text, 'hitl_relay_polls_total{outcome="status"}') ? text : undefined;
  });
  expect(valueIn(open, 'hitl_relay_open_cases')).toBe(1);
  expect(valueIn(open, 'hitl_relay_oldest_open_case_age_seconds')).toBeGreaterThan(0);
  expect(valueIn(open, 'hitl_relay_undelivered_cases')).toBe(0);
  expect(m).toContain('# TYPE hitl_relay_lease_takeovers_total counter');
  expect(m).toContain('# TYPE hitl_relay_not_delivered_total counter');
}, 40_000);

it('pretty format: one readable line per event, scrubbed like JSON', () => {
  const out: string[] = [];
  const log = createLogger({ format: 'pretty', destination: { write: (l) => void out.push(l) } });
  log.info(
    { case: 'hc_1', target: 'web:lobby', authorization: 'Bearer abcdefghijkl' },
    'card posted',
  );
  expect(out).toHaveLength(1);
  expect(out[0]).toMatch(/INFO.*card posted.*hc_1/);
  expect(out[0]!.trim().split('\n')).toHaveLength(1);
  expect(out[0]).not.toContain('abcdefghijkl');
});
