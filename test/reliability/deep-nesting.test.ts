/**
 * Finding 6 (deep nesting): a context of ~3,000 nested arrays (8 KB) was accepted and posted,
 * then every change of the case failed with "Maximum call stack size exceeded" (a recursive
 * clone) and the case stayed pending forever; 5,000+ levels answered 500 at intake. Now intake
 * refuses JSON nested deeper than the limit with a 400 naming the path, and a status answer whose
 * data breaks the limits still settles the case (without that data).
 */
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { JSON_LIMITS } from '../../src/protocol/json-limits.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';
import { type HostileService, startHostileService } from './hostile-service.ts';
import { cardOf } from './web.ts';

let relay: RelayHandle;
let svc: HostileService;
beforeAll(async () => {
  svc = await startHostileService();
  relay = await startRelay({ adapters: [createWebAdapter()] });
});
afterAll(async () => {
  await relay?.stop();
  await svc?.close();
});

/** `levels` nested arrays, as text (JSON.stringify itself would overflow on the deepest). */
function nested(levels: number): string {
  return `${'['.repeat(levels)}${']'.repeat(levels)}`;
}

async function sendRaw(text: string): Promise<{ status: number; body: any }> {
  const res = await request(`${relay.url}/v1/cases`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: text,
  });
  return { status: res.statusCode, body: await res.body.json() };
}

async function caseCount(): Promise<number> {
  const res = await request(`${relay.url}/v1/cases?limit=500`);
  return ((await res.body.json()) as { cases: unknown[] }).cases.length;
}

for (const levels of [3_000, 6_000, 50_000])
  it(`finding 6 (deep nesting): a context nested ${levels} levels gets a clean 400 naming the path`, async () => {
    const before = await caseCount();
    const body = svc.body202();
    const text = JSON.stringify({ target: 'web:deep', response: body }).replace(
      '"type":"approval"',
      `"type":"approval","context":{"deep":${nested(levels)}}`,
    );
    const res = await sendRaw(text);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request');
    expect(res.body.details).toHaveLength(1);
    expect(res.body.details[0].path).toMatch(/^response\.hitl\.context\.deep(\[0\])+$/);
    expect(res.body.details[0].message).toBe(
      `is nested deeper than ${JSON_LIMITS.maxDepth} levels`,
    );
    expect(await caseCount()).toBe(before);
  });

it('finding 6 (deep nesting): POST /v1/asks reads its body as /v1/cases does: the same clean 400 naming the path', async () => {
  const before = await caseCount();
  const deep = nested(3_000);
  const ask = await request(`${relay.url}/v1/asks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: `{"target":"web:deep","content":{"type":"approval","prompt":"Ship?","details":${deep}}}`,
  });
  const askBody = (await ask.body.json()) as any;
  const intake = await sendRaw(
    `{"target":"web:deep","response":{"hitl":{"type":"approval","details":${deep}}}}`,
  );
  for (const [res, path] of [
    [{ status: ask.statusCode, body: askBody }, /^content\.details(\[0\])+$/],
    [intake, /^response\.hitl\.details(\[0\])+$/],
  ] as const) {
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request');
    expect(res.body.details).toHaveLength(1);
    expect(res.body.details[0].path).toMatch(path);
    expect(res.body.details[0].message).toBe(
      `is nested deeper than ${JSON_LIMITS.maxDepth} levels`,
    );
    expect(res.body.message).toContain(res.body.details[0].path);
  }
  // Not JSON, and not JSON's content type: the same answers on both routes.
  for (const route of ['/v1/asks', '/v1/cases']) {
    const bad = await request(`${relay.url}${route}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"target":',
    });
    expect(bad.statusCode).toBe(400);
    expect(await bad.body.json()).toMatchObject({
      error: 'invalid_json',
      message: expect.stringMatching(/^the body is not JSON: send \{"target"/),
    });
    const text = await request(`${relay.url}${route}`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: '{}',
    });
    expect(text.statusCode).toBe(415);
    await text.body.dump();
  }
  expect(await caseCount()).toBe(before);
});

it('finding 6 (deep nesting): a context within the limit is taken', async () => {
  const body = svc.body202();
  const text = JSON.stringify({ target: 'web:deep', response: body }).replace(
    '"type":"approval"',
    `"type":"approval","context":{"deep":${nested(JSON_LIMITS.maxDepth - 4)}}`,
  );
  expect((await sendRaw(text)).status).toBe(201);
});

it('finding 6 (deep nesting): a poll answer carrying data nested 6,000 levels still completes the case', async () => {
  const body = svc.body202();
  const caseId = body.hitl.case_id;
  // The reviewer answered elsewhere; the service's status answer carries a result nested far too deep.
  svc.handle((req, res) => {
    if (!req.url?.startsWith(`/cases/${caseId}/status`)) return false;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      `{"status":"completed","case_id":"${caseId}","completed_at":"${new Date().toISOString()}","result":{"action":"approve","data":{"deep":${nested(6000)}}}}`,
    );
    return true;
  });
  try {
    const sent = await relay.send('web:deep-answer', body);
    expect(sent.status).toBe(201);
    const done = await relay.until(sent.body.id, (c) => c.status === 'completed', 10_000);
    expect(done.result.action).toBe('approve');
    expect(JSON.stringify(done.result)).not.toContain('[[[[');
    await eventually(
      async () => (await cardOf(relay.url, 'deep-answer', sent.body.id))?.final,
      5000,
      'final card',
    );
  } finally {
    svc.handle(null);
  }
});
