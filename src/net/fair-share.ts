/**
 * The fair part of an OriginPool (see there): which origins are limited (slow, hanging, or not yet
 * known to answer) and how many slots each may hold. Time comes from `now` (tests pass a clock).
 */

/** Options of the fair share. */
export interface FairShareOptions {
  /** An item running or having run longer than this marks its origin slow. */
  slowMs: number;
  /** Slots only origins that answer may use (default a quarter of the pool, at least 1). */
  reserve?: number;
  /** Monotonic milliseconds (default performance.now). */
  now?: () => number;
}

/** How many origins' last outcomes are remembered (the oldest are forgotten first). */
const REMEMBERED = 10_000;

/** Per-origin start times and last outcomes, and the limited lane's budget. */
export class FairShare {
  /** Start times of the running items, per origin. */
  private readonly starts = new Map<string, number[]>();
  /**
   * Whether the origin's last item ended within slowMs (null: none ended yet, but it asked for a
   * slot; such origins are skipped too while the lane is full, so they cannot crowd the others).
   */
  private readonly lastFast = new Map<string, boolean | null>();
  private readonly now: () => number;
  /** Slots the limited origins may hold together. */
  readonly lane: number;

  constructor(
    maxTotal: number,
    private readonly o: FairShareOptions,
  ) {
    this.now = o.now ?? (() => performance.now());
    const reserve = o.reserve ?? Math.max(1, Math.floor(maxTotal / 4));
    this.lane = Math.max(1, maxTotal - reserve);
  }

  /** Records a start; the returned function records its end. */
  started(origin: string): () => void {
    const at = this.now();
    const list = this.starts.get(origin) ?? [];
    list.push(at);
    this.starts.set(origin, list);
    return () => {
      const l = this.starts.get(origin);
      if (l) {
        l.splice(l.indexOf(at), 1);
        if (!l.length) this.starts.delete(origin);
      }
      this.remember(origin, this.now() - at < this.o.slowMs);
    };
  }

  private remember(origin: string, fast: boolean | null): void {
    this.lastFast.delete(origin); // re-inserted: the most recent stays remembered longest
    this.lastFast.set(origin, fast);
    if (this.lastFast.size > REMEMBERED) {
      const oldest = this.lastFast.keys().next().value;
      if (oldest !== undefined) this.lastFast.delete(oldest);
    }
  }

  /** Whether `origin` is limited: not known to answer, slow last time, or running long now. */
  limited(origin: string): boolean {
    if (this.lastFast.get(origin) !== true) return true;
    const since = this.now() - this.o.slowMs;
    return (this.starts.get(origin) ?? []).some((t) => t <= since);
  }

  /** Slots the limited origins hold, and how many of them hold any. */
  private laneUse(inflight: ReadonlyMap<string, number>): { used: number; origins: number } {
    let used = 0;
    let origins = 0;
    for (const [o, n] of inflight)
      if (this.limited(o)) {
        used += n;
        origins++;
      }
    return { used, origins };
  }

  /** What a limited origin holding `n` may still start (Infinity for an origin that answers). */
  room(origin: string, n: number, inflight: ReadonlyMap<string, number>): number {
    if (!this.limited(origin)) return Number.POSITIVE_INFINITY;
    if (!this.lastFast.has(origin)) this.remember(origin, null);
    const { used, origins } = this.laneUse(inflight);
    const share = Math.max(1, Math.floor(this.lane / (origins + (n === 0 ? 1 : 0))));
    return Math.max(0, Math.min(this.lane - used, share - n));
  }

  /** Every known origin that is limited (running long now, slow last time, or not yet known). */
  known(inflight: ReadonlyMap<string, number>): string[] {
    const out: string[] = [];
    for (const [o, fast] of this.lastFast) if (fast !== true && !inflight.has(o)) out.push(o);
    for (const o of inflight.keys()) if (this.limited(o)) out.push(o);
    return out;
  }

  /** The known origins that cannot start now: every limited one once the lane is full. */
  blocked(inflight: ReadonlyMap<string, number>): string[] {
    const out: string[] = [];
    const { used } = this.laneUse(inflight);
    if (used >= this.lane) return this.known(inflight);
    for (const [o, n] of inflight) if (this.room(o, n, inflight) <= 0) out.push(o);
    return out;
  }
}
