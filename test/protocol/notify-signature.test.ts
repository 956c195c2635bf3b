/** Notify signatures: t=<unix>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">, checked in constant time. */
import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { deriveNotifySecret, signNotify, verifyNotifySignature } from '../../src/client/index.ts';
import { readConfig } from '../../src/config/config.ts';

const SECRET = 'a-notify-secret-of-some-length';
const NOW = 1_780_000_000_000;
const T = NOW / 1000;

describe('notify signatures', () => {
  it('is HMAC-SHA256 over "<t>.<raw body>" in hex', () => {
    const body = '{"id":"hc_1","status":"completed"}';
    const hex = createHmac('sha256', SECRET).update(`${T}.${body}`).digest('hex');
    expect(signNotify(body, SECRET, T)).toBe(`t=${T},v1=${hex}`);
    expect(signNotify(Buffer.from(body), SECRET, T)).toBe(`t=${T},v1=${hex}`);
  });

  it('verifies any body signed with the secret, and no body changed by one byte', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 1, maxLength: 300 }), fc.nat(), (bytes, i) => {
        const header = signNotify(bytes, SECRET, T);
        expect(verifyNotifySignature(bytes, header, SECRET, { now: NOW })).toEqual({
          ok: true,
          timestamp: T,
        });
        const changed = Uint8Array.from(bytes);
        const at = i % changed.length;
        changed[at] = (changed[at]! + 1) % 256;
        expect(verifyNotifySignature(changed, header, SECRET, { now: NOW })).toEqual({
          ok: false,
          reason: 'mismatch',
        });
      }),
    );
  });

  it('refuses what is missing, malformed, too old, or signed with another secret', () => {
    const body = '{}';
    const v = (header: string | undefined, o: { now?: number; toleranceSeconds?: number } = {}) =>
      verifyNotifySignature(body, header, SECRET, { now: NOW, ...o });
    expect(v(undefined)).toEqual({ ok: false, reason: 'missing' });
    expect(v('v1=abc')).toEqual({ ok: false, reason: 'malformed' });
    expect(v(`t=${T}`)).toEqual({ ok: false, reason: 'malformed' });
    expect(v(signNotify(body, 'another-secret', T))).toEqual({ ok: false, reason: 'mismatch' });
    expect(v(signNotify(body, SECRET, T - 301))).toEqual({ ok: false, reason: 'too_old' });
    expect(v(signNotify(body, SECRET, T + 301))).toEqual({ ok: false, reason: 'too_old' });
    expect(v(signNotify(body, SECRET, T - 301), { toleranceSeconds: 600 }).ok).toBe(true);
  });

  it('accepts any of several v1 entries (secret rotation)', () => {
    const body = '{"a":1}';
    const old = signNotify(body, 'old-secret-old-secret', T).split(',')[1];
    const header = `${signNotify(body, SECRET, T)},${old}`;
    expect(verifyNotifySignature(body, header, SECRET, { now: NOW }).ok).toBe(true);
    expect(verifyNotifySignature(body, header, 'old-secret-old-secret', { now: NOW }).ok).toBe(
      true,
    );
  });

  it('derives the secret from RELAY_API_KEY (else RELAY_SECRET_KEY) unless RELAY_NOTIFY_SECRET is set', () => {
    const key = 'an-api-key-of-16-chars-or-more';
    expect(deriveNotifySecret(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(deriveNotifySecret(key)).not.toBe(deriveNotifySecret(`${key}x`));
    const base = { DATA_DIR: '/tmp/unused' };
    expect(readConfig({ ...base, RELAY_API_KEY: key }).notify?.secret).toBe(
      deriveNotifySecret(key),
    );
    expect(readConfig({ ...base, RELAY_SECRET_KEY: key }).notify?.secret).toBe(
      deriveNotifySecret(key),
    );
    expect(
      readConfig({ ...base, RELAY_API_KEY: key, RELAY_NOTIFY_SECRET: SECRET }).notify?.secret,
    ).toBe(SECRET);
    expect(readConfig(base).notify?.secret).toBeUndefined();
  });

  it('refuses bad notify settings, naming the variable', () => {
    expect(() => readConfig({ RELAY_NOTIFY_SECRET: 'short' })).toThrow(/RELAY_NOTIFY_SECRET/);
    expect(() =>
      readConfig({ NOTIFY_RETRY_MIN_SECONDS: '10', NOTIFY_RETRY_MAX_SECONDS: '1' }),
    ).toThrow(/NOTIFY_RETRY_MAX_SECONDS/);
    expect(() => readConfig({ NOTIFY_MAX_ATTEMPTS: '0' })).toThrow(/NOTIFY_MAX_ATTEMPTS/);
  });
});
