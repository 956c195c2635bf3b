/**
 * Concurrency per service origin and in total, for work that runs on its own once started (a
 * poll, a notify delivery). Each item holds only its own slot: a hanging origin fills its own
 * per-origin slots and no more, and nobody waits for a whole batch to finish.
 *
 * With `fair` set, no group of origins can fill the whole budget either: an origin is *limited*
 * while it has an item running longer than `slowMs`, or its last item took that long, or none of
 * its items has ended yet (it is not known to answer). Limited origins together hold at most
 * `maxTotal - reserve` slots, each a fair part of that (at least one), so the reserve stays for
 * origins that answer; a hanging item keeps its slot only until its own deadline cuts it.
 */
import { FairShare, type FairShareOptions } from './fair-share.ts';

/** A pool of slots, capped per origin and in total. */
export class OriginPool {
  private readonly inflight = new Map<string, number>();
  private total = 0;
  private readonly running = new Set<Promise<void>>();
  private readonly fair: FairShare | null;

  constructor(
    readonly maxTotal: number,
    readonly maxPerOrigin: number,
    /** Called when an item ends and its slot is free again. */
    private readonly onFree: () => void = () => {},
    fair?: FairShareOptions,
  ) {
    this.fair = fair ? new FairShare(maxTotal, fair) : null;
  }

  /** The most slots one origin with a free slot holds (0 when none is busy). */
  busiestOpen(): number {
    let most = 0;
    for (const n of this.inflight.values()) if (n < this.maxPerOrigin && n > most) most = n;
    return most;
  }

  /** The origins that cannot start anything now (their slots, or their fair share, all taken). */
  saturated(): string[] {
    const full: string[] = [];
    for (const [origin, n] of this.inflight) if (n >= this.maxPerOrigin) full.push(origin);
    if (this.fair)
      for (const o of this.fair.blocked(this.inflight)) if (!full.includes(o)) full.push(o);
    return full;
  }

  /** The origins the fair share limits (slow, hanging, or not yet known to answer); [] without it. */
  limited(): string[] {
    return this.fair ? this.fair.known(this.inflight) : [];
  }

  /** Slots `origin` could still start now (its own, its fair share's and the pool's). */
  room(origin: string): number {
    const n = this.inflight.get(origin) ?? 0;
    const own = Math.min(this.maxPerOrigin - n, this.free);
    return this.fair ? Math.min(own, this.fair.room(origin, n, this.inflight)) : own;
  }

  /** Slots free in total. */
  get free(): number {
    return Math.max(0, this.maxTotal - this.total);
  }

  /** Starts `fn` when `origin` and the pool have a free slot; false (nothing started) otherwise. */
  tryRun(origin: string, fn: () => Promise<void>): boolean {
    if (this.room(origin) <= 0) return false;
    this.inflight.set(origin, (this.inflight.get(origin) ?? 0) + 1);
    this.total++;
    const ended = this.fair?.started(origin);
    const p = fn()
      .catch(() => {})
      .finally(() => {
        ended?.();
        const left = (this.inflight.get(origin) ?? 1) - 1;
        if (left > 0) this.inflight.set(origin, left);
        else this.inflight.delete(origin);
        this.total--;
        this.running.delete(p);
        this.onFree();
      });
    this.running.add(p);
    return true;
  }

  /** Resolves when everything started so far has finished. */
  async idle(): Promise<void> {
    while (this.running.size) await Promise.allSettled([...this.running]);
  }
}

/** The origin of a URL, or the URL itself when it does not parse (it then fails on its own). */
export function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}
