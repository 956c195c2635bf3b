/** The callback receiver against the demo service's signed callbacks (spec 9), SSE off, polling slowed to minutes. */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signCallback } from '../../src/hitl-service/index.ts';
import { type DemoHandle, eventually, startDemo } from '../helpers/relay-env.ts';
import {
  answerOnReviewPage,
  cards,
  demoCall,
  historyOf,
  startProxy,
  startWatchRelay,
  type TcpProxy,
  type WatchRelay,
} from './helpers.ts';

const SECRET = 'callback-secret-of-the-demo-0123456789';
const OTHER = 'callback-secret-of-another-service-987';

let demo: DemoHandle;
let proxy: TcpProxy;
/** The service as the relay reaches it (through a proxy that counts its polls). */
let base: string;
let r: WatchRelay;
let callbackUrl: string;

beforeAll(async () => {
  demo = await startDemo({ callbackSecret: SECRET });
  proxy = await startProxy(Number(new URL(demo.url).port));
  base = `http://127.0.0.1:${proxy.port}/demo`;
  r = await startWatchRelay({
    slow: true,
    // No streams: a change can only arrive by callback (or a poll minutes from now).
    env: { SSE_MAX_STREAMS: '0' },
    callbackSecrets: {
      [new URL(base).origin]: SECRET,
      'https://other-service.example': OTHER,
    },
  });
  callbackUrl = `${r.url}/v1/callbacks/hitl`;
});
afterAll(async () => {
  await r?.stop();
  await proxy?.close();
  await demo?.stop();
});

async function post(body: string, headers: Record<string, string>) {
  const res = await request(callbackUrl, { method: 'POST', headers, body });
  return { status: res.statusCode, body: (await res.body.json()) as any };
}

const create = (type: string, body: Record<string, unknown> = {}) =>
  demoCall(base, 'POST', `/api/reviews?type=${type}&inline=1`, body);
const polls = (caseId: string) => proxy.requests(new RegExp(`GET \\S*/${caseId}/status`)).length;

/** A case the service has already completed, which the relay does not know about yet. */
async function answeredCase(room: string) {
  const response = await create('approval');
  const { id } = await r.send(`web:${room}`, response);
  await answerOnReviewPage(response.hitl, 'approve', { feedback: 'ok' }, demo.url);
  const poll = await demoCall(demo.url, 'GET', `/api/reviews/${response.hitl.case_id}/status`);
  expect(poll.status).toBe('completed');
  const body = JSON.stringify({
    event: 'review.completed',
    case_id: response.hitl.case_id,
    completed_at: poll.completed_at,
    result: poll.result,
  });
  return { id, response, body };
}

