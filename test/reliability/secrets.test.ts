/**
 * The secret scan. The whole flow runs — the web chat and Telegram, Slack, Discord and Teams through
 * their harnesses, a fan-out route, taps allowed and refused, a failed submit and its retry, a
 * review-page answer confirmed by a signed callback, a notify_url delivery, a Details link — with
 * recognisable secrets: submit tokens, review tokens, bot tokens, signing secrets, the API key,
 * RELAY_SECRET_KEY, the callback and notify secrets. Then every log line, every API response, every
 * request the fakes received and every column of every table of the SQLite store are searched for
 * them: zero occurrences.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { AdapterHarness } from '../contract/harness.ts';
import {
  type DemoHandle,
  eventually,
  logLines,
  type RelayHandle,
  startDemo,
  startRelay,
} from '../helpers/relay-env.ts';
import { makeDiscordHarness, TEST_DISCORD_TOKEN } from '../platforms/discord/harness.ts';
import {
  makeSlackHarness,
  SLACK_TEST_BOT_TOKEN,
  SLACK_TEST_SIGNING_SECRET,
} from '../platforms/slack/harness.ts';
import { makeTeamsHarness } from '../platforms/teams/harness.ts';
import { makeTelegramPollingHarness } from '../platforms/telegram/harness.ts';
import { makeWebHarness } from '../platforms/web-harness.ts';
import { type HostileService, startHostileService } from './hostile-service.ts';

const API_KEY = 'SCAN-api-key-7f3a9c2e1b4d';
const SECRET_KEY = 'SCAN-secret-key-5d8e2f1a9c3b';
const NOTIFY_SECRET = 'SCAN-notify-secret-2c6e8a0f4d';
const CALLBACK_SECRET = 'SCAN-callback-secret-3b7c9d1e5f';
/** The agent's credential for the service's poll_url, given as service_auth (sealed, never shown). */
const SERVICE_KEY = 'SCAN-service-key-8e1d4c7a2b9f';

/** Secrets by name; per-case tokens are added as cases are created. */
const secrets = new Map<string, string>([
  ['RELAY_API_KEY', API_KEY],
  ['RELAY_SECRET_KEY', SECRET_KEY],
  ['RELAY_NOTIFY_SECRET', NOTIFY_SECRET],
  ['callback secret', CALLBACK_SECRET],
  ['service_auth header', SERVICE_KEY],
  ['Slack bot token', SLACK_TEST_BOT_TOKEN],
  ['Slack signing secret', SLACK_TEST_SIGNING_SECRET],
  ['Discord bot token', TEST_DISCORD_TOKEN],
]);
/** Secrets whose exact value the harnesses keep to themselves, found by their shape. */
const shapes = new Map<string, RegExp>([
  ['Telegram bot token', /\b\d{6,12}:[A-Za-z0-9_-]{30,}/],
  ['Discord interaction token', /aW50ZXJhY3Rpb246[A-Za-z0-9_-]{16,}/],
  ['a review URL token', /[?&]token=[A-Za-z0-9_-]{16,}/],
  ['a bearer token', /Bearer\s+[A-Za-z0-9._~+/=-]{16,}/],
]);

const dataDir = mkdtempSync(join(tmpdir(), 'hitl-secrets-'));
const responses: string[] = [];
let demo: DemoHandle;
let relay: RelayHandle;
let notified: HostileService;
let harnesses: AdapterHarness[] = [];

const auth = { authorization: `Bearer ${API_KEY}` };
async function api(path: string): Promise<any> {
  const res = await request(`${relay.url}${path}`, { headers: auth });
  const text = await res.body.text();
  responses.push(JSON.stringify(res.headers), text);
  return JSON.parse(text);
}

/** A demo case whose tokens join the scan list. */
async function createCase(type: string, body: Record<string, unknown> = {}) {
  const response = await demo.create(type, true, body);
  const { case_id, submit_token, review_url } = response.hitl;
  secrets.set(`submit_token of ${case_id}`, submit_token);
  secrets.set(`review URL of ${case_id}`, review_url);
  secrets.set(`review token of ${case_id}`, new URL(review_url).searchParams.get('token')!);
  return response;
}

