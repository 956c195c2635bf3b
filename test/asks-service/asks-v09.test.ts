/**
 * The relay's own asks service speaks HITL Protocol v0.9 (issue 31, service side): its 202 bodies,
 * its polls in every status and its discovery document validate against the corpus's
 * schemas/v0.9 with ajv; open statuses carry no result, terminal ones their variant's fields;
 * responses with tokens or results are `Cache-Control: no-store` (§13.7). A completed poll of
 * every kind is validated in asks-web.test.ts.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { ALL_KINDS, parseAskContent } from '../../src/asks/content.ts';
import { protocolOf } from '../../src/asks/protocol.ts';
import { ASK_REVIEW_TYPES } from '../../src/asks-service/discovery.ts';
import { KINDS } from '../asks/fixtures.ts';
import { type RelayHandle, startRelay } from '../helpers/relay-env.ts';
import { CORPUS, schemaValidator } from '../helpers/spec.ts';

const validHitl = schemaValidator('v0.9/hitl-object.schema.json');
const validPoll = schemaValidator('v0.9/poll-response.schema.json');
const validDiscovery = schemaValidator('v0.9/discovery-response.schema.json');

let relay: RelayHandle;
let publicRelay: RelayHandle;
beforeAll(async () => {
  relay = await startRelay({ adapters: [createWebAdapter()] });
  publicRelay = await startRelay({
    adapters: [createWebAdapter()],
    env: { PUBLIC_URL: 'https://relay.example', RETENTION_DAYS: '30' },
  });
});
afterAll(async () => {
  await relay?.stop();
  await publicRelay?.stop();
});

async function ask(kind: keyof typeof KINDS, extra: Record<string, unknown> = {}) {
  const res = await request(`${relay.url}/v1/asks`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ target: 'web:v09', content: KINDS[kind].content, ...extra }),
  });
  const body = (await res.body.json()) as any;
  expect(res.statusCode, JSON.stringify(body)).toBe(202);
  expect(res.headers['cache-control']).toBe('no-store');
  return body;
}

/** The service's poll answer, read as the owner (the 202's submit token). */
async function poll(hitl: any) {
  const res = await request(hitl.poll_url, {
    headers: { authorization: `Bearer ${hitl.submit_token}` },
  });
  expect(res.statusCode).toBe(200);
  expect(res.headers['cache-control']).toBe('no-store');
  const body = (await res.body.json()) as any;
  expect(validPoll(body), JSON.stringify(validPoll.errors)).toBe(true);
  return body;
}

