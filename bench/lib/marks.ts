/** Named moments: a benchmark waits for a mark that a fake (or a wrapped adapter) sets when something arrives. */

/** Marks by key; `wait` resolves with the time (performance.now()) the mark was set. */
export class Marks {
  private readonly seen = new Map<string, number>();
  private readonly waiters = new Map<string, (t: number) => void>();

  /** Records `key` now (the first time only). */
  mark(key: string): void {
    const t = performance.now();
    const w = this.waiters.get(key);
    if (w) {
      this.waiters.delete(key);
      w(t);
    } else if (!this.seen.has(key)) this.seen.set(key, t);
  }

  /** Resolves when `key` is marked (or at once if it was); rejects after `ms`. */
  wait(key: string, ms = 15_000): Promise<number> {
    const t = this.seen.get(key);
    if (t !== undefined) {
      this.seen.delete(key);
      return Promise.resolve(t);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(key);
        reject(new Error(`no "${key}" within ${ms} ms`));
      }, ms);
      this.waiters.set(key, (at) => {
        clearTimeout(timer);
        resolve(at);
      });
    });
  }
}
