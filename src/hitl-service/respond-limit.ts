/** A per-case sliding-window limit for the respond endpoint (spec 7.5: 429 rate_limited). */

/** Requests allowed per case within the window. */
export const RESPOND_LIMIT = 10;
/** The window of the respond limit. */
export const RESPOND_WINDOW_MS = 10_000;

/** Counts accepted requests per key; a refused request does not count, so a client can recover. */
export class RateLimiter {
  private readonly hits = new Map<string, number[]>();

  constructor(
    private readonly now: () => number,
    private readonly limit = RESPOND_LIMIT,
    private readonly windowMs = RESPOND_WINDOW_MS,
  ) {}

  /** Null when allowed (and counted); otherwise the seconds until a slot frees up. */
  check(key: string): number | null {
    const now = this.now();
    const recent = (this.hits.get(key) ?? []).filter((t) => t > now - this.windowMs);
    if (recent.length >= this.limit) {
      this.hits.set(key, recent);
      const oldest = recent[0] ?? now;
      return Math.max(1, Math.ceil((oldest + this.windowMs - now) / 1000));
    }
    recent.push(now);
    this.hits.set(key, recent);
    return null;
  }
}