async function sendCase(target: string, response: any, extra: Record<string, unknown> = {}) {
  const sent = await relay.send(target, response, extra);
  responses.push(JSON.stringify(sent.body));
  expect(sent.status, JSON.stringify(sent.body)).toBe(201);
  return sent.body.id as string;
}

const address = (h: AdapterHarness) => h.target.slice(h.target.indexOf(':') + 1);
async function newCard(h: AdapterHarness, before: number) {
  const refs = await eventually(
    async () => {
      const all = await h.messages(address(h));
      return all.length > before ? all : null;
    },
    10_000,
    `a card on ${h.target}`,
  );
  return refs.at(-1)!;
}

beforeAll(async () => {
  demo = await startDemo({ callbackSecret: CALLBACK_SECRET });
  notified = await startHostileService();
  harnesses = [
    await makeWebHarness(),
    await makeTelegramPollingHarness(),
    await makeSlackHarness(),
    await makeDiscordHarness(),
    await makeTeamsHarness(),
  ];
  const configFile = join(dataDir, 'scan-config.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      allow: Object.fromEntries(harnesses.map((h) => [h.target, [h.users.allowed.id]])),
      routes: { everywhere: { targets: harnesses.map((h) => h.target) } },
      callback_secrets: { [new URL(demo.url).origin]: CALLBACK_SECRET },
    }),
  );
  relay = await startRelay({
    adapters: harnesses.map((h) => h.adapter),
    dataDir,
    env: {
      RELAY_CONFIG: configFile,
      RELAY_API_KEY: API_KEY,
      RELAY_SECRET_KEY: SECRET_KEY,
      RELAY_NOTIFY_SECRET: NOTIFY_SECRET,
      HOST: '127.0.0.1',
      RELAY_ALLOW_HTTP_LOOPBACK: '1',
    },
  });
  for (const h of harnesses) await h.attach?.(relay.url);
}, 60_000);

