/**
 * Credentials for the service's watch endpoints from the client side: createHitlFetch and
 * hitlInterceptor pass the original call's Authorization along when poll_url is on the call's
 * origin, so a service that refuses unauthenticated polls still gets its browser decisions seen,
 * with no extra code. Opting out (or another origin) sends nothing, and the watch says "refused".
 */
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import { serviceAuthFor } from '../../src/client/catch.ts';
import { createHitlFetch, hitlInterceptor, RelayClient } from '../../src/client/index.ts';
import { type SpecDouble, startSpecDouble } from '../fakes/spec-double.ts';
import { type RelayHandle, startRelay } from '../helpers/relay-env.ts';

const KEY = 'Bearer agent-key-0123456789abcdef';
let double: SpecDouble;
let relay: RelayHandle;
let client: RelayClient;

beforeAll(async () => {
  double = await startSpecDouble();
  double.requireAuth(KEY);
  relay = await startRelay({ adapters: [createWebAdapter()] });
  client = new RelayClient({ relayUrl: relay.url });
});
afterAll(async () => {
  await relay.stop();
  await double.close();
});

describe('service credentials from the client', () => {
  it('AUTH-4 createHitlFetch passes the call Authorization along: a browser decision reaches the agent', async () => {
    const hitlFetch = createHitlFetch({ relayUrl: relay.url, target: 'web:cred', await: false });
    const res = await hitlFetch(`${double.url}/api/act`, {
      method: 'POST',
      headers: { authorization: KEY },
    });
    expect(res.status).toBe(202);
    const caseId = res.hitl!.case_id;
    double.complete(caseId, 'approve', { data: { note: 'ok' } });
    const v = await client.wait(res.hitl!.relay_case_id, { timeoutMs: 10_000 });
    expect(v).toMatchObject({
      status: 'completed',
      confirmed: true,
      result: { action: 'approve' },
    });
    expect(double.seen('poll', caseId).every((r) => r.headers.authorization === KEY)).toBe(true);
  });

  it('AUTH-5 hitlInterceptor does the same for undici', async () => {
    const dispatcher = new Agent().compose(
      hitlInterceptor({ relayUrl: relay.url, target: 'web:cred-i', await: false }),
    );
    const res = await request(`${double.url}/api/act`, {
      method: 'POST',
      headers: { authorization: KEY },
      dispatcher,
    });
    const body = (await res.body.json()) as any;
    const caseId = body.hitl.case_id;
    double.complete(caseId, 'reject');
    const v = await client.wait(body.hitl_relay.relay_case_id, { timeoutMs: 10_000 });
    expect(v).toMatchObject({ status: 'completed', result: { action: 'reject' } });
    expect(double.seen('poll', caseId)[0]!.headers.authorization).toBe(KEY);
    await dispatcher.close();
  });

  it('AUTH-6 with forwardAuthorization: false nothing is passed, and the agent sees a refused watch, not an expiry', async () => {
    const hitlFetch = createHitlFetch({
      relayUrl: relay.url,
      target: 'web:cred-off',
      await: false,
      forwardAuthorization: false,
    });
    const res = await hitlFetch(`${double.url}/api/act`, {
      method: 'POST',
      headers: { authorization: KEY },
    });
    const v = await relay.until(res.hitl!.relay_case_id, (x) => x.watch.state !== 'ok');
    expect(v).toMatchObject({ status: 'pending', watch: { state: 'refused' } });
    const outcome = await client.get(res.hitl!.relay_case_id);
    expect(outcome.final).toBe(false);
  });

  it('AUTH-7 the Authorization goes along only when poll_url is on the call origin', () => {
    const body = { hitl: { poll_url: 'https://svc.example/cases/1/status' } };
    const call = (url: string) => ({ url, authorization: KEY });
    expect(serviceAuthFor(body, {}, call('https://svc.example/api'))).toEqual({
      headers: { authorization: KEY },
    });
    expect(serviceAuthFor(body, {}, call('https://other.example/api'))).toBeUndefined();
    expect(serviceAuthFor(body, {}, call('http://svc.example/api'))).toBeUndefined();
    expect(
      serviceAuthFor(body, { forwardAuthorization: false }, call('https://svc.example/')),
    ).toBeUndefined();
    const explicit = { headers: { 'x-api-key': 'k' } };
    expect(serviceAuthFor(body, { service_auth: explicit }, call('https://other.example/'))).toBe(
      explicit,
    );
  });
});
