/**
 * The relay against the spec double (test/fakes/spec-double.ts), end to end through the web chat:
 * service credentials on the watch endpoints, watch failures that are never an expiry, the
 * service's own result after a submit, every submit answer told truthfully, terminal SSE events
 * without data. Test names start with the requirement ids of docs/CONFORMANCE.md.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { tinyServer } from '../client/helpers.ts';
import { type SpecDouble, startSpecDouble } from '../fakes/spec-double.ts';
import { eventually, logLines, type RelayHandle, startRelay } from '../helpers/relay-env.ts';
import { cardOf, tapWeb } from '../reliability/web.ts';

const AGENT_KEY = 'Bearer agent-key-for-the-double-0123456789';
/** The relay's Details link of a case, as a card carries it. */
const DETAILS = /^http:\/\/127\.0\.0\.1:\d+\/r\//;

let double: SpecDouble;
let relay: RelayHandle;
let room = 0;

beforeAll(async () => {
  double = await startSpecDouble();
  relay = await startRelay({ adapters: [createWebAdapter()], watcher: { expiryGraceMs: 0 } });
});
afterAll(async () => {
  await relay.stop();
  await double.close();
});
afterEach(() => double.requireAuth(null));

/** Sends a fresh double case to a fresh room; returns the relay case, the room and the 202 body. */
async function send(
  options: Parameters<SpecDouble['create']>[0] = {},
  extra: Record<string, unknown> = {},
) {
  const body = double.create(options);
  const name = `dbl${++room}`;
  const res = await relay.send(`web:${name}`, body, extra);
  expect(res.status).toBe(201);
  const card = await eventually(() => cardOf(relay.url, name, res.body.id), 10_000, 'the card');
  return { id: res.body.id as string, room: name, body, caseId: body.hitl.case_id as string, card };
}

const card = (c: { id: string; room: string }) => cardOf(relay.url, c.room, c.id);
const buttons = async (c: { id: string; room: string }) =>
  ((await card(c)).actions as Array<{ action: string }>).map((a) => a.action);
const historyKinds = async (id: string) =>
  ((await relay.get(id)).history as any[]).map((h) =>
    h.kind === 'status' ? `status:${h.to}:${h.source}` : h.kind,
  );
const logsFor = (id: string) => logLines.filter((l) => l.includes(id)).map((l) => JSON.parse(l));

describe('service credentials', () => {
  it('AUTH-1 poll and events carry the credentials given at intake; a browser decision reaches the card and the agent', async () => {
    double.requireAuth(AGENT_KEY);
    const c = await send(
      { events: true },
      { service_auth: { headers: { Authorization: AGENT_KEY } } },
    );
    double.complete(c.caseId, 'approve', { data: { note: 'from the page' } });
    const done = await relay.until(c.id, (v) => v.status === 'completed');
    expect(done).toMatchObject({
      confirmed: true,
      result: { action: 'approve', data: { note: 'from the page' } },
      responded_by: { name: 'Browser Bob' },
      submission_context: { mode: 'browser_submit' },
      watch: { state: 'ok' },
    });
    // The card is edited after the case is stored as completed: wait for the edit, not a race.
    await eventually(async () => (await card(c)).final, 10_000, 'the final card');
    const polls = double.seen('poll', c.caseId);
    expect(polls.length).toBeGreaterThan(0);
    for (const r of [...polls, ...double.seen('events', c.caseId)])
      expect(r.headers.authorization).toBe(AGENT_KEY);
    // Never shown, never logged.
    expect(JSON.stringify(await relay.get(c.id))).not.toContain('agent-key');
    expect(logLines.join('\n')).not.toContain('agent-key');
  });

  it('AUTH-2 credentials go to the case origin only: a submit carries the submit token, an events_url elsewhere is refused', async () => {
    const other = await startSpecDouble();
    try {
      // events_url on another origin: the case is refused (issue 15: a service is identified by
      // its API origin), so the other origin is never asked anything with the agent's key.
      const elsewhere = double.create({ hitl: {} });
      elsewhere.hitl.events_url = `${other.url}/cases/${elsewhere.hitl.case_id}/events`;
      const refused = await relay.send('web:auth2', elsewhere, {
        service_auth: { headers: { Authorization: AGENT_KEY } },
      });
      expect(refused.status).toBe(400);
      expect(refused.body.details.map((d: any) => d.path)).toContain('hitl.events_url');
      expect(other.requests).toEqual([]);

      const body = double.create({ hitl: {} });
      const res = await relay.send('web:auth2', body, {
        service_auth: { headers: { Authorization: AGENT_KEY } },
      });
      expect(res.status).toBe(201);
      await eventually(async () => double.seen('poll', body.hitl.case_id).length > 0);
      expect(double.seen('poll', body.hitl.case_id)[0]!.headers.authorization).toBe(AGENT_KEY);
      const msg = await eventually(() => cardOf(relay.url, 'auth2', res.body.id));
      expect((await tapWeb(relay.url, 'auth2', msg.id, 'approve')).body.outcome).toBe('submitted');
      const submits = double.seen('submit', body.hitl.case_id);
      expect(submits).toHaveLength(1);
      expect(submits[0]!.headers.authorization).toBe(`Bearer ${body.hitl.submit_token}`);
    } finally {
      await other.close();
    }
  });

  it('AUTH-3 service_auth is validated: no CR/LF, no reserved headers, at most 8', async () => {
    const body = double.create();
    for (const bad of [
      { headers: { Authorization: 'Bearer x\r\nX-Evil: 1' } },
      { headers: { Host: 'elsewhere' } },
      { headers: {} },
      { headers: Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`x-h${i}`, 'v'])) },
      { cookies: 'no' },
    ]) {
      const res = await relay.send('web:auth3', body, { service_auth: bad });
      expect(res.status).toBe(400);
      expect(res.body.details[0].path).toMatch(/^service_auth/);
    }
  });
});