let stopped = false;
afterAll(async () => {
  if (!stopped) await relay?.stop();
  for (const h of harnesses) await h.close();
  await notified?.close();
  await demo?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

it('runs the whole flow on every platform and finds no secret anywhere', async () => {
  // 1. On each platform: a stranger's tap is refused, the allowed person's tap submits.
  for (const h of harnesses) {
    const before = (await h.messages(address(h))).length;
    const id = await sendCase(h.target, await createCase('approval'));
    const ref = await newCard(h, before);
    await h.tap({ ref, action: 'approve', user: h.users.stranger, relayUrl: relay.url });
    await h.tap({ ref, action: 'approve', user: h.users.allowed, relayUrl: relay.url });
    await relay.until(id, (c) => c.status === 'completed');
    await eventually(async () => (await h.read(ref)).actions.length === 0, 10_000, 'final card');
    responses.push(JSON.stringify(await h.read(ref)));
  }

  // 2. A failed submit (the service answers 500; a POST that reached it is not repeated), then a
  // later tap that works.
  const tg = harnesses[1]!;
  const before = (await tg.messages(address(tg))).length;
  const failing = await sendCase(tg.target, await createCase('escalation'));
  const ref = await newCard(tg, before);
  // One POST per tap (a 5xx is never repeated): the first tap meets the fault, the second works.
  await demo.fault({ route: 'respond', kind: '500', count: 1 });
  const failed = await tg.tap({ ref, action: 'skip', user: tg.users.allowed, relayUrl: relay.url });
  expect(failed.notice).toMatch(/nothing was decided/);
  await tg.tap({ ref, action: 'skip', user: tg.users.allowed, relayUrl: relay.url });
  await relay.until(failing, (c) => c.status === 'completed');

  // 3. A fan-out route: one tap on Slack ends the cards on all five platforms.
  const counts = await Promise.all(
    harnesses.map(async (h) => (await h.messages(address(h))).length),
  );
  const routed = await sendCase('route:everywhere', await createCase('approval'));
  const refs = await Promise.all(harnesses.map((h, i) => newCard(h, counts[i]!)));
  const slack = harnesses[2]!;
  await slack.tap({
    ref: refs[2]!,
    action: 'reject',
    user: slack.users.allowed,
    relayUrl: relay.url,
  });
  await relay.until(routed, (c) => c.status === 'completed');
  for (const [i, h] of harnesses.entries())
    await eventually(async () => (await h.read(refs[i]!)).actions.length === 0, 10_000, 'fan-out');

  // 4. Answered on the review page; the service's signed callback makes the relay look at once.
  const callbackUrl = `${relay.url}${relay.relay.services.config.callbackPath}`;
  const viaPage = await createCase('confirmation', { hitl_callback_url: callbackUrl });
  const paged = await sendCase('web:contract', viaPage, {
    notify_url: `${notified.url}/notify`,
    service_auth: { headers: { 'X-Api-Key': SERVICE_KEY } },
  });
  await demo.act(viaPage.hitl.case_id, { step: 'respond', action: 'confirm', data: {} });
  await relay.until(paged, (c) => c.status === 'completed');
  await eventually(async () => notified.requests.length > 0, 15_000, 'the notify_url delivery');

  // 5. The Details link: the one place the review URL goes, as a redirect to the person's browser.
  const card = (await api('/web/api/rooms/contract/messages')).at(-1);
  const hop = await request(card.link.url);
  expect(hop.statusCode).toBe(303);
  responses.push(await hop.body.text());
  // The control: the scan does find a secret where one legitimately is (the redirect's Location).
  const location = String(hop.headers.location);
  expect([...secrets.values()].filter((v) => location.includes(v)).length).toBeGreaterThan(0);
  expect(shapes.get('a review URL token')!.test(location)).toBe(true);

  // 6. Refusals carry no secret either.
  const badKey = await request(`${relay.url}/v1/cases`, {
    headers: { authorization: `Bearer ${API_KEY}x` },
  });
  responses.push(await badKey.body.text());
  const refused = await createCase('approval');
  refused.hitl.poll_url = 'https://169.254.169.254/latest';
  refused.hitl.submit_token = `${refused.hitl.submit_token}`.slice(0, 10);
  responses.push(JSON.stringify((await relay.send('web:contract', refused)).body));

  // 7. Everything the agent can read.
  const list = await api('/v1/cases?limit=500');
  for (const c of list.cases) await api(`/v1/cases/${c.id}`);
  await api(`/v1/cases/${paged}/wait?timeout=0`);
  const metrics = await request(`${relay.url}/metrics`, {
    headers: { authorization: `Bearer ${API_KEY}` },
  });
  expect(metrics.statusCode).toBe(200);
  responses.push(await metrics.body.text());

  await relay.stop();
  stopped = true;
  const db = new Database(join(dataDir, 'hitl-relay.sqlite'), { readonly: true });
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as Array<{
    name: string;
  }>;
  const store = tables.map(({ name }) =>
    JSON.stringify(db.prepare(`SELECT * FROM "${name}"`).all()),
  );
  const sealed = db.prepare('SELECT secrets FROM cases').all() as Array<{ secrets: string }>;
  db.close();

  const haystacks: Record<string, string> = {
    logs: logLines.join('\n'),
    'API responses': [...responses, ...harnesses[0]!.requests()].join('\n'),
    'requests the fakes received': [
      ...harnesses.slice(1).flatMap((h) => h.requests()),
      ...notified.requests.map((r) => `${JSON.stringify(r.headers)}\n${r.body}`),
    ].join('\n'),
    store: store.join('\n'),
  };
  // The scan looked at something: a busy log, many responses, platform traffic, a full store.
  expect(logLines.length).toBeGreaterThan(50);
  expect(haystacks['requests the fakes received']!.length).toBeGreaterThan(10_000);
  expect(list.cases.length).toBe(8);
  expect(sealed.length).toBe(list.cases.length);
  for (const s of sealed) expect(s.secrets).toMatch(/^v1:/);

  const found: string[] = [];
  for (const [where, text] of Object.entries(haystacks)) {
    for (const [name, value] of secrets)
      if (text.includes(value)) found.push(`${name} in ${where}`);
    for (const [name, re] of shapes)
      if (re.test(text)) found.push(`${name} in ${where}: ${re.exec(text)![0].slice(0, 12)}…`);
  }
  expect(found).toEqual([]);
}, 120_000);
