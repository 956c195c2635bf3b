/**
 * Spec v0.9 §13.3: a case's credentials go only to the case's own origin, checked where each is
 * sent. Two spec doubles on two loopback ports are two origins: A is the case's service, B is the
 * other origin, and every request B receives is counted (it must receive none, and certainly no
 * Authorization). Per credential:
 * - service_auth (poll, events): `watchHeaders` at each request; a redirect is never followed.
 * - submit_token: intake (submit_url on poll_url's origin) and `submit()` at send time, so a row
 *   stored before that intake rule never sends its token elsewhere.
 * - events_url off the case's origin: no stream is opened at all (the case is polled).
 * - callback secrets: never sent; a signed callback only brings a poll of the stored poll_url,
 *   whatever URL its body names.
 */
import { createHmac } from 'node:crypto';
import { request } from 'undici';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { type SpecDouble, startSpecDouble } from '../fakes/spec-double.ts';
import { eventually, logLines, type RelayHandle, startRelay } from '../helpers/relay-env.ts';
import { cardOf, tapWeb } from '../reliability/web.ts';

const AGENT_KEY = 'Bearer agent-key-of-service-a-0123456789';
const CALLBACK_SECRET = 'callback-secret-of-service-a-0123456789';

let a: SpecDouble;
let b: SpecDouble;
let relay: RelayHandle;
let room = 0;

beforeAll(async () => {
  a = await startSpecDouble();
  b = await startSpecDouble();
  relay = await startRelay({
    adapters: [createWebAdapter()],
    configFile: { callback_secrets: { [a.url]: CALLBACK_SECRET } },
  });
});
// Each test counts what B received during it.
beforeEach(() => {
  b.requests.length = 0;
});
afterAll(async () => {
  await relay?.stop();
  await a?.close();
  await b?.close();
});

/** A case of A sent with A's credentials; its card posted. */
async function caseOfA(options: Parameters<SpecDouble['create']>[0] = {}) {
  const body = a.create(options);
  const name = `origin${++room}`;
  const res = await relay.send(`web:${name}`, body, {
    service_auth: { headers: { Authorization: AGENT_KEY } },
  });
  expect(res.status).toBe(201);
  const card = await eventually(() => cardOf(relay.url, name, res.body.id), 10_000, 'the card');
  return { id: res.body.id as string, room: name, caseId: body.hitl.case_id as string, body, card };
}

/** Moves a stored case's URL as a row stored before intake refused URLs off poll_url's origin. */
async function moveStoredUrl(
  id: string,
  field: 'submit_url' | 'events_url' | 'poll_url',
  to: string,
) {
  const moved = await relay.relay.services.cases.mutate(id, (x) => {
    x.doc.hitl[field] = to;
    return true;
  });
  expect(moved?.doc.hitl[field]).toBe(to);
}

const authorizationsAt = (d: SpecDouble) => d.requests.filter((r) => r.headers.authorization);

