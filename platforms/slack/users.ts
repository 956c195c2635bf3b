/** Display names from users.info, cached in memory so that a burst of taps costs one lookup each. */
import type { Logger } from '../../src/log.ts';

/** How long a looked-up name is kept. */
export const SLACK_USER_NAME_TTL_MS = 10 * 60 * 1000;
/** How long a failed lookup (missing users:read, user_not_found) is remembered before trying again. */
export const SLACK_USER_NAME_FAILURE_TTL_MS = 60 * 1000;
/** Names kept at most; the oldest entry goes first. */
export const SLACK_USER_NAME_MAX_ENTRIES = 5000;

/** A TTL cache in front of users.info. A failed lookup is logged and falls back to the payload's name. */
export class UserNames {
  private readonly entries = new Map<string, { name: string | undefined; until: number }>();

  constructor(
    private readonly lookup: (userId: string) => Promise<string | undefined>,
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
    private readonly ttlMs: number = SLACK_USER_NAME_TTL_MS,
  ) {}

  /** The person's display name, or `fallback` when Slack cannot tell us. */
  async name(userId: string, fallback?: string): Promise<string | undefined> {
    const hit = this.entries.get(userId);
    if (hit && hit.until > this.now()) return hit.name ?? fallback;
    let name: string | undefined;
    let ttl = this.ttlMs;
    try {
      name = await this.lookup(userId);
    } catch (err) {
      this.log.warn({ err, userId }, 'slack users.info failed; using the name from the payload');
      ttl = Math.min(ttl, SLACK_USER_NAME_FAILURE_TTL_MS);
    }
    this.entries.delete(userId);
    this.entries.set(userId, { name, until: this.now() + ttl });
    if (this.entries.size > SLACK_USER_NAME_MAX_ENTRIES) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    return name ?? fallback;
  }
}
