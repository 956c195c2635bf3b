/**
 * Finding 8 (URL policy gaps): IPv6 forms that embed or translate an IPv4 address passed the
 * policy (on a NAT64 host they reach private and metadata addresses), and names for loopback
 * ("localhost.", "foo.localhost", an /etc/hosts name) were accepted at intake in production mode.
 * Every check here calls the policy functions; nothing connects anywhere.
 */

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebAdapter } from '../../platforms/web/index.ts';
import {
  addressRefusal,
  resolvedUrlRefusal,
  type UrlPolicy,
  urlRefusal,
} from '../../src/net/url-policy.ts';
import { type RelayHandle, startRelay } from '../helpers/relay-env.ts';
import { type HostileService, startHostileService } from './hostile-service.ts';

const strict: UrlPolicy = { allowHttpLoopback: false, allowHosts: [] };
const local: UrlPolicy = { allowHttpLoopback: true, allowHosts: [] };

describe('finding 8 (URL policy gaps): IPv6 ranges that reach IPv4 are refused', () => {
  const ranges: Array<[string, string, RegExp]> = [
    ['NAT64 64:ff9b::/96 (10.0.0.1)', '64:ff9b::a00:1', /NAT64/],
    ['NAT64 64:ff9b::/96 (169.254.169.254)', '64:ff9b::a9fe:a9fe', /NAT64/],
    ['local-use NAT64 64:ff9b:1::/48', '64:ff9b:1::a00:1', /local-use NAT64/],
    ['IPv4-compatible ::/96', '::a00:1', /IPv4-compatible/],
    ['SIIT ::ffff:0:0:0/96', '::ffff:0:a00:1', /SIIT/],
    ['6to4 2002::/16', '2002:a00:1::1', /6to4/],
    ['Teredo 2001::/32', '2001:0:4136:e378:8000:63bf:3fff:fdd2', /Teredo/],
  ];
  for (const [name, ip, why] of ranges) {
    it(`${name}: refused in a URL (intake), in both modes`, () => {
      expect(urlRefusal(`https://[${ip}]/status`, strict)).toMatch(why);
      expect(urlRefusal(`https://[${ip}]/status`, local)).toMatch(why);
    });
    it(`${name}: refused as a resolved address (connect)`, () => {
      expect(addressRefusal(ip, 'svc.example', strict)).toMatch(why);
    });
  }

  it('public IPv6 (outside those ranges) and allowlisted hosts stay accepted', () => {
    expect(urlRefusal('https://[2606:4700:4700::1111]/', strict)).toBeNull();
    expect(urlRefusal('https://[2001:4860:4860::8888]/', strict)).toBeNull(); // 2001:4860:: is not Teredo
    expect(addressRefusal('2a00:1450:4001::200e', 'svc.example', strict)).toBeNull();
    expect(
      addressRefusal('64:ff9b::a00:1', 'nat64.corp', { ...strict, allowHosts: ['nat64.corp'] }),
    ).toBeNull();
    // IPv4-mapped addresses are judged as the IPv4 address they are.
    expect(urlRefusal('https://[::ffff:93.184.215.14]/', strict)).toBeNull();
    expect(urlRefusal('https://[::ffff:10.0.0.1]/', strict)).toMatch(/private/);
  });
});

describe('finding 8 (URL policy gaps): names for loopback are refused at intake', () => {
  for (const host of ['localhost.', 'LocalHost.', 'localhost..', 'foo.localhost', 'a.b.LOCALHOST.'])
    it(`https://${host}/ is loopback (refused in production, plain HTTP allowed locally)`, () => {
      expect(urlRefusal(`https://${host}/status`, strict)).toMatch(/loopback/);
      expect(urlRefusal(`http://${host}:8080/status`, local)).toBeNull();
    });

  it('names are resolved at intake as at connect (a resolver the test controls)', async () => {
    const table: Record<string, string[]> = {
      'rebind.example': ['93.184.215.14', '127.0.0.1'],
      'internal.example': ['10.0.0.7'],
      'nat64.example': ['64:ff9b::a9fe:a9fe'],
      'api.example': ['93.184.215.14', '2606:4700::6810:84e5'],
    };
    const resolve = async (h: string) => {
      const a = table[h];
      if (!a) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
      return a;
    };
    expect(await resolvedUrlRefusal('https://rebind.example/s', strict, resolve)).toMatch(
      /resolves to a refused address: loopback/,
    );
    expect(await resolvedUrlRefusal('https://internal.example/s', strict, resolve)).toMatch(
      /private or link-local address 10\.0\.0\.7/,
    );
    expect(await resolvedUrlRefusal('https://nat64.example/s', strict, resolve)).toMatch(/NAT64/);
    expect(await resolvedUrlRefusal('https://api.example/s', strict, resolve)).toBeNull();
    // Not resolvable yet: left to the connect-time check.
    expect(await resolvedUrlRefusal('https://later.example/s', strict, resolve)).toBeNull();
    // Allowlisted names are not judged by their addresses.
    expect(
      await resolvedUrlRefusal(
        'https://internal.example/s',
        { ...strict, allowHosts: ['internal.example'] },
        resolve,
      ),
    ).toBeNull();
  });

  it('with the system resolver, /etc/hosts "localhost" resolves to loopback and is refused', async () => {
    expect(await resolvedUrlRefusal('https://localhost/x', strict)).toMatch(/loopback/);
  });
});

describe('finding 8 (URL policy gaps): intake in production mode', () => {
  let relay: RelayHandle;
  let svc: HostileService;
  beforeAll(async () => {
    svc = await startHostileService();
    relay = await startRelay({
      adapters: [createWebAdapter()],
      env: { RELAY_API_KEY: 'strict-relay-api-key-0123456789', HOST: '127.0.0.1', WEB_CHAT: '1' },
    });
  });
  afterAll(async () => {
    await relay?.stop();
    await svc?.close();
  });

  it('a poll_url on "LocalHost." or an IPv4-translating address gets 400 naming the field', async () => {
    for (const [poll, why] of [
      ['https://LocalHost./status', /loopback/],
      ['https://localhost../status', /loopback/],
      ['https://foo.localhost/status', /loopback/],
      ['https://[64:ff9b::a9fe:a9fe]/latest/meta-data', /NAT64/],
      ['https://[2002:a9fe:a9fe::1]/x', /6to4/],
    ] as const) {
      const body = svc.body202({ poll_url: poll });
      for (const f of ['submit_url', 'review_url'])
        body.hitl[f] = 'https://[2606:4700:4700::1111]/x';
      const res = await relay.send('web:ranges', body);
      expect(res.status, poll).toBe(400);
      expect(res.body.details).toEqual([
        { path: 'hitl.poll_url', message: expect.stringMatching(why) },
      ]);
    }
  });
});
