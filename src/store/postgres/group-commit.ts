/**
 * Group commit for PostgreSQL: writes that arrive while earlier ones of their kind are in flight
 * wait, and go together as one statement (one round trip, one commit) once a slot frees. A write
 * that finds a free slot goes alone at once, so a quiet relay waits for nothing; under load the
 * server parses, plans and commits once for many intakes instead of once each.
 */
import pg from 'pg';

/** How a kind of write runs alone and in a group. */
export interface GroupSpec<I, O> {
  /** One write as one statement (also the way a failed group is retried, write by write). */
  one(item: I): Promise<O>;
  /** Several writes as one statement; the results in the order of `items`. */
  many(items: I[]): Promise<O[]>;
  /** Writes with the same key never share a group nor run at once (order and counts as one by one). */
  key(item: I): string;
  /** Statements of this kind in flight at once (the rest of the pool stays for everything else). */
  inFlight: number;
  /** Most writes in one group (bounds the statement's size). */
  maxGroup: number;
}

interface Pending<I, O> {
  item: I;
  resolve(o: O): void;
  reject(err: unknown): void;
}

/**
 * A server error (it has a SQLSTATE) means the statement's transaction rolled back: nothing of the
 * group was written, so each write is tried alone and only the bad one fails. Any other error (the
 * connection dropped) may have come after the commit: each caller gets it, as it would alone.
 */
const rolledBack = (err: unknown) => err instanceof pg.DatabaseError;

export class GroupWriter<I, O> {
  private readonly queue: Pending<I, O>[] = [];
  private running = 0;
  /** The keys of the writes in flight. */
  private readonly busy = new Set<string>();

  constructor(private readonly spec: GroupSpec<I, O>) {}

  write(item: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.running < this.spec.inFlight && this.queue.length) {
      const group = this.take();
      if (!group.length) return; // every waiting write's key is in flight: it goes when that ends
      const keys = group.map((p) => this.spec.key(p.item));
      for (const k of keys) this.busy.add(k);
      this.running++;
      void this.run(group).finally(() => {
        for (const k of keys) this.busy.delete(k);
        this.running--;
        this.pump();
      });
    }
  }

  /**
   * The oldest waiting writes, at most one per key and none whose key is in flight: writes with
   * one key go one after the other, in the order they came. The others keep their place.
   */
  private take(): Pending<I, O>[] {
    const keys = new Set<string>();
    const group: Pending<I, O>[] = [];
    for (let i = 0; i < this.queue.length && group.length < this.spec.maxGroup; ) {
      const p = this.queue[i]!;
      const k = this.spec.key(p.item);
      const free = !keys.has(k) && !this.busy.has(k);
      // A key seen once stays taken for this pass, so a later write never overtakes an earlier one.
      keys.add(k);
      if (!free) i++;
      else {
        group.push(p);
        this.queue.splice(i, 1);
      }
    }
    return group;
  }

  private async run(group: Pending<I, O>[]): Promise<void> {
    if (group.length === 1) return this.alone(group[0]!);
    let out: O[];
    try {
      out = await this.spec.many(group.map((p) => p.item));
    } catch (err) {
      if (!rolledBack(err)) for (const p of group) p.reject(err);
      else await Promise.all(group.map((p) => this.alone(p)));
      return;
    }
    for (const [i, p] of group.entries()) p.resolve(out[i]!);
  }

  private async alone(p: Pending<I, O>): Promise<void> {
    try {
      p.resolve(await this.spec.one(p.item));
    } catch (err) {
      p.reject(err);
    }
  }
}