describe('watch failure is not expiry', () => {
  it('WATCH-1 without credentials the agent sees a refused watch within one poll, on the view and the card', async () => {
    double.requireAuth(AGENT_KEY);
    const c = await send();
    const v = await relay.until(c.id, (x) => x.watch.state !== 'ok');
    expect(v.status).toBe('pending');
    expect(v.watch).toMatchObject({ state: 'refused', last_error: 'the service answered 401' });
    expect(double.seen('poll', c.caseId).length).toBeLessThanOrEqual(2);
    await eventually(async () => (await card(c)).status.includes('cannot see this case'));
    expect((await card(c)).status).toContain('401');
    expect(await historyKinds(c.id)).toContain('watch');
    expect(logsFor(c.id).some((l) => l.level === 40 && l.failure === 'refused')).toBe(true);
    // Credentials given again do not change a stored case; the service is healed instead.
    double.requireAuth(null);
    const ok = await relay.until(c.id, (x) => x.watch.state === 'ok');
    expect(ok.status).toBe('pending');
    await eventually(async () => !(await card(c)).status.includes('cannot see'));
  });

  it('WATCH-2 each failure class is named: gone, invalid body, unknown status, rate limited, failing', async () => {
    const cases: Array<[string, Parameters<SpecDouble['queuePoll']>[1], string]> = [
      ['gone', { status: 404, body: { error: 'not_found' } }, 'gone'],
      ['gone', { status: 410, body: { error: 'gone' } }, 'gone'],
      [
        'invalid',
        { status: 200, body: '<html>hi</html>', headers: { 'content-type': 'text/html' } },
        'invalid',
      ],
      ['invalid', { status: 200, body: { status: 'waiting', case_id: 'x' } }, 'invalid'],
      ['rate_limited', { status: 429, headers: { 'retry-after': '1' } }, 'rate_limited'],
      ['failing', { status: 503 }, 'failing'],
    ];
    for (const [, answer, state] of cases) {
      const c = await send();
      double.queuePoll(c.caseId, answer, answer, answer);
      const v = await relay.until(c.id, (x) => x.watch.state !== 'ok');
      expect(v.watch.state).toBe(state);
      expect(v.status).toBe('pending');
    }
  });

  it('WATCH-3 an unknown future status is not an expiry; a result on an open case is not a result', async () => {
    const c = await send();
    double.setStatus(c.caseId, 'awaiting_quorum');
    const v = await relay.until(c.id, (x) => x.watch.state === 'invalid');
    expect(v.watch.last_error).toContain('status');
    expect(v.status).toBe('pending');
    double.setStatus(c.caseId, 'opened');
    double.get(c.caseId).extra = {
      result: { action: 'approve', data: {} },
      responded_by: { name: 'Nobody' },
    };
    const opened = await relay.until(c.id, (x) => x.status === 'opened' && x.watch.state === 'ok');
    expect(opened.result).toBeNull();
    expect(opened.responded_by).toBeNull();
  });

  it('WATCH-4 past expires_at with the service unreadable, the expiry is local and marked unconfirmed', async () => {
    double.requireAuth(AGENT_KEY);
    const c = await send({ expiresInMs: 400 });
    const v = await relay.until(c.id, (x) => x.status === 'expired');
    expect(v.confirmed).toBe(false);
    expect(v.unconfirmed_reason).toContain('refused');
    expect(v.watch.state).toBe('refused');
    expect(await historyKinds(c.id)).toContain('status:expired:local_expiry');
    await eventually(async () => (await card(c)).final);
    expect((await card(c)).status).toContain('not confirmed');
  });

  it('WATCH-7 the agent is notified at once when the relay cannot see the case', async () => {
    const got: Array<{ event: string; body: any }> = [];
    const hook = await tinyServer((req, body, res) => {
      got.push({
        event: String(req.headers['x-hitl-relay-event']),
        body: JSON.parse(String(body)),
      });
      res.writeHead(200).end();
    });
    try {
      double.requireAuth(AGENT_KEY);
      const c = await send({}, { notify_url: `${hook.url}/hook` });
      const n = await eventually(async () => got.find((g) => g.event === 'watch_failed'), 10_000);
      expect(n.body).toMatchObject({ id: c.id, status: 'pending', watch: { state: 'refused' } });
    } finally {
      await hook.close();
    }
  });

  it('WATCH-8 a status that flips back is stale, not a change; a final case is polled no more', async () => {
    const c = await send();
    double.open(c.caseId);
    await relay.until(c.id, (x) => x.status === 'opened');
    double.setStatus(c.caseId, 'pending');
    const seen = double.seen('poll', c.caseId).length;
    await eventually(async () => double.seen('poll', c.caseId).length >= seen + 2, 10_000);
    expect(await relay.get(c.id)).toMatchObject({ status: 'opened', watch: { state: 'ok' } });
    double.complete(c.caseId, 'approve');
    await relay.until(c.id, (x) => x.status === 'completed');
    double.setStatus(c.caseId, 'pending');
    const stored = await relay.relay.services.store.getCase(c.id);
    expect(stored?.next_check_at).toBeNull();
  });

  it('WATCH-5 a service-confirmed expiry is confirmed', async () => {
    const c = await send();
    double.expire(c.caseId);
    const v = await relay.until(c.id, (x) => x.status === 'expired');
    expect(v.confirmed).toBe(true);
    expect(await historyKinds(c.id)).toContain('status:expired:poll');
  });
});