const reviewToken = (hitl: any) => new URL(hitl.review_url).searchParams.get('token')!;
const reviewerPost = (hitl: any, step: string, body: unknown) =>
  request(`${hitl.poll_url.replace(/\/status$/, `/${step}`)}?token=${reviewToken(hitl)}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

const OPEN_ONLY = ['result', 'responded_by', 'submission_context', 'completed_at'];

describe('the asks service speaks v0.9', () => {
  it('SERVE-1 a 202 says 0.9 and validates; pending, opened, in_progress, cancelled polls are their variants', {
    tags: [CORPUS],
  }, async () => {
    const created = await ask('context.confirm');
    const { hitl } = created;
    expect(hitl.spec_version).toBe('0.9');
    expect(validHitl(hitl), JSON.stringify(validHitl.errors)).toBe(true);

    const pending = await poll(hitl);
    expect(pending.status).toBe('pending');
    for (const k of OPEN_ONLY) expect(pending).not.toHaveProperty(k);

    const page = await request(hitl.review_url);
    await page.body.dump();
    const opened = await poll(hitl);
    expect(opened).toMatchObject({ status: 'opened', opened_at: expect.any(String) });
    for (const k of OPEN_ONLY) expect(opened).not.toHaveProperty(k);

    const progress = { current_step: 1, total_steps: 2, completed_fields: 1, total_fields: 2 };
    expect((await reviewerPost(hitl, 'progress', progress)).statusCode).toBe(200);
    const working = await poll(hitl);
    expect(working).toMatchObject({ status: 'in_progress', progress });
    for (const k of OPEN_ONLY) expect(working).not.toHaveProperty(k);

    expect((await reviewerPost(hitl, 'cancel', { reason: 'not now' })).statusCode).toBe(200);
    const cancelled = await poll(hitl);
    expect(cancelled).toMatchObject({ status: 'cancelled', cancelled_at: expect.any(String) });
    for (const k of OPEN_ONLY) expect(cancelled).not.toHaveProperty(k);
  });

  it('SERVE-2 an expired ask polls as the expired variant: expired_at and default_action, no result', {
    tags: [CORPUS],
  }, async () => {
    const created = await ask('approval.binary', { expires_in: 1 });
    const wait = await request(`${relay.url}/v1/asks/${created.relay.id}/wait?timeout=30`);
    expect(((await wait.body.json()) as any).status).toBe('expired');
    const expired = await poll(created.hitl);
    expect(expired).toMatchObject({
      status: 'expired',
      expired_at: expect.any(String),
      default_action: 'reject',
    });
    for (const k of OPEN_ONLY) expect(expired).not.toHaveProperty(k);
  });

  it('SERVE-4 a wrong, missing, malformed, foreign or stale If-None-Match never yields a 304', async () => {
    const a = (await ask('context.confirm')).hitl;
    const b = (await ask('context.confirm')).hitl;
    const get = async (hitl: any, inm?: string) => {
      const res = await request(hitl.poll_url, {
        headers: {
          authorization: `Bearer ${hitl.submit_token}`,
          ...(inm !== undefined && { 'if-none-match': inm }),
        },
      });
      const text = await res.body.text();
      return { status: res.statusCode, etag: res.headers.etag as string, text };
    };
    const first = await get(a);
    expect(first.etag).toMatch(/^"/);
    // The right tag is a 304 (so the cases below are not 200 merely because 304s never happen).
    expect((await get(a, first.etag)).status).toBe(304);
    const other = await get(b);
    for (const inm of [undefined, '', '"other"', 'garbage', 'W/"x"', other.etag]) {
      const r = await get(a, inm);
      expect(r.status, `If-None-Match: ${inm}`).toBe(200);
      expect(JSON.parse(r.text).case_id).toBe(a.case_id);
    }
    // The case changes: the tag it had before is stale and brings the new state, not a 304.
    await (await request(a.review_url)).body.dump();
    const stale = await get(a, first.etag);
    expect(stale.status).toBe(200);
    expect(JSON.parse(stale.text).status).toBe('opened');
    expect(stale.etag).not.toBe(first.etag);
  });

  it('SERVE-3 its event stream is no-store (events carry results)', async () => {
    const { hitl } = await ask('context.confirm');
    const ac = new AbortController();
    const res = await request(hitl.events_url, {
      headers: { authorization: `Bearer ${hitl.submit_token}`, accept: 'text/event-stream' },
      signal: ac.signal,
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    ac.abort();
    await res.body.dump().catch(() => {});
  });
});

describe('discovery', () => {
  it('DISCOVERY-1 /.well-known/hitl.json and /.well-known/hitl validate against the v0.9 schema', {
    tags: [CORPUS],
  }, async () => {
    for (const r of [relay, publicRelay])
      for (const path of ['/.well-known/hitl.json', '/.well-known/hitl']) {
        const res = await request(`${r.url}${path}`);
        expect(res.statusCode).toBe(200);
        const doc = (await res.body.json()) as any;
        expect(validDiscovery(doc), JSON.stringify(validDiscovery.errors)).toBe(true);
        expect(doc.hitl_protocol.capabilities).toMatchObject({
          transports: ['polling', 'sse', 'callback'],
          supports_inline_submit: true,
          supports_agent_binding: false,
        });
        expect(doc.hitl_protocol.authentication.profiles).toEqual([]);
      }
    const doc = (await (
      await request(`${publicRelay.url}/.well-known/hitl.json`)
    ).body.json()) as any;
    expect(doc.hitl_protocol.endpoints).toEqual({
      reviews_base: 'https://relay.example/asks/api/reviews',
      review_page_base: 'https://relay.example/asks/review',
      events_base: 'https://relay.example/asks/api/reviews',
    });
    expect(doc.hitl_protocol.policies).toEqual({ data_retention_days: 30 });
    // Without PUBLIC_URL no absolute URL is made up from the Host header.
    const local = (await (await request(`${relay.url}/.well-known/hitl.json`)).body.json()) as any;
    expect(local.hitl_protocol.endpoints).toBeUndefined();
  });

  it('DISCOVERY-2 the review types it lists are exactly the types asks are published as', () => {
    const typeOf = (raw: unknown) => {
      const parsed = parseAskContent(raw);
      if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
      return protocolOf(parsed.content).type;
    };
    const published = new Set(ALL_KINDS.map((k) => typeOf(KINDS[k].content)));
    // An approval whose choice keys are not approve/reject is published as x-approval.
    const custom = structuredClone(KINDS['approval.binary'].content) as any;
    custom.choices = custom.choices.map((c: any, i: number) => ({ ...c, key: `k${i}` }));
    published.add(typeOf(custom));
    expect([...published].sort()).toEqual([...ASK_REVIEW_TYPES].sort());
  });
});
