import { describe, expect, it } from 'vitest';
import { verifySecretToken } from '../../../platforms/telegram/verify.ts';

describe('telegram webhook secret', () => {
  it('accepts exactly the configured secret', () => {
    expect(verifySecretToken('s3cret_Token-1', 's3cret_Token-1')).toBe(true);
  });

  it('refuses a missing, empty, shorter, longer or different header', () => {
    for (const header of [undefined, '', 's3cret', 's3cret_Token-12', 'S3cret_Token-1']) {
      expect(verifySecretToken(header, 's3cret_Token-1')).toBe(false);
    }
  });

  it('refuses everything when no secret is configured', () => {
    expect(verifySecretToken('', '')).toBe(false);
  });
});
