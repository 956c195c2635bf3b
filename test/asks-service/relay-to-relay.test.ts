/**
 * Relay -> relay: relay A answers an ask with its own 202; relay B takes that 202 in like any
 * service's, draws the ask natively from `context.ask`, and submits the typed answer to A's
 * submit_url. A's service checks and records it; both relays report the same typed answer.
 */
import { request } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { buildSubmitRequest } from '../../src/protocol/actions.ts';
import { KINDS } from '../asks/fixtures.ts';
import { eventually, type RelayHandle, startRelay } from '../helpers/relay-env.ts';
import { schemaValidator } from '../helpers/spec.ts';

let a: RelayHandle;
let b: RelayHandle;
beforeAll(async () => {
  a = await startRelay({ adapters: [createWebAdapter()] });
  b = await startRelay({ adapters: [createWebAdapter()] });
});
afterAll(async () => {
  await b?.stop();
  await a?.stop();
});

async function post(base: string, path: string, body: unknown) {
  const res = await request(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.statusCode, body: (await res.body.json()) as any };
}

it('another relay consumes an ask: native controls, typed submit, both relays agree', {
  tags: ['corpus'],
}, async () => {
  const fx = KINDS['decision.rank'];
  const created = await post(a.url, '/v1/asks', { target: 'web:a-room', content: fx.content });
  expect(created.status).toBe(202);
  const { relay: _view, ...response } = created.body;
  // Relay A's asks are read with the owner's credential: B is given the submit token to read with.
  const owner = { authorization: `Bearer ${response.hitl.submit_token}` };
  const taken = await b.send('web:b-room', response, { service_auth: { headers: owner } });
  expect(taken.status, JSON.stringify(taken.body)).toBe(201);

  const m = await eventually(async () => {
    const res = await request(`${b.url}/web/api/rooms/b-room/messages`);
    return ((await res.body.json()) as any[]).find((x) => x.ask);
  });
  expect(m.ask.kind).toBe('decision.rank');
  const tap = async (data: Record<string, unknown>) =>
    post(b.url, `/web/api/rooms/b-room/messages/${m.id}/actions/submit`, {
      user: { id: 'bob', name: 'Bob' },
      data,
    });
  expect((await tap({ ranking: ['sms'] })).body.outcome).toBe('invalid_answer');
  expect((await tap(fx.answer.data)).body.outcome).toBe('submitted');

  const atB = await b.until(taken.body.id, (c) => c.final);
  expect(atB.result).toEqual({ action: 'submit', data: fx.result });
  const atA = await a.until(created.body.relay.id, (c) => c.final);
  expect(atA.result).toEqual({ action: 'submit', data: fx.result });
  // A's service recorded one inline submit, schema-valid, from relay B's person.
  const validSubmit = schemaValidator('v0.9/submit-request.schema.json');
  const submits = atB.history.filter((h: any) => h.kind === 'submit');
  expect(submits).toHaveLength(1);
  expect(atA.responded_by).toMatchObject({ name: 'Bob' });
  const sent = {
    ...buildSubmitRequest('submit', 'web', { id: 'bob', name: 'Bob' }),
    data: fx.result,
  };
  expect(validSubmit(sent), JSON.stringify(validSubmit.errors)).toBe(true);
});
