/**
 * The relay as a HITL service, end to end over real HTTP: POST /v1/asks answers 202 with a valid
 * v0.8 hitl object, the case reaches the web chat with its ask content, bad answers are refused
 * natively with nothing recorded, a good one comes back typed from /wait, and the service's own
 * poll (ETag, Retry-After) and review page work for every kind.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { ALL_KINDS } from '../../src/asks/content.ts';
import { KINDS } from '../asks/fixtures.ts';
import { logLines, type RelayHandle, startRelay } from '../helpers/relay-env.ts';
import { schemaValidator } from '../helpers/spec.ts';

let relay: RelayHandle;
const validHitl = schemaValidator('v0.9/hitl-object.schema.json');
const validPoll = schemaValidator('v0.9/poll-response.schema.json');

beforeAll(async () => {
  relay = await startRelay({ adapters: [createWebAdapter()] });
});
afterAll(async () => {
  await relay?.stop();
});

async function call(method: 'GET' | 'POST', path: string, body?: unknown) {
  const res = await request(`${relay.url}${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.body.text();
  return { status: res.statusCode, headers: res.headers, body: text ? JSON.parse(text) : null };
}

async function message(room: string): Promise<any> {
  const r = await call('GET', `/web/api/rooms/${room}/messages`);
  return r.body.find((m: any) => m.case);
}

const answer = (room: string, id: string, action: string, extra: Record<string, unknown>) =>
  call('POST', `/web/api/rooms/${room}/messages/${id}/actions/${action}`, {
    user: { id: 'ann', name: 'Ann' },
    ...extra,
  });

describe.each(ALL_KINDS)('%s through the web chat', (kind) => {
  const fx = KINDS[kind];
  const room = `ask-${kind.replace(/[^a-z]/g, '-')}`;

  it('202 with a valid hitl object, native controls, invalid refused, typed answer', {
    tags: ['corpus'],
  }, async () => {
    const created = await call('POST', '/v1/asks', {
      target: `web:${room}`,
      content: fx.content,
      expires_in: 3600,
      labels: { kind },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    expect(validHitl(created.body.hitl), JSON.stringify(validHitl.errors)).toBe(true);
    const hitl = created.body.hitl;
    expect(hitl).toMatchObject({
      spec_version: '0.9',
      context: { ask: { prompt: expect.any(String) } },
    });
    expect(hitl.submit_url).toContain('/asks/api/reviews/');
    expect(hitl.events_url).toContain('/asks/api/reviews/');
    const id = created.body.relay.id;
    expect(created.body.relay).toMatchObject({ kind, status: 'pending', answer: null });

    const m = await message(room);
    expect(m.ask).toMatchObject({ kind });
    expect(JSON.stringify(m)).not.toContain(hitl.submit_token);

    for (const bad of fx.invalid) {
      const r = await answer(room, m.id, bad.action, { data: bad.data });
      expect([422, 200], bad.why).toContain(r.status);
      expect(r.body.outcome, bad.why).toMatch(/invalid_answer|not_allowed/);
      if (r.body.outcome === 'invalid_answer')
        expect(
          r.body.issues.map((i: any) => i.path),
          bad.why,
        ).toContain(bad.path);
    }
    const before = await call('GET', `/v1/asks/${id}`);
    expect(before.body.status).toBe('pending');
    expect(before.body.case.history.some((h: any) => h.kind === 'submit')).toBe(false);

    const ok = await answer(room, m.id, fx.answer.action, { data: fx.answer.data });
    expect(ok.body.outcome, JSON.stringify(ok.body)).toBe('submitted');
    const done = await call('GET', `/v1/asks/${id}/wait?timeout=10`);
    expect(done.body).toMatchObject({ kind, status: 'completed', final: true, answer: fx.result });
    expect(done.body.case.submitted_by).toMatchObject({ platform_user_id: 'ann' });
    // The service holds the same typed answer: what another HITL agent polling it would read.
    const polled = await request(hitl.poll_url, {
      headers: { authorization: `Bearer ${hitl.submit_token}` },
    });
    const status = (await polled.body.json()) as any;
    expect(validPoll(status), JSON.stringify(validPoll.errors)).toBe(true);
    expect(status).toMatchObject({
      status: 'completed',
      result: { action: fx.answer.action, data: fx.result },
    });
    const after = await message(room);
    expect(after.final).toBe(true);
    expect(after.ask).toBeUndefined();
  });
});

describe('the asks service', () => {
  it('serves poll with ETag and Retry-After, and a review page for every kind', {
    tags: ['corpus'],
  }, async () => {
    for (const kind of ALL_KINDS) {
      const created = await call('POST', '/v1/asks', {
        target: 'web:review-pages',
        content: KINDS[kind].content,
        expires_in: 600,
      });
      const hitl = created.body.hitl;
      const owner = { authorization: `Bearer ${hitl.submit_token}` };
      const poll = await request(hitl.poll_url, { headers: owner });
      const etag = poll.headers.etag as string;
      expect(validPoll(await poll.body.json()), kind).toBe(true);
      expect(poll.statusCode).toBe(200);
      expect(poll.headers['retry-after']).toBeDefined();
      const again = await request(hitl.poll_url, {
        headers: { ...owner, 'if-none-match': etag },
      });
      await again.body.text();
      expect(again.statusCode).toBe(304);
      const page = await request(hitl.review_url);
      const html = await page.body.text();
      expect(page.statusCode, kind).toBe(200);
      expect(html, kind).toContain('<form id="review-form"');
      const noToken = await request(hitl.review_url.replace(/\?token=.*/, ''));
      await noToken.body.text();
      expect(noToken.statusCode).toBe(401);
    }
  });

  it('streams the ask on events_url (SSE) until review.completed with the typed result', async () => {
    const created = await call('POST', '/v1/asks', {
      target: 'web:sse',
      content: KINDS['decision.multi'].content,
    });
    const hitl = created.body.hitl;
    const res = await fetch(hitl.events_url, {
      headers: { accept: 'text/event-stream', authorization: `Bearer ${hitl.submit_token}` },
    });
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const m = await message('sse');
    const ok = await answer('sse', m.id, 'select', { data: { selected: ['backend'] } });
    expect(ok.body.outcome).toBe('submitted');
    // The stream ends after the terminal event.
    const text = await res.text();
    const completed = /event: review\.completed\ndata: (.*)\n/.exec(text);
    expect(completed, text).not.toBeNull();
    expect(JSON.parse(completed![1]!)).toMatchObject({
      result: { action: 'select', data: { selected: ['backend'] } },
    });
  });

  it('records a review page form post as the typed answer, and refuses a bad one', async () => {
    const created = await call('POST', '/v1/asks', {
      target: 'web:review-form',
      content: KINDS['context.form'].content,
      expires_in: 600,
    });
    const hitl = created.body.hitl;
    const respond = hitl.review_url
      .replace('/review/', '/api/reviews/')
      .replace('?token=', '/respond?token=');
    const post = (form: Record<string, string>) =>
      request(respond, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(form).toString(),
      });
    const bad = await post({ action: 'submit', 'f.ticket_id': '', 'f.team': 'infra' });
    expect(bad.statusCode).toBe(400);
    expect(await bad.body.text()).toContain('Some answers are missing or invalid');
    const good = await post({
      action: 'submit',
      'f.ticket_id': 'TKT-9',
      'f.priority': '3',
      'f.is_urgent': 'true',
      'f.team': 'backend',
    });
    await good.body.text();
    expect(good.statusCode).toBe(200);
    const done = await call('GET', `/v1/asks/${created.body.relay.id}/wait?timeout=10`);
    expect(done.body.answer).toEqual({
      values: { ticket_id: 'TKT-9', priority: 3, is_urgent: true, team: 'backend' },
    });
    expect(done.body.case.responded_by).toBeTruthy();
  });

  it('asks for a confirming step on an irreversible option', async () => {
    const created = await call('POST', '/v1/asks', {
      target: 'web:irreversible',
      content: KINDS['decision.single'].content,
    });
    const m = await message('irreversible');
    const first = await answer('irreversible', m.id, 'select', { data: { selected: 'prod' } });
    expect(first.body.outcome).toBe('confirm_required');
    const second = await answer('irreversible', m.id, 'select', {
      data: { selected: 'prod' },
      confirmed: true,
    });
    expect(second.body.outcome).toBe('submitted');
    const done = await call('GET', `/v1/asks/${created.body.relay.id}/wait?timeout=10`);
    expect(done.body).toMatchObject({ answer: { selected: 'prod' }, approval: null });
  });

  it('refuses bad asks with the failing path and creates nothing', async () => {
    const cases = [
      [
        {
          target: 'web:x',
          content: { type: 'decision', sub_type: 'rank', prompt: 'p', options: [] },
        },
        'content.options',
      ],
      [
        {
          target: 'web:x',
          content: KINDS['approval.binary'].content,
          expires_in: 60,
          expires_at: '2099-01-01T00:00:00Z',
        },
        'expires_at',
      ],
      [
        { target: 'web:x', content: KINDS['decision.multi'].content, default: 'approve' },
        'default',
      ],
      [{ target: 'nowhere:x', content: KINDS['approval.binary'].content }, 'target'],
      [{ target: 'web:x', content: KINDS['approval.binary'].content, extra: 1 }, 'extra'],
    ] as const;
    const before = (await call('GET', '/v1/cases?limit=500')).body.cases.length;
    for (const [body, path] of cases) {
      const r = await call('POST', '/v1/asks', body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(
        r.body.details.map((d: any) => d.path),
        JSON.stringify(r.body),
      ).toContain(path);
    }
    expect((await call('GET', '/v1/cases?limit=500')).body.cases.length).toBe(before);
  });

  it('creates cases only through /v1/asks, never by an anonymous POST to the service', async () => {
    const r = await call('POST', '/asks/api/reviews?type=approval', {});
    expect(r.status).toBe(404);
  });

  it('never logs a submit token or review token', () => {
    const all = logLines.join('\n');
    expect(all).not.toMatch(/token=[A-Za-z0-9_-]{20,}/);
  });
});
