/** Issue 2's end-to-end acceptance over real HTTP: demo service -> relay -> web chat -> tap -> final card. */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { CONFIRM_MIN_MS } from '../../src/tap/confirm-irreversible.ts';
import {
  type DemoHandle,
  eventually,
  logLines,
  type RelayHandle,
  startDemo,
  startRelay,
} from '../helpers/relay-env.ts';
import { schemaValidator } from '../helpers/spec.ts';

let demo: DemoHandle;
let relay: RelayHandle;
const responses: string[] = [];

async function messages(room: string): Promise<any[]> {
  const res = await request(`${relay.url}/web/api/rooms/${room}/messages`);
  const text = await res.body.text();
  responses.push(text);
  return JSON.parse(text);
}

async function tap(room: string, id: string, action: string, user = { id: 'ann', name: 'Ann' }) {
  const res = await request(`${relay.url}/web/api/rooms/${room}/messages/${id}/actions/${action}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ user }),
  });
  const text = await res.body.text();
  responses.push(text);
  return { status: res.statusCode, body: JSON.parse(text) };
}

beforeAll(async () => {
  demo = await startDemo();
  relay = await startRelay({ adapters: [createWebAdapter()] });
});
afterAll(async () => {
  await relay?.stop();
  await demo?.stop();
});

const INLINE: Record<
  string,
  { actions: string[]; tap?: string; confirm?: boolean; respond?: string }
> = {
  approval: { actions: ['approve', 'reject'], tap: 'reject' },
  selection: { actions: [], respond: 'select' },
  input: { actions: [], respond: 'submit' },
  confirmation: { actions: ['confirm', 'cancel'], tap: 'confirm', confirm: true },
  escalation: { actions: ['retry', 'skip', 'abort'], tap: 'skip' },
};

/** What a reviewer enters on the review page for the types that need it. */
const ANSWERS: Record<string, Record<string, unknown>> = {
  selection: { selected: ['job-2'] },
  input: { full_name: 'Ann Example', salary_expectation: 100000, work_authorization: 'citizen' },
};

describe('each review type, inline on and off', () => {
  for (const [type, spec] of Object.entries(INLINE)) {
    for (const inline of [true, false]) {
      it(`${type}, inline ${inline ? 'on' : 'off'}`, async () => {
        const room = `${type}-${inline ? 'on' : 'off'}`;
        const response = await demo.create(type, inline);
        const sent = await relay.send(`web:${room}`, response);
        expect(sent.status).toBe(201);
        expect(JSON.stringify(sent.body)).not.toContain(response.hitl.submit_token ?? '@@none@@');
        const [m] = await messages(room);
        expect(m.case).toBe(sent.body.id);
        expect(m.actions.map((a: any) => a.action)).toEqual(inline ? spec.actions : []);
        expect(m.link.label).toBe('Details');
        // The Details link leads to the review page through the relay (303), never carrying the token itself.
        const hop = await request(m.link.url, { method: 'GET' });
        await hop.body.dump();
        expect(hop.statusCode).toBe(303);
        expect(hop.headers.location).toBe(response.hitl.review_url);
        const expected = inline && spec.tap ? spec.tap : (spec.respond ?? spec.tap!);
        if (inline && spec.tap) {
          let r = await tap(room, m.id, spec.tap);
          if (spec.confirm) {
            expect(r.body.outcome).toBe('confirm_required');
            // The confirming tap counts once the warning has been up for CONFIRM_MIN_MS.
            await new Promise((resolve) => setTimeout(resolve, CONFIRM_MIN_MS));
            r = await tap(room, m.id, spec.tap);
          }
          expect(r.body.outcome).toBe('submitted');
          const subs = (await demo.submissions()).filter(
            (s) => s.case_id === response.hitl.case_id,
          );
          expect(subs).toHaveLength(1);
          expect(subs[0]!.bearer_valid).toBe(true);
        } else {
          await demo.act(response.hitl.case_id, {
            step: 'respond',
            action: expected,
            data: ANSWERS[type] ?? {},
          });
        }
        const done = await relay.until(sent.body.id, (c) => c.status === 'completed');
        expect(done.result.action).toBe(expected);
        const final = await eventually(
          async () => (await messages(room)).find((x) => x.id === m.id && x.final),
          10_000,
          'the final card',
        );
        expect(final.actions).toEqual([]);
      });
    }
  }
});

describe('submits', () => {
  it('every submit request validates against submit-request.schema.json', {
    tags: ['corpus'],
  }, async () => {
    const validate = schemaValidator('submit-request.schema.json');
    const subs = await demo.submissions();
    expect(subs.length).toBeGreaterThan(0);
    for (const s of subs) expect(validate(s.body), JSON.stringify(validate.errors)).toBe(true);
  });

  it('50 concurrent taps on one case produce exactly one submit POST', async () => {
    const response = await demo.create('approval', true);
    const sent = await relay.send('web:crowd', response);
    const [m] = await messages('crowd');
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        tap('crowd', m.id, 'approve', { id: `u${i}`, name: `U${i}` }),
      ),
    );
    expect(results.filter((r) => r.body.outcome === 'submitted')).toHaveLength(1);
    expect(results.every((r) => ['submitted', 'busy', 'closed'].includes(r.body.outcome))).toBe(
      true,
    );
    await relay.until(sent.body.id, (c) => c.status === 'completed');
    expect(
      (await demo.submissions()).filter((s) => s.case_id === response.hitl.case_id),
    ).toHaveLength(1);
  });

  it('a tap on a finished case changes nothing', async () => {
    const room = 'approval-on';
    const [m] = await messages(room);
    const before = (await demo.submissions()).length;
    const r = await tap(room, m.id, 'approve');
    expect(r.body.outcome).toBe('closed');
    expect((await demo.submissions()).length).toBe(before);
  });
});

describe('intake', () => {
  it('the same case twice is one relay case (200 the second time)', async () => {
    const response = await demo.create('escalation', true);
    const a = await relay.send('web:twice', response);
    const b = await relay.send('web:twice', response);
    expect([a.status, b.status]).toEqual([201, 200]);
    expect(b.body.id).toBe(a.body.id);
    expect(await messages('twice')).toHaveLength(1);
  });

  it('a malformed body gets 400 with the failing field paths, and no case is stored', async () => {
    const response = await demo.create('approval', true);
    const before = (await (await request(`${relay.url}/v1/cases?limit=500`)).body.json()) as any;
    const bad = structuredClone(response);
    bad.hitl.poll_url = 'not a url';
    delete bad.hitl.prompt;
    const r = await relay.send('web:bad', bad);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('invalid_hitl');
    expect(r.body.details.map((d: any) => d.path).sort()).toEqual([
      'response.hitl.poll_url',
      'response.hitl.prompt',
    ]);
    const refused = await relay.send('web:bad', {
      ...response,
      hitl: { ...response.hitl, poll_url: 'https://169.254.169.254/latest' },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.details[0].path).toBe('hitl.poll_url');
    const unknown = await relay.send('nowhere:1', response);
    expect(unknown.status).toBe(400);
    expect(unknown.body.details[0].path).toBe('target');
    const after = (await (await request(`${relay.url}/v1/cases?limit=500`)).body.json()) as any;
    expect(after.cases.length).toBe(before.cases.length);
    const notJson = await request(`${relay.url}/v1/cases`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'x',
    });
    expect(notJson.statusCode).toBe(415);
    await notJson.body.dump();
  });
});

describe('secrets', () => {
  it('no submit_token or review token in any API response, web chat payload or log line', async () => {
    const subs = await demo.submissions();
    expect(subs.length).toBeGreaterThan(0);
    const all = await (await request(`${relay.url}/v1/cases?limit=500`)).body.text();
    const views = await Promise.all(
      (JSON.parse(all).cases as any[]).map(async (c) =>
        (await request(`${relay.url}/v1/cases/${c.id}`)).body.text(),
      ),
    );
    const haystack = [all, ...views, ...responses, ...logLines].join('\n');
    const created = await demo.create('confirmation', true);
    await relay.send('web:scan', created);
    for (const line of [...logLines, ...(await messages('scan')).map((m) => JSON.stringify(m))]) {
      expect(line).not.toContain(created.hitl.submit_token);
      expect(line).not.toContain(new URL(created.hitl.review_url).searchParams.get('token'));
    }
    expect(haystack).not.toMatch(/agt_|"submit_token"/);
    expect(haystack).not.toMatch(/[?&]token=[A-Za-z0-9_-]{20,}/);
  });
});