describe("the service's result is the result", () => {
  it("RESULT-1 after an accepted tap the result, responded_by, submission_context and verification_result are the service's", async () => {
    const c = await send();
    const r = await tapWeb(relay.url, c.room, c.card.id, 'approve');
    expect(r.body.outcome).toBe('submitted');
    const v = await relay.get(c.id);
    expect(v).toMatchObject({
      status: 'completed',
      confirmed: true,
      result: { action: 'approve', data: { via_double: true } },
      responded_by: { name: 'Ann' },
      submitted_by: { platform: 'x-web', platform_user_id: 'ann' },
      submission_context: { mode: 'inline_submit', submitted_via: 'x-web_button' },
      verification_result: { status: 'not_required' },
    });
    expect(await historyKinds(c.id)).toContain('status:completed:submit_confirmed');
  });

  it('RESULT-2 a 200 without result and a poll that fails: the action the service took, no data invented', async () => {
    const c = await send();
    double.queueSubmit(c.caseId, {
      status: 200,
      body: { status: 'completed', case_id: c.caseId, completed_at: new Date().toISOString() },
    });
    double.queuePoll(c.caseId, { status: 503 }, { status: 503 }, { status: 503 });
    expect((await tapWeb(relay.url, c.room, c.card.id, 'reject')).body.outcome).toBe('submitted');
    const v = await relay.get(c.id);
    expect(v.status).toBe('completed');
    expect(v.result).toEqual({ action: 'reject' });
  });
});

