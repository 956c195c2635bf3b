/**
 * Concurrency per service origin and in total, for work that runs on its own once started (a
 * poll, a notify delivery). Each item holds only its own slot: a hanging origin fills its own
 * per-origin slots and no more, and nobody waits for a whole batch to finish.
 */

/** A pool of slots, capped per origin and in total. */
export class OriginPool {
  private readonly inflight = new Map<string, number>();
  private total = 0;
  private readonly running = new Set<Promise<void>>();

  constructor(
    readonly maxTotal: number,
    readonly maxPerOrigin: number,
    /** Called when an item ends and its slot is free again. */
    private readonly onFree: () => void = () => {},
  ) {}

  /** The most slots one origin with a free slot holds (0 when none is busy). */
  busiestOpen(): number {
    let most = 0;
    for (const n of this.inflight.values()) if (n < this.maxPerOrigin && n > most) most = n;
    return most;
  }

  /** The origins whose slots are all taken. */
  saturated(): string[] {
    const full: string[] = [];
    for (const [origin, n] of this.inflight) if (n >= this.maxPerOrigin) full.push(origin);
    return full;
  }

  /** Slots `origin` could still start now (its own and the pool's). */
  room(origin: string): number {
    return Math.min(this.maxPerOrigin - (this.inflight.get(origin) ?? 0), this.free);
  }

  /** Slots free in total. */
  get free(): number {
    return Math.max(0, this.maxTotal - this.total);
  }

  /** Starts `fn` when `origin` and the pool have a free slot; false (nothing started) otherwise. */
  tryRun(origin: string, fn: () => Promise<void>): boolean {
    const n = this.inflight.get(origin) ?? 0;
    if (n >= this.maxPerOrigin || this.total >= this.maxTotal) return false;
    this.inflight.set(origin, n + 1);
    this.total++;
    const p = fn()
      .catch(() => {})
      .finally(() => {
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
