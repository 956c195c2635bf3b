/**
 * Low findings of issue 32, item 7: site-local IPv6 (fec0::/10) and the documentation ranges
 * (TEST-NET-1/2/3) passed the URL policy. Every check calls the policy functions; nothing connects.
 */
import { describe, expect, it } from 'vitest';
import { addressRefusal, type UrlPolicy, urlRefusal } from '../../src/net/url-policy.ts';

const strict: UrlPolicy = { allowHttpLoopback: false, allowHosts: [] };

describe('LOW-URL-1: fec0::/10 and the TEST-NET ranges are refused', () => {
  for (const ip of ['fec0::1', 'feff::1', '192.0.2.10', '198.51.100.7', '203.0.113.9']) {
    it(`LOW-URL-1: ${ip} is refused in a URL and as a resolved address`, () => {
      const host = ip.includes(':') ? `[${ip}]` : ip;
      expect(urlRefusal(`https://${host}/status`, strict)).not.toBeNull();
      expect(addressRefusal(ip, 'svc.example', strict)).not.toBeNull();
    });
  }
  it('LOW-URL-1: neighbours of those ranges stay accepted', () => {
    expect(urlRefusal('https://192.0.3.1/', strict)).toBeNull();
    expect(urlRefusal('https://203.0.114.1/', strict)).toBeNull();
    expect(urlRefusal('https://[2606:4700:4700::1111]/', strict)).toBeNull();
  });
});
