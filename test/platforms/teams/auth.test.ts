/**
 * Who may talk to POST /api/messages. With an app id: botbuilder's JWT check against the signing
 * keys of a fake issuer on loopback; a forged, broken or expired token answers 401 with a plain
 * error (botbuilder's CloudAdapter answered a forged signature with 500 "invalid signature"), the
 * log says why without the token, and unreadable signing keys answer 503. In the unauthenticated
 * test mode: only loopback serviceUrls, and no activity replaces a stored conversation reference.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { classifyAuthFailure, testModeServiceUrlRefusal } from '../../../platforms/teams/http.ts';
import { conversationKey } from '../../../platforms/teams/parse.ts';
import { FakeTeamsConnector } from '../../fakes/teams-connector.ts';
import { FakeTeamsIssuer, newSigningKey, signJwt } from '../../fakes/teams-openid.ts';
import {
  channelId,
  executeInvoke,
  installActivity,
  makeCard,
  type Rig,
  startRig,
} from './helpers.ts';

const APP_ID = '0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0';
const ANN = { id: '29:1ann-aad-object', name: 'Ann Example' };

let rig: Rig | undefined;
let issuer: FakeTeamsIssuer | undefined;
let other: FakeTeamsConnector | undefined;
afterEach(async () => {
  await rig?.close();
  await issuer?.close();
  await other?.close();
  rig = issuer = other = undefined;
});

describe('with an app id: the Bot Framework JWT', () => {
  async function authenticated() {
    issuer = await FakeTeamsIssuer.start();
    rig = await startRig({
      config: {
        appId: APP_ID,
        appPassword: 'not-used-in-this-test-0123456789',
        allowUnauthenticated: false,
        tuning: {
          pace: [],
          retry: { retries: 0, baseDelayMs: 1, maxDelayMs: 1, maxRetryAfterMs: 0 },
          invokeDeadlineMs: 2000,
          openIdMetadataUrl: issuer.metadataUrl,
        },
      },
    });
    const r = rig;
    const invoke = () =>
      executeInvoke(r.fake.serviceUrl, channelId(), '1', 'hitl:k7Qa9:approve', ANN);
    const send = (token: string) => r.deliver(invoke(), { authorization: `Bearer ${token}` });
    return { r, iss: issuer, send };
  }

  it('accepts a token signed with the published key (the check is real)', async () => {
    const { r, iss, send } = await authenticated();
    const res = await send(iss.token(APP_ID, r.fake.serviceUrl));
    expect(res.status).toBe(200);
    expect(r.taps).toHaveLength(1);
    expect(iss.served).toBeGreaterThan(0);
  });

  it('a forged token (another key, the published kid) answers 401 with a plain error', async () => {
    const { r, iss, send } = await authenticated();
    const forged = signJwt(iss.claims(APP_ID, r.fake.serviceUrl), newSigningKey(), iss.kid);
    const res = await send(forged);
    expect(res).toEqual({ status: 401, body: { error: 'unauthorized' } });
    expect(r.taps).toHaveLength(0);
    const log = r.logLines.join('');
    expect(log).toContain('teams request refused: not authenticated');
    expect(log).toContain('invalid signature');
    for (const part of forged.split('.')) expect(log).not.toContain(part);
    expect(r.fake.requests()).toHaveLength(0);
  });

  it('an unknown key, a malformed, an expired or a wrong-audience token: 401, nothing internal', async () => {
    const { r, iss, send } = await authenticated();
    const claims = iss.claims(APP_ID, r.fake.serviceUrl);
    const past = Math.floor(Date.now() / 1000) - 3600;
    const tokens = [
      signJwt(claims, newSigningKey(), 'no-such-key'),
      'not.a.jwt',
      'garbage',
      iss.token(APP_ID, r.fake.serviceUrl, { exp: past, nbf: past - 60, iat: past - 60 }),
      iss.token('11111111-2222-3333-4444-555555555555', r.fake.serviceUrl),
      iss.token(APP_ID, 'http://127.0.0.1:1/'),
    ];
    for (const token of tokens) {
      expect(await send(token), token).toEqual({ status: 401, body: { error: 'unauthorized' } });
    }
    expect(r.taps).toHaveLength(0);
    const log = r.logLines.join('');
    for (const token of tokens) expect(log).not.toContain(token);
  });

  it('signing keys that cannot be read answer 503 and an error log, not 500', async () => {
    const { r, iss, send } = await authenticated();
    iss.failing = true;
    const res = await send(iss.token(APP_ID, r.fake.serviceUrl));
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ error: 'unavailable' });
    expect(r.taps).toHaveLength(0);
    expect(r.logLines.join('')).toContain('signing keys could not be read');
  });

  it('classifyAuthFailure keeps the token out of the reason', () => {
    const token = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl';
    const err = Object.assign(new Error(`jwt malformed: ${token}`), { name: 'JsonWebTokenError' });
    const failure = classifyAuthFailure(err, `Bearer ${token}`);
    expect(failure.kind).toBe('refused');
    expect(failure.reason).not.toContain(token);
    const fetch = Object.assign(new Error('request to https://login.example failed'), {
      name: 'FetchError',
    });
    expect(classifyAuthFailure(fetch, '').kind).toBe('unavailable');
    const keys = Object.assign(new Error('Failed to load Keys: 500'), { statusCode: 500 });
    expect(classifyAuthFailure(keys, '').kind).toBe('unavailable');
    const refused = Object.assign(new Error('Unauthorized. No valid identity.'), {
      statusCode: 401,
    });
    expect(classifyAuthFailure(refused, '').kind).toBe('refused');
  });
});

describe('the unauthenticated test mode', () => {
  it('accepts only loopback serviceUrls (the policy function)', () => {
    for (const ok of [
      'http://127.0.0.1:3978/',
      'https://127.0.0.2/',
      'http://[::1]:8080/api',
      'http://localhost:3978/',
      'http://LocalHost./',
      'http://bot.localhost/',
      'http://[::ffff:127.0.0.1]/',
    ])
      expect(testModeServiceUrlRefusal(ok), ok).toBeNull();
    for (const bad of [
      'https://smba.trafficmanager.net/amer/',
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.1/',
      'http://[fe80::1]/',
      'http://0.0.0.0/',
      'http://127.0.0.1.nip.io/',
      'http://user:pw@127.0.0.1/',
      'ftp://127.0.0.1/',
      'not a url',
    ])
      expect(testModeServiceUrlRefusal(bad), bad).toMatch(/serviceUrl/);
  });

  it('refuses an activity whose serviceUrl is not loopback, before any turn runs', async () => {
    rig = await startRig();
    const id = channelId();
    // 0.0.0.0 is this machine on Linux: even a broken check would send nothing off it.
    const res = await rig.deliver(installActivity('http://0.0.0.0:9/', id));
    expect(res.status).toBe(403);
    expect(res.body).toMatchObject({ error: 'service_url_refused' });
    expect(await rig.adapter.checkAddress?.(conversationKey(id))).toMatch(
      /no conversation reference/,
    );
    expect(rig.logLines.join('')).toContain('teams activity refused');
  });

  it('an activity never replaces a stored conversation reference', async () => {
    rig = await startRig();
    const { conversationId, key } = await rig.install();
    other = await FakeTeamsConnector.start();
    const again = await rig.deliver(installActivity(other.serviceUrl, conversationId));
    expect(again.status).toBe(200);
    const ref = await rig.adapter.post(key, makeCard());
    // The card went to the connector of the first install, not to the newcomer's.
    expect(rig.fake.card(ref.id.slice(ref.id.indexOf(':') + 1))).toBeDefined();
    expect(other.requests().filter((b) => b.includes('AdaptiveCard'))).toHaveLength(0);
  });
});
