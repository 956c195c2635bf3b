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
  /** Writes with the same key never share a group (their order and counts stay those of one by one). */
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
      this.running++;
      void this.run(group).finally(() => {
        this.running--;
        this.pump();
      });
    }
  }

  /** The oldest waiting writes, at most one per key; the others keep their place for the next group. */
  private take(): Pending<I, O>[] {
    const keys = new Set<string>();
    const group: Pending<I, O>[] = [];
    for (let i = 0; i < this.queue.length && group.length < this.spec.maxGroup; ) {
      const p = this.queue[i]!;
      const k = this.spec.key(p.item);
      if (keys.has(k)) i++;
      else {
        keys.add(k);
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