describe('submit answers', () => {
  async function tapAnswered(answer: Parameters<SpecDouble['queueSubmit']>[1], action = 'approve') {
    const c = await send();
    double.queueSubmit(c.caseId, answer);
    const r = await tapWeb(relay.url, c.room, c.card.id, action);
    return { c, r: r.body, view: await relay.get(c.id) };
  }
  const submitLog = (id: string) =>
    logsFor(id).find((l) => l.msg === 'submit not accepted' && l.level === 40);

  it.each([400, 422])(
    'SUBMIT-1 %i: the service refused the request, its message shown; buttons gone, Details stays',
    async (status) => {
      const { c, r, view } = await tapAnswered({
        status,
        body: { error: 'invalid_request', message: 'data.reason is required' },
      });
      expect(r.outcome).toBe('refused');
      expect(r.text).toContain('data.reason is required');
      expect(view.status).toBe('pending');
      expect(await buttons(c)).toEqual([]);
      const shown = await card(c);
      expect(shown.status).toContain(`refused this answer (${status}): data.reason is required`);
      expect(shown.link).toBeTruthy();
      expect(view.history.find((h: any) => h.kind === 'submit')).toMatchObject({
        outcome: 'refused',
        status,
      });
      expect(submitLog(c.id)).toMatchObject({ outcome: 'refused', status });
    },
  );

  it('SUBMIT-2 401: inline unavailable, Details only', async () => {
    const { c, r, view } = await tapAnswered({ status: 401, body: { error: 'invalid_token' } });
    expect(r.outcome).toBe('inline_unavailable');
    expect(view.status).toBe('pending');
    expect(await buttons(c)).toEqual([]);
    expect(submitLog(c.id)).toMatchObject({ outcome: 'unauthorized' });
  });

  it.each(['verification_required', 'verification_failed'])(
    'SUBMIT-3 403 %s: buttons gone, Details offered',
    async (error) => {
      const { c, r, view } = await tapAnswered({ status: 403, body: { error, case_id: 'x' } });
      expect(r.outcome).toBe('use_review_url');
      expect(view.status).toBe('pending');
      expect(await buttons(c)).toEqual([]);
      const shown = await card(c);
      expect(shown.status).toContain('proof that a person decides');
      // The person is sent to the review page: the card keeps its Details link.
      expect(shown.link).toMatchObject({ label: 'Details', url: expect.stringMatching(DETAILS) });
      expect(view.history.find((h: any) => h.kind === 'submit')).toMatchObject({
        outcome: 'forbidden',
        error,
      });
      expect(submitLog(c.id)).toMatchObject({ outcome: 'forbidden', error });
    },
  );

  it('SUBMIT-4 403 action_not_inline: that button goes, the others stay', async () => {
    const { c, r } = await tapAnswered(
      { status: 403, body: { error: 'action_not_inline' } },
      'reject',
    );
    expect(r.outcome).toBe('use_review_url');
    expect(await buttons(c)).toEqual(['approve']);
    const shown = await card(c);
    expect(shown.status).toContain('does not take Reject from a chat button');
    expect(shown.link).toMatchObject({ label: 'Details', url: expect.stringMatching(DETAILS) });
  });

  it('SUBMIT-13 403 for any other reason (this person may not decide here): Details, nothing decided', async () => {
    const { c, r, view } = await tapAnswered({
      status: 403,
      body: { error: 'forbidden', message: 'this reviewer may not decide this case' },
    });
    expect(r.outcome).toBe('use_review_url');
    expect(r.text).toMatch(/Details/);
    expect(view.status).toBe('pending');
    expect(await buttons(c)).toEqual([]);
    const shown = await card(c);
    expect(shown.link).toMatchObject({ label: 'Details', url: expect.stringMatching(DETAILS) });
    expect(shown.status).toMatch(/Details/);
    expect(view.history.find((h: any) => h.kind === 'submit')).toMatchObject({
      outcome: 'forbidden',
    });
  });

  it('SUBMIT-5 409 with a readable case: the final state from the poll', async () => {
    const c = await send();
    double.complete(c.caseId, 'reject');
    double.queueSubmit(c.caseId, { status: 409, body: { error: 'duplicate_submission' } });
    const r = (await tapWeb(relay.url, c.room, c.card.id, 'approve')).body;
    expect(r.outcome).toBe('closed');
    const v = await relay.get(c.id);
    expect(v).toMatchObject({ status: 'completed', result: { action: 'reject' } });
    await eventually(async () => (await card(c)).final, 10_000, 'the final card');
  });

  it('SUBMIT-6 409 with a failing poll: buttons removed, "already decided elsewhere"', async () => {
    const c = await send();
    double.queueSubmit(c.caseId, { status: 409, body: { error: 'duplicate_submission' } });
    double.queuePoll(c.caseId, { status: 503 }, { status: 503 }, { status: 503 }, { status: 503 });
    const r = (await tapWeb(relay.url, c.room, c.card.id, 'approve')).body;
    expect(r.outcome).toBe('closed');
    expect(r.text).toContain('decided elsewhere');
    expect(await buttons(c)).toEqual([]);
    expect((await card(c)).status).toContain('already decided elsewhere');
    expect(submitLog(c.id)).toMatchObject({ outcome: 'closed', status: 409 });
  });

  it('SUBMIT-7 410: the case is expired (the service said so)', async () => {
    const c = await send();
    double.queueSubmit(c.caseId, { status: 410, body: { error: 'case_expired' } });
    double.queuePoll(c.caseId, { status: 503 }, { status: 503 });
    const r = (await tapWeb(relay.url, c.room, c.card.id, 'approve')).body;
    expect(r.outcome).toBe('closed');
    const v = await relay.get(c.id);
    expect(v).toMatchObject({ status: 'expired', confirmed: true });
    expect(await historyKinds(c.id)).toContain('status:expired:submit_410');
  });

  it('SUBMIT-8 429 with Retry-After 30: shown, and no submit before then', async () => {
    const { c, r, view } = await tapAnswered({
      status: 429,
      headers: { 'retry-after': '30' },
      body: { error: 'rate_limited' },
    });
    expect(r.outcome).toBe('rate_limited');
    expect(r.text).toMatch(/wait (29|30) s/);
    expect(view.status).toBe('pending');
    expect(await buttons(c)).toEqual(['approve', 'reject']);
    expect((await card(c)).status).toMatch(
      /asks to wait; nothing was decided. Try again after .* \((29|30) s\)/,
    );
    const again = (await tapWeb(relay.url, c.room, c.card.id, 'approve')).body;
    expect(again.outcome).toBe('rate_limited');
    expect(double.seen('submit', c.caseId)).toHaveLength(1);
    expect(submitLog(c.id)).toMatchObject({ outcome: 'rate_limited' });
  });

  it('SUBMIT-9 500 until the review page is opened: "the service failed", Details works, then a tap succeeds', async () => {
    const c = await send();
    double.get(c.caseId).failSubmitUntilOpened = true;
    const r = (await tapWeb(relay.url, c.room, c.card.id, 'approve')).body;
    expect(r.outcome).toBe('service_failed');
    expect(r.text).toBe(
      'The service failed (it answered 500); nothing was decided. Try again or use Details.',
    );
    const v = await relay.get(c.id);
    expect(v.status).toBe('pending');
    expect(v.result).toBeNull();
    expect(await buttons(c)).toEqual(['approve', 'reject']);
    expect((await card(c)).status).toContain('The service failed (it answered 500)');
    expect(submitLog(c.id)).toMatchObject({ outcome: 'service_failed', status: 500 });
    // Details leads to the review page; opening it is what the service needed.
    const details = await fetch((await card(c)).link.url, { redirect: 'manual' });
    const review = details.headers.get('location');
    expect(review).toContain('/review/');
    await fetch(review!);
    expect((await tapWeb(relay.url, c.room, c.card.id, 'approve')).body.outcome).toBe('submitted');
    expect(await relay.get(c.id)).toMatchObject({
      status: 'completed',
      result: { action: 'approve' },
    });
  });

  it('SUBMIT-10 unreachable: "could not reach the service"', async () => {
    // The service goes away after its case was posted: nothing listens on its origin any more.
    const gone = await startSpecDouble();
    const body = gone.create();
    const res = await relay.send('web:unreach', body);
    const msg = await eventually(() => cardOf(relay.url, 'unreach', res.body.id));
    await gone.close();
    const r = (await tapWeb(relay.url, 'unreach', msg.id, 'approve')).body;
    expect(r.outcome).toBe('failed');
    expect(r.text).toContain('Could not reach the service');
    expect((await relay.get(res.body.id)).status).toBe('pending');
    expect(submitLog(res.body.id)).toMatchObject({ outcome: 'failed' });
  });
});

describe('watching', () => {
  it('DETECT-5 polling starts at once, sends If-None-Match (POLL-5), and nothing is submitted without a tap', async () => {
    const c = await send();
    await eventually(async () => double.seen('poll', c.caseId).length >= 3, 10_000, 'three polls');
    const polls = double.seen('poll', c.caseId);
    expect(polls[0]!.headers['if-none-match']).toBeUndefined();
    expect(polls.at(-1)!.headers['if-none-match']).toMatch(/^"[0-9a-f]{16}"$/);
    expect(double.seen('submit', c.caseId)).toEqual([]);
  });

  it('POLL-5 an unchanged case answers 304 and changes nothing', async () => {
    const c = await send();
    await eventually(async () => double.seen('poll', c.caseId).length >= 3, 10_000, 'three polls');
    const v = await relay.get(c.id);
    expect(v).toMatchObject({ status: 'pending', watch: { state: 'ok' } });
    expect(v.history.filter((h: any) => h.kind === 'status')).toEqual([]);
  });
});
