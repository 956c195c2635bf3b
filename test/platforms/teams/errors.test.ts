import { describe, expect, it } from 'vitest';
import {
  TeamsHttpError,
  TeamsNetworkError,
  TeamsUnknownConversationError,
  toPlatformError,
} from '../../../platforms/teams/errors.ts';
import { parseRetryAfter } from '../../../platforms/teams/transport.ts';
import { PlatformError } from '../../../src/errors.ts';

describe('toPlatformError', () => {
  it.each([
    [429, 'rate_limited'],
    [404, 'not_found'],
    [403, 'forbidden'],
    [401, 'forbidden'],
    [400, 'bad_request'],
    [412, 'remote'],
    [502, 'remote'],
    [504, 'remote'],
  ])('maps connector status %i to %s', (status, code) => {
    const err = toPlatformError(new TeamsHttpError(status, 'X', undefined), 'sendActivity');
    expect(err).toBeInstanceOf(PlatformError);
    expect(err).toMatchObject({ code, status, platform: 'teams', call: 'sendActivity' });
  });

  it('finds our error behind wrappers and keeps Retry-After', () => {
    const wrapped = new Error('pipeline failed', {
      cause: new TeamsHttpError(429, 'Throttled', 3000),
    });
    expect(toPlatformError(wrapped, 'updateActivity')).toMatchObject({
      code: 'rate_limited',
      retryAfterMs: 3000,
    });
  });

  it('keeps "the network failed" apart from "the remote said no"', () => {
    expect(toPlatformError(new TeamsNetworkError('no answer'), 'sendActivity').code).toBe(
      'network',
    );
    expect(toPlatformError(new TeamsUnknownConversationError('abc'), 'sendActivity').code).toBe(
      'not_found',
    );
    expect(toPlatformError(Object.assign(new Error('rest'), { statusCode: 403 }), 'x').code).toBe(
      'forbidden',
    );
    expect(toPlatformError(new Error('??'), 'x').code).toBe('remote');
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('2', now)).toBe(2000);
    expect(parseRetryAfter('0', now)).toBe(0);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
  });
});
