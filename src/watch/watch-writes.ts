/**
 * The watch-row writes of the polls that end in the same turn of the event loop, in one commit
 * (Store.updateWatchMany): at 100k open cases a commit per poll was the watcher's largest cost
 * (docs/BENCHMARKS.md, watching at scale). Each write still resolves only once it is stored.
 */
import type { Store, WatchWrite } from '../store/store.ts';

interface Pending {
  w: WatchWrite;
  resolve(landed: boolean): void;
  reject(err: unknown): void;
}

/** Gathers watch writes and stores them together, one batch at a time, in order. */
export class WatchWrites {
  private batch: Pending[] = [];
  private ids = new Set<string>();
  private scheduled = false;
  /** The last batch sent: the next one waits for it (PostgreSQL would otherwise race them). */
  private tail: Promise<void> = Promise.resolve();

  constructor(private readonly store: Pick<Store, 'updateWatchMany'>) {}

  /** Stores `w` with the writes of this turn; whether it landed (see updateWatchMany). */
  write(w: WatchWrite): Promise<boolean> {
    // The ids of one batch are distinct: a second write of a case goes in the next batch.
    if (this.ids.has(w.id)) this.flush();
    return new Promise((resolve, reject) => {
      this.batch.push({ w, resolve, reject });
      this.ids.add(w.id);
      if (this.scheduled) return;
      this.scheduled = true;
      setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    const batch = this.batch;
    this.batch = [];
    this.ids = new Set();
    this.scheduled = false;
    if (!batch.length) return;
    this.tail = this.tail.then(async () => {
      try {
        const landed = await this.store.updateWatchMany(batch.map((p) => p.w));
        for (const [i, p] of batch.entries()) p.resolve(landed[i] ?? false);
      } catch (err) {
        for (const p of batch) p.reject(err);
      }
    });
  }
}
