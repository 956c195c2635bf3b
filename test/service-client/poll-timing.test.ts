/** Poll timing (spec 8): between the configured bounds, jitter only lengthens, never before Retry-After. */
import { describe, expect, it } from 'vitest';
import { failureOfStatus, pollDelay } from '../../src/service-client/poll.ts';

/** A fixed pseudo-random sequence (mulberry32), so the test is the same on every run. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('poll timing', () => {
  it('POLL-1 over 1,000 scheduled polls with Retry-After R, none is earlier than R', () => {
    const random = seeded(14);
    const min = 30_000;
    const max = 300_000;
    let clock = 0;
    for (let i = 0; i < 1000; i++) {
      // Retry-After anywhere from 0 to twice the maximum, with and without failures and streams.
      const retryAfterMs = Math.floor(random() * 2 * max);
      const delay = pollDelay({
        min,
        max,
        failures: i % 7,
        retryAfterMs,
        streaming: i % 5 === 0,
        random,
      });
      const due = clock + delay;
      expect(due).toBeGreaterThanOrEqual(clock + retryAfterMs);
      expect(delay).toBeGreaterThanOrEqual(min);
      clock = due;
    }
  });

  it('POLL-2 without Retry-After the jitter only lengthens: between min and 1.2 x the step', () => {
    for (const r of [0, 0.5, 0.999]) {
      expect(
        pollDelay({
          min: 1000,
          max: 8000,
          failures: 0,
          retryAfterMs: undefined,
          streaming: false,
          random: () => r,
        }),
      ).toBeGreaterThanOrEqual(1000);
      expect(
        pollDelay({
          min: 1000,
          max: 8000,
          failures: 0,
          retryAfterMs: undefined,
          streaming: false,
          random: () => r,
        }),
      ).toBeLessThan(1200);
      // Failures back off, up to the maximum.
      expect(
        pollDelay({
          min: 1000,
          max: 8000,
          failures: 10,
          retryAfterMs: undefined,
          streaming: false,
          random: () => r,
        }),
      ).toBeGreaterThanOrEqual(8000);
    }
  });

  it('POLL-3 poll failures are classified by status', () => {
    expect([401, 403].map(failureOfStatus)).toEqual(['refused', 'refused']);
    expect([404, 410].map(failureOfStatus)).toEqual(['gone', 'gone']);
    expect(failureOfStatus(429)).toBe('rate_limited');
    expect([500, 502, 503].map(failureOfStatus)).toEqual(['failing', 'failing', 'failing']);
    expect([301, 400, 418].map(failureOfStatus)).toEqual(['invalid', 'invalid', 'invalid']);
  });
});
