/**
 * Every inbound endpoint (the intake API, the web chat, the callback receiver, each platform's
 * webhook) refuses an oversized body (413), a body of the wrong type (415) and a malformed or
 * forged one (4xx), each with a clear error and no stored case touched. The intake API is
 * rate-limited per API key (token bucket, 429 with Retry-After).
 */
import { Readable } from 'node:stream';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { CORE_ENV_VARS, readConfig } from '../../src/config/config.ts';
import { ValidationError } from '../../src/errors.ts';
import { MAX_BODY_BYTES } from '../../src/server/app.ts';
import { TokenBuckets } from '../../src/server/rate-limit.ts';
import type { AdapterHarness } from '../contract/harness.ts';
import { type RelayHandle, startRelay } from '../helpers/relay-env.ts';
import { makeDiscordHarness } from '../platforms/discord/harness.ts';
import { makeSlackHarness } from '../platforms/slack/harness.ts';
import { makeTeamsHarness } from '../platforms/teams/harness.ts';
import { makeTelegramWebhookHarness } from '../platforms/telegram/harness.ts';

const API_KEY = 'inbound-test-api-key-0123456789';
let relay: RelayHandle;
let harnesses: AdapterHarness[] = [];
const auth = { authorization: `Bearer ${API_KEY}` };

/** Every POST endpoint the relay serves, with a malformed-or-forged body and what it must answer. */
function endpoints(): Array<{ name: string; path: string; bad: string; status: number }> {
  return [
    { name: 'intake API', path: '/v1/cases', bad: '{"target":', status: 400 },
    {
      name: 'web chat tap',
      path: '/web/api/rooms/lobby/messages/m1/actions/approve',
      bad: 'null',
      status: 400,
    },
    {
      name: 'callback receiver',
      path: relay.relay.services.config.callbackPath,
      bad: '{"event":"review.completed","case_id":"x"}',
      status: 401,
    },
    { name: 'Telegram webhook', path: '/telegram/webhook', bad: '{"update_id":1}', status: 401 },
    {
      name: 'Slack events',
      path: '/slack/events',
      bad: '{"type":"url_verification"}',
      status: 401,
    },
    { name: 'Discord interactions', path: '/discord/interactions', bad: '{"type":1}', status: 401 },
    { name: 'Teams messages', path: '/api/messages', bad: '{"type":', status: 400 },
  ];
}

async function post(path: string, headers: Record<string, string>, body: string | Readable) {
  const res = await request(`${relay.url}${path}`, {
    method: 'POST',
    headers: { ...auth, ...headers },
    body,
  });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, text };
}

async function caseCount(): Promise<number> {
  const res = await request(`${relay.url}/v1/cases?limit=500`, { headers: auth });
  return ((await res.body.json()) as { cases: unknown[] }).cases.length;
}

beforeAll(async () => {
  harnesses = [
    await makeTelegramWebhookHarness(),
    await makeSlackHarness(),
    await makeDiscordHarness(),
    await makeTeamsHarness(),
  ];
  relay = await startRelay({
    adapters: [createWebAdapter(), ...harnesses.map((h) => h.adapter)],
    env: {
      RELAY_API_KEY: API_KEY,
      HOST: '127.0.0.1',
      RELAY_ALLOW_HTTP_LOOPBACK: '1',
      INTAKE_RATE_LIMIT_PER_MINUTE: '0',
    },
  });
  for (const h of harnesses) await h.attach?.(relay.url);
});
afterAll(async () => {
  await relay?.stop();
  for (const h of harnesses) await h.close();
});

describe('every inbound endpoint', () => {
  it('is served (none of them is a 404)', async () => {
    for (const e of endpoints()) {
      const r = await post(e.path, { 'content-type': 'application/json' }, e.bad);
      expect(r.status, `${e.name}: ${r.text}`).not.toBe(404);
    }
  });

  it('refuses a body over the size limit with 413 and a JSON error', async () => {
    const big = `{"pad":"${'a'.repeat(MAX_BODY_BYTES)}"}`;
    for (const e of endpoints()) {
      const r = await post(e.path, { 'content-type': 'application/json' }, big);
      expect(r.status, e.name).toBe(413);
      expect(JSON.parse(r.text)).toEqual({
        error: 'body_too_large',
        message: `request body over ${MAX_BODY_BYTES} bytes`,
      });
    }
  });

  it('refuses an oversized body sent without Content-Length (chunked) too', async () => {
    for (const e of endpoints()) {
      const chunks = Array.from({ length: 20 }, () => Buffer.alloc(100_000, 0x61));
      const r = await post(e.path, { 'content-type': 'application/json' }, Readable.from(chunks));
      expect(r.status, e.name).toBe(413);
    }
  });

  it('refuses a body of the wrong type with 415 naming what to send', async () => {
    for (const e of endpoints())
      for (const type of ['text/plain', 'application/xml', 'multipart/form-data; boundary=x']) {
        const r = await post(e.path, { 'content-type': type }, 'hello');
        expect(r.status, `${e.name} ${type}`).toBe(415);
        const body = JSON.parse(r.text);
        expect(body.error).toBe('unsupported_media_type');
        expect(body.message).toMatch(/application\/json/);
      }
    // A body without any Content-Type is refused the same way.
    const r = await post('/v1/cases', {}, '{}');
    expect(r.status).toBe(415);
  });

  it('answers a malformed or forged body with a clear 4xx, never a 5xx, and stores nothing', async () => {
    const before = await caseCount();
    for (const e of endpoints()) {
      const r = await post(e.path, { 'content-type': 'application/json' }, e.bad);
      expect(r.status, `${e.name}: ${r.text}`).toBe(e.status);
      expect(r.text.length, e.name).toBeGreaterThan(0);
    }
    expect(await caseCount()).toBe(before);
  });

  it('answers a JSON object that is not an activity with 400 at the Teams endpoint', async () => {
    for (const body of [
      '{}',
      '{"type":"message","serviceUrl":"not a url","conversation":{"id":"c"}}',
    ]) {
      const r = await post('/api/messages', { 'content-type': 'application/json' }, body);
      expect(r.status, r.text).toBe(400);
      expect(r.text).toMatch(/not_an_activity/);
    }
  });

  it('the intake API and the web chat take only JSON (a form is refused with 415)', async () => {
    for (const path of ['/v1/cases', '/web/api/rooms/lobby/messages/m1/actions/approve']) {
      const r = await post(path, { 'content-type': 'application/x-www-form-urlencoded' }, 'a=b');
      expect(r.status, path).toBe(415);
    }
  });
});