describe('§13.3 credentials only to the case origin', () => {
  it('ORIGIN-1 service_auth goes with every poll to A; a poll redirected to B is not followed', async () => {
    const c = await caseOfA();
    await eventually(async () => a.seen('poll', c.caseId).length > 0, 10_000, 'a poll');
    for (const p of a.seen('poll', c.caseId)) expect(p.headers.authorization).toBe(AGENT_KEY);
    const before = a.seen('poll', c.caseId).length;
    a.queuePoll(c.caseId, {
      status: 307,
      headers: { location: `${b.url}/cases/${c.caseId}/status` },
    });
    const v = await relay.until(c.id, (x) => x.watch.state !== 'ok');
    expect(v.watch.state).toBe('invalid');
    expect(a.seen('poll', c.caseId).length).toBeGreaterThan(before);
    expect(b.requests).toEqual([]);
  });

  it('ORIGIN-2 submit_token: a stored submit_url on another origin is never contacted', async () => {
    const c = await caseOfA({ hitl: {} });
    await moveStoredUrl(c.id, 'submit_url', `${b.url}/cases/${c.caseId}/respond`);
    const tap = await tapWeb(relay.url, c.room, c.card.id, 'approve');
    expect(tap.body.outcome).toBe('failed');
    expect(b.requests).toEqual([]);
    expect(a.seen('submit', c.caseId)).toEqual([]);
    const v = await relay.get(c.id);
    expect(v.status).toBe('pending');
    const row = v.history.find((h: any) => h.kind === 'submit');
    expect(row.outcome).toBe('failed');
    const log = logLines.map((l) => JSON.parse(l)).find((l) => l.case === c.id && l.reason);
    expect(log.reason).toContain("not on the case's origin");
    expect(JSON.stringify(v)).not.toContain(c.body.hitl.submit_token);
    expect(logLines.join('\n')).not.toContain(c.body.hitl.submit_token);
  });

  it('ORIGIN-3 submit_token: a submit answered with a redirect to B is not followed', async () => {
    const c = await caseOfA({ hitl: {} });
    a.queueSubmit(c.caseId, {
      status: 307,
      headers: { location: `${b.url}/cases/${c.caseId}/respond` },
    });
    await tapWeb(relay.url, c.room, c.card.id, 'approve');
    expect(a.seen('submit', c.caseId)).toHaveLength(1);
    expect(a.seen('submit', c.caseId)[0]!.headers.authorization).toBe(
      `Bearer ${c.body.hitl.submit_token}`,
    );
    expect(b.requests).toEqual([]);
  });

  it('ORIGIN-4 an events_url stored on another origin opens no stream; the case is polled at A', async () => {
    const c = await caseOfA();
    await moveStoredUrl(c.id, 'events_url', `${b.url}/cases/${c.caseId}/events`);
    // Each look ends by considering the case's stream (watching.ts afterCheck): two looks later
    // a stream to B would have been opened.
    const polls = a.seen('poll', c.caseId).length;
    await eventually(async () => a.seen('poll', c.caseId).length >= polls + 2, 10_000, 'two looks');
    expect(b.requests).toEqual([]);
    a.complete(c.caseId, 'approve');
    const done = await relay.until(c.id, (x) => x.status === 'completed');
    expect(done.history.some((h: any) => h.kind === 'status' && h.source === 'poll')).toBe(true);
    expect(b.requests).toEqual([]);
  });

  it('ORIGIN-5 a signed callback naming B as poll_url brings one poll of the stored poll_url at A', async () => {
    const c = await caseOfA();
    await eventually(async () => a.seen('poll', c.caseId).length > 0, 10_000, 'a poll');
    a.complete(c.caseId, 'reject');
    const body = JSON.stringify({
      event: 'review.completed',
      case_id: c.caseId,
      completed_at: new Date().toISOString(),
      result: { action: 'approve', data: {} },
      poll_url: `${b.url}/cases/${c.caseId}/status`,
      events_url: `${b.url}/cases/${c.caseId}/events`,
    });
    const signature = `sha256=${createHmac('sha256', CALLBACK_SECRET).update(body).digest('hex')}`;
    const res = await request(`${relay.url}/v1/callbacks/hitl`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hitl-signature': signature },
      body,
    });
    expect(res.statusCode).toBe(200);
    await res.body.dump();
    const done = await relay.until(c.id, (x) => x.status === 'completed');
    // The poll's answer, not the callback's: the service recorded a reject.
    expect(done.result.action).toBe('reject');
    expect(b.requests).toEqual([]);
    expect(authorizationsAt(b)).toEqual([]);
  });

  it("ORIGIN-6 a stored poll_url moved to B is polled without A's credentials (checked per request)", async () => {
    const c = await caseOfA();
    await eventually(async () => a.seen('poll', c.caseId).length > 0, 10_000, 'a poll at A');
    // A row changed behind the relay's back: the case's origin stays A, its poll_url is now on B.
    await moveStoredUrl(c.id, 'poll_url', `${b.url}/cases/${c.caseId}/status`);
    await eventually(async () => b.requests.length > 0, 10_000, 'a poll at B');
    expect(b.requests.length).toBeGreaterThan(0);
    expect(authorizationsAt(b)).toEqual([]);
    expect(JSON.stringify(b.requests)).not.toContain('agent-key');
  });
});
