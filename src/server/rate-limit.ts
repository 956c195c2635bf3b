/**
 * Rate limiting of the intake API: one token bucket per API key. A bucket holds up to `perMinute`
 * tokens and refills at `perMinute` per minute, so an agent may send a burst of a minute's worth
 * and then keeps that pace; beyond it the answer is 429 with Retry-After.
 */
import { createHash } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { ApiError } from './api-error.ts';

/** What taking a token came to. */
export type TakeResult = { ok: true } | { ok: false; retryAfterMs: number };

interface Bucket {
  tokens: number;
  at: number;
}

/** Token buckets by key, refilled lazily on each take (no timers). */
export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();
  private readonly perMs: number;

  constructor(
    private readonly capacity: number,
    perMinute: number,
    private readonly now: () => number = Date.now,
    /** Bounds memory: past this many keys the least recently used bucket is dropped. */
    private readonly maxKeys = 10_000,
  ) {
    this.perMs = perMinute / 60_000;
  }

  /** Takes one token for `key`, or says how long until one is there. */
  take(key: string): TakeResult {
    const now = this.now();
    const b = this.buckets.get(key) ?? { tokens: this.capacity, at: now };
    b.tokens = Math.min(this.capacity, b.tokens + Math.max(0, now - b.at) * this.perMs);
    b.at = now;
    // Re-insert so the Map's order is least recently used first.
    this.buckets.delete(key);
    this.buckets.set(key, b);
    if (this.buckets.size > this.maxKeys) {
      const oldest = this.buckets.keys().next().value;
      if (oldest !== undefined) this.buckets.delete(oldest);
    }
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return { ok: true };
    }
    return { ok: false, retryAfterMs: Math.ceil((1 - b.tokens) / this.perMs) };
  }
}

/** The bucket key of a request: a hash of its API key (never the key itself), or "anonymous". */
export function apiKeyOf(c: Context): string {
  const given = /^Bearer (.+)$/.exec(c.req.header('authorization') ?? '')?.[1];
  return given
    ? `key:${createHash('sha256').update(given).digest('base64url').slice(0, 16)}`
    : 'anonymous';
}

/**
 * Limits POST requests per API key to `perMinute` (0 turns the limit off). Mount it after the
 * authentication middleware, so only valid keys get a bucket.
 */
export function intakeRateLimit(
  perMinute: number,
  now: () => number = Date.now,
): MiddlewareHandler {
  if (perMinute <= 0) return (_c, next) => next();
  const buckets = new TokenBuckets(perMinute, perMinute, now);
  return async (c, next) => {
    if (c.req.method !== 'POST') return next();
    const r = buckets.take(apiKeyOf(c));
    if (r.ok) return next();
    const seconds = Math.max(1, Math.ceil(r.retryAfterMs / 1000));
    throw new ApiError(
      429,
      'rate_limited',
      `more than ${perMinute} intake requests per minute for this API key; retry after ${seconds} s`,
      undefined,
      { headers: { 'retry-after': String(seconds) } },
    );
  };
}
