import { describe, expect, it } from 'vitest';
import { verifyDiscordRequest } from '../../../platforms/discord/verify.ts';
import { makeSigningKeys, signInteraction } from './harness.ts';

describe('verifyDiscordRequest', () => {
  const { publicKeyHex, privateKey } = makeSigningKeys();
  const body = '{"type":1}';
  const now = 1_750_000_000_000;
  const ts = String(now / 1000);

  it('accepts Ed25519 over timestamp + raw body with the application public key', async () => {
    const headers = signInteraction(privateKey, body, ts);
    expect(await verifyDiscordRequest(headers, Buffer.from(body), publicKeyHex, now)).toBe(true);
  });

  it('refuses a changed body, another key, missing headers and a stale timestamp', async () => {
    const headers = signInteraction(privateKey, body, ts);
    expect(await verifyDiscordRequest(headers, Buffer.from('{"type":2}'), publicKeyHex, now)).toBe(
      false,
    );
    const other = makeSigningKeys();
    expect(await verifyDiscordRequest(headers, Buffer.from(body), other.publicKeyHex, now)).toBe(
      false,
    );
    expect(await verifyDiscordRequest({}, Buffer.from(body), publicKeyHex, now)).toBe(false);
    expect(
      await verifyDiscordRequest(
        { ...headers, 'x-signature-ed25519': 'zz' },
        Buffer.from(body),
        publicKeyHex,
        now,
      ),
    ).toBe(false);
    // Signed correctly, but ten minutes old: a replay.
    expect(
      await verifyDiscordRequest(headers, Buffer.from(body), publicKeyHex, now + 600_000),
    ).toBe(false);
    // The signature covers the timestamp: moving it breaks the signature.
    const moved = { ...headers, 'x-signature-timestamp': String(now / 1000 + 1) };
    expect(await verifyDiscordRequest(moved, Buffer.from(body), publicKeyHex, now)).toBe(false);
  });
});