describe('the web chat API checks its input', () => {
  const tap = (path: string, body: string) =>
    post(path, { 'content-type': 'application/json' }, body);
  it.each([
    [
      '/web/api/rooms/bad%20room/messages/m1/actions/approve',
      '{"user":{"id":"a"}}',
      'invalid_room',
    ],
    ['/web/api/rooms/lobby/messages/m1/actions/Approve!', '{"user":{"id":"a"}}', 'invalid_action'],
    ['/web/api/rooms/lobby/messages/m1/actions/approve', '{"user":{}}', 'invalid_user'],
    ['/web/api/rooms/lobby/messages/m1/actions/approve', '[1,2]', 'invalid_user'],
    ['/web/api/rooms/lobby/messages/m1/actions/approve', '"ann"', 'invalid_user'],
    [
      '/web/api/rooms/lobby/messages/m1/actions/approve',
      `{"user":{"id":"${'a'.repeat(129)}"}}`,
      'invalid_user',
    ],
    [
      '/web/api/rooms/lobby/messages/m1/actions/approve',
      '{"user":{"id":"a","name":5}}',
      'invalid_user',
    ],
  ])('%s %s -> 400 %s', async (path, body, error) => {
    const r = await tap(path, body);
    expect(r.status).toBe(400);
    expect(JSON.parse(r.text).error).toBe(error);
  });

  it('a tap on a message that is not in the room is 404', async () => {
    const r = await tap(
      '/web/api/rooms/lobby/messages/nope/actions/approve',
      '{"user":{"id":"a"}}',
    );
    expect(r.status).toBe(404);
  });
});

describe('intake rate limit per API key', () => {
  let limited: RelayHandle;
  const KEY = 'rate-limit-test-api-key-0123456789';
  beforeAll(async () => {
    limited = await startRelay({
      adapters: [createWebAdapter()],
      env: { RELAY_API_KEY: KEY, HOST: '127.0.0.1', INTAKE_RATE_LIMIT_PER_MINUTE: '3' },
    });
  });
  afterAll(() => limited?.stop());

  const send = (key: string) =>
    request(`${limited.url}/v1/cases`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: '{}',
    });

  it('answers 429 with Retry-After once the bucket is empty; reads are not limited', async () => {
    // A request without the key is refused by auth and takes no token.
    const anonymous = await send('wrong-key-0123456789abcdef');
    expect(anonymous.statusCode).toBe(401);
    await anonymous.body.dump();
    for (let i = 0; i < 3; i++) {
      const r = await send(KEY);
      expect(r.statusCode).toBe(400); // an invalid body still counts: the limit guards the work of reading it
      await r.body.dump();
    }
    const over = await send(KEY);
    expect(over.statusCode).toBe(429);
    // One token comes back every 20 s at 3 per minute.
    const retry = Number(over.headers['retry-after']);
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(20);
    const body = (await over.body.json()) as { error: string; message: string };
    expect(body.error).toBe('rate_limited');
    expect(body.message).toMatch(/3 intake requests per minute/);
    expect(body.message).not.toContain(KEY);
    const read = await request(`${limited.url}/v1/cases`, {
      headers: { authorization: `Bearer ${KEY}` },
    });
    expect(read.statusCode).toBe(200);
    await read.body.dump();
  });

  it('token buckets refill over time, never above capacity, one bucket per key', () => {
    let now = 0;
    const b = new TokenBuckets(2, 60, () => now); // 2 tokens, one per second
    expect(b.take('a')).toEqual({ ok: true });
    expect(b.take('a')).toEqual({ ok: true });
    expect(b.take('a')).toEqual({ ok: false, retryAfterMs: 1000 });
    expect(b.take('b')).toEqual({ ok: true }); // another key has its own bucket
    now = 500;
    expect(b.take('a')).toEqual({ ok: false, retryAfterMs: 500 });
    now = 1000;
    expect(b.take('a')).toEqual({ ok: true });
    now = 1_000_000;
    expect(b.take('a')).toEqual({ ok: true });
    expect(b.take('a')).toEqual({ ok: true });
    expect(b.take('a').ok).toBe(false);
  });

  it('is configured by INTAKE_RATE_LIMIT_PER_MINUTE (default 600, 0 turns it off)', () => {
    expect(CORE_ENV_VARS).toContain('INTAKE_RATE_LIMIT_PER_MINUTE');
    expect(readConfig({}).intakeRateLimitPerMinute).toBe(600);
    expect(readConfig({ INTAKE_RATE_LIMIT_PER_MINUTE: '0' }).intakeRateLimitPerMinute).toBe(0);
    let error: unknown;
    try {
      readConfig({ INTAKE_RATE_LIMIT_PER_MINUTE: 'lots' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).details[0]!.path).toBe('INTAKE_RATE_LIMIT_PER_MINUTE');
  });
});
