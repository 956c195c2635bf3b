/**
 * Budgets for what a service's event stream may cost us. A hostile or broken events_url can
 * send thousands of events a second; each would otherwise be a database write, a history row and
 * a card edit. Progress-only updates are coalesced (the newest wins, applied at most once per
 * interval), and a stream over its event budget (per case, or per service origin) is closed and
 * the case is left to polling.
 */

/** A token bucket: `perMinute` tokens a minute, holding at most `perMinute`. */
export class Bucket {
  private tokens: number;
  private at: number;
  constructor(
    private readonly perMinute: number,
    now: number,
  ) {
    this.tokens = perMinute;
    this.at = now;
  }

  /** Takes one token; false when none is left. */
  take(now: number): boolean {
    this.tokens = Math.min(
      this.perMinute,
      this.tokens + ((now - this.at) * this.perMinute) / 60_000,
    );
    this.at = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}

/** Event budgets of one process: per case and per service origin. */
export class EventBudgets {
  private readonly cases = new Map<string, Bucket>();
  private readonly origins = new Map<string, Bucket>();
  constructor(
    private readonly perCasePerMinute: number,
    private readonly perOriginPerMinute: number,
  ) {}

  /** Counts one event of `caseId` from `origin`; false when either budget is spent. */
  take(caseId: string, origin: string, now: number): boolean {
    let c = this.cases.get(caseId);
    if (!c) {
      c = new Bucket(this.perCasePerMinute, now);
      this.cases.set(caseId, c);
    }
    let o = this.origins.get(origin);
    if (!o) {
      o = new Bucket(this.perOriginPerMinute, now);
      this.origins.set(origin, o);
    }
    return c.take(now) && o.take(now);
  }

  /** Forgets a case (its stream ended). Origin buckets are few and stay. */
  forget(caseId: string): void {
    this.cases.delete(caseId);
  }
}