describe('POST /v1/callbacks/hitl', () => {
  it('CALLBACK-1 refuses unsigned and wrongly signed callbacks with 401 and changes nothing', async () => {
    const { id, body, response } = await answeredCase('cb-refused');
    const json = { 'content-type': 'application/json' };
    const attempts = [
      await post(body, json),
      await post(body, {
        ...json,
        'x-hitl-signature': signCallback(body, 'not-the-secret-at-all'),
      }),
      await post(body, { ...json, 'x-hitl-signature': 'sha256=zz' }),
      await post(body, { ...json, 'x-hitl-signature': signCallback(body, SECRET).slice(7) }),
      // Right secret, different body: the signature covers the raw bytes.
      await post(`${body} `, { ...json, 'x-hitl-signature': signCallback(body, SECRET) }),
      // A secret configured for another service does not verify this service's case.
      await post(body, { ...json, 'x-hitl-signature': signCallback(body, OTHER) }),
    ];
    expect(attempts.map((a) => a.status)).toEqual([401, 401, 401, 401, 401, 401]);
    for (const a of attempts) expect(JSON.stringify(a.body)).not.toContain(SECRET);

    const unknown = JSON.stringify({ event: 'review.completed', case_id: 'review_nope' });
    const signedUnknown = await post(unknown, {
      ...json,
      'x-hitl-signature': signCallback(unknown, SECRET),
    });
    expect(signedUnknown.status).toBe(401);
    const text = await post(body, {
      'content-type': 'text/plain',
      'x-hitl-signature': signCallback(body, SECRET),
    });
    expect(text.status).toBe(415);
    const huge = JSON.stringify({ event: 'review.completed', pad: 'x'.repeat(70_000) });
    const tooBig = await post(huge, { ...json, 'x-hitl-signature': signCallback(huge, SECRET) });
    expect(tooBig.status).toBe(413);

    const c = await r.get(id);
    expect(c.status).toBe('pending');
    expect(c.history.map((h: any) => h.kind)).not.toContain('callback');
    // Not even a poll was made on their word.
    expect(polls(response.hitl.case_id)).toBe(0);
    expect((await cards(r, 'cb-refused'))[0].final).toBe(false);
  });

  it('CALLBACK-2 a correctly signed callback makes the relay poll, and the card is finalized', async () => {
    const { id, body } = await answeredCase('cb-valid');
    const res = await post(body, {
      'content-type': 'application/json',
      'x-hitl-signature': signCallback(body, SECRET),
    });
    expect(res.status).toBe(200);
    const card = await eventually(
      async () => (await cards(r, 'cb-valid')).find((m) => m.final),
      10_000,
      'the final card',
    );
    expect(card.status).toMatch(/^Approved by Demo reviewer/);
    const history = await historyOf(r, id);
    expect(history).toContain('callback');
    // The body was not believed: the status came from the confirming poll.
    expect(history).toContain('status:completed:poll');
  });

  it('CALLBACK-3 a callback whose body lies changes nothing the poll does not confirm', async () => {
    const response = await create('confirmation');
    const { id } = await r.send('web:cb-lie', response);
    const body = JSON.stringify({
      event: 'review.completed',
      case_id: response.hitl.case_id,
      completed_at: new Date().toISOString(),
      result: { action: 'confirm', data: {} },
    });
    const res = await post(body, {
      'content-type': 'application/json',
      'x-hitl-signature': signCallback(body, SECRET),
    });
    expect(res.status).toBe(200);
    // The confirming poll ran; the service still says pending, so the case is unchanged.
    await eventually(async () => polls(response.hitl.case_id) > 0, 10_000, 'the confirming poll');
    const c = await r.get(id);
    expect(c.status).toBe('pending');
    expect(c.history.map((h: any) => h.kind)).toContain('callback');
    expect((await cards(r, 'cb-lie'))[0].final).toBe(false);
  });

  it('CALLBACK-4 replayed callbacks for an ended case repeat nothing: no poll, no status, no edit', async () => {
    const { id, body, response } = await answeredCase('cb-replay');
    const signed = {
      'content-type': 'application/json',
      'x-hitl-signature': signCallback(body, SECRET),
    };
    expect((await post(body, signed)).status).toBe(200);
    await eventually(async () => (await cards(r, 'cb-replay')).find((m) => m.final), 10_000);
    const polled = polls(response.hitl.case_id);
    const statuses = (await historyOf(r, id)).filter((k) => k.startsWith('status:'));
    const card = (await cards(r, 'cb-replay'))[0];
    // The same delivery three more times (a service retrying, or someone replaying it).
    for (let i = 0; i < 3; i++) {
      const again = await post(body, signed);
      expect(again).toEqual({ status: 200, body: { ok: true, status: 'completed' } });
    }
    // Nothing was started: the answer is given before any poll could be (callback-receiver.ts).
    expect(polls(response.hitl.case_id)).toBe(polled);
    expect((await historyOf(r, id)).filter((k) => k.startsWith('status:'))).toEqual(statuses);
    expect((await cards(r, 'cb-replay'))[0]).toEqual(card);
  });

  it('CALLBACK-5 a burst of duplicate callbacks for an open case: at most one poll each, one status change', async () => {
    const { id, body, response } = await answeredCase('cb-burst');
    const signed = {
      'content-type': 'application/json',
      'x-hitl-signature': signCallback(body, SECRET),
    };
    const answers = await Promise.all(Array.from({ length: 5 }, () => post(body, signed)));
    expect(answers.every((a) => a.status === 200)).toBe(true);
    await eventually(async () => (await r.get(id)).status === 'completed', 10_000, 'completed');
    // Bounded: each callback may bring one confirming poll (concurrent ones share one), no more.
    expect(polls(response.hitl.case_id)).toBeGreaterThanOrEqual(1);
    expect(polls(response.hitl.case_id)).toBeLessThanOrEqual(answers.length);
    const statuses = (await historyOf(r, id)).filter((k) => k.startsWith('status:'));
    expect(statuses).toEqual(['status:completed:poll']);
  });

  it('CALLBACK-6 duplicates that arrive while the confirming poll is under way bring no second poll', async () => {
    const a = await answeredCase('cb-held');
    const marker = await answeredCase('cb-held-marker');
    const sign = (body: string) => ({
      'content-type': 'application/json',
      'x-hitl-signature': signCallback(body, SECRET),
    });
    const before = polls(a.response.hitl.case_id);
    // New connections to the service wait at the proxy: the first confirming poll stays under way
    // while the duplicates arrive.
    proxy.cut();
    proxy.hold();
    try {
      for (let i = 0; i < 5; i++) expect((await post(a.body, sign(a.body))).status).toBe(200);
    } finally {
      proxy.release();
    }
    await eventually(async () => (await r.get(a.id)).status === 'completed', 10_000, 'completed');
    // A later callback's poll for another case: polls queued for the first case before it went out
    // ahead of it, so once it is answered every poll the duplicates brought has been counted.
    expect((await post(marker.body, sign(marker.body))).status).toBe(200);
    await eventually(async () => (await r.get(marker.id)).status === 'completed', 10_000, 'marker');
    expect(polls(a.response.hitl.case_id) - before).toBe(1);
  });

  it('the demo service signs its own callback to hitl_callback_url and the card follows', async () => {
    const response = await create('escalation', { hitl_callback_url: callbackUrl });
    expect(response.hitl.callback_url).toBe(callbackUrl);
    const { id } = await r.send('web:cb-demo', response);
    await answerOnReviewPage(response.hitl, 'retry', {}, demo.url);
    const card = await eventually(
      async () => (await cards(r, 'cb-demo')).find((m) => m.final),
      10_000,
      'the final card',
    );
    expect(card.status).toMatch(/^Retry chosen/);
    expect(await historyOf(r, id)).toContain('callback');
  });
});
