/**
 * The cases a watcher holds (see watcher.ts) and their next looks, soonest first. At 100k held cases
 * this is long-lived state that changes on every look, so it is kept in flat arrays indexed by a
 * slot per case (a slot and its id string stay while the case is held): a look allocates nothing
 * that outlives it, which keeps the old generation, and the process's RSS, from churning.
 */
import FlatQueue from 'flatqueue';
import { originOf } from '../net/origin-pool.ts';

/** What the watcher keeps of a held case between looks. */
export interface Hold {
  /** The lease's end (the hold's identity in the store, see Store.heldCases). */
  until: number;
  /** The next look. */
  due: number;
  /** The version a quiet look saw with nothing but polling pending (NaN: read it whole). */
  version: number;
  /** A row-only look must come before this (the next reminder or escalation step). */
  wake: number;
  /** doc.hitl.poll_url and expires_at (ms): they change only with the version. */
  pollUrl: string;
  expires: number;
}

/** A hold as taken for a look: its case and the origin its poll goes to. */
export type TakenHold = Hold & { id: string; origin: string };

/** Held cases by slot, and a queue of slots by next look (an entry that moved on is skipped). */
export class Holds {
  private readonly slotOf = new Map<string, number>();
  private readonly ids: Array<string | undefined> = [];
  private readonly until: number[] = [];
  private readonly due: number[] = [];
  private readonly version: number[] = [];
  private readonly wake: number[] = [];
  private readonly expires: number[] = [];
  private readonly pollUrl: string[] = [];
  /** The poll URL's origin, one string per origin (a few services, 100k cases). */
  private readonly origin: string[] = [];
  private readonly origins = new Map<string, string>();
  private readonly free: number[] = [];
  private readonly queue = new FlatQueue<number>();

  get size(): number {
    return this.slotOf.size;
  }

  /** Keeps `id` held with its next look at `h.due` (replacing what was kept). */
  set(id: string, h: Hold): void {
    let s = this.slotOf.get(id);
    if (s === undefined) {
      s = this.free.pop() ?? this.ids.length;
      this.slotOf.set(id, s);
      this.ids[s] = id;
    }
    this.until[s] = h.until;
    this.due[s] = h.due;
    this.version[s] = h.version;
    this.wake[s] = h.wake;
    this.expires[s] = h.expires;
    if (this.pollUrl[s] !== h.pollUrl) {
      this.pollUrl[s] = h.pollUrl;
      const o = originOf(h.pollUrl);
      if (!this.origins.has(o)) this.origins.set(o, o);
      this.origin[s] = this.origins.get(o)!;
    }
    this.queue.push(s, h.due);
  }

  /**
   * Up to `max` holds due by `now`, soonest first, of origins `admit` lets through (it is asked once
   * per hold and counts what it admits). Each taken hold stays held but out of the queue while it is
   * looked at: `set` puts it back, `settle` lets it go if nothing did. A due hold that `admit` turns
   * away keeps its place; at most `max` are passed over per call, so a busy origin with many due
   * cases costs a bounded scan.
   */
  takeDue(now: number, max: number, admit: (origin: string) => boolean = () => true): TakenHold[] {
    const out: TakenHold[] = [];
    const passed: number[] = [];
    while (
      out.length < max &&
      passed.length < max &&
      (this.queue.peekValue() ?? Number.POSITIVE_INFINITY) <= now
    ) {
      const due = this.queue.peekValue()!;
      const s = this.queue.pop()!;
      const id = this.ids[s];
      if (id === undefined || this.due[s] !== due) continue; // moved on, or let go
      const origin = this.origin[s]!;
      if (!admit(origin)) {
        passed.push(s);
        continue;
      }
      this.due[s] = Number.NaN; // being looked at
      out.push({
        id,
        due,
        origin,
        until: this.until[s]!,
        version: this.version[s]!,
        wake: this.wake[s]!,
        expires: this.expires[s]!,
        pollUrl: this.pollUrl[s]!,
      });
    }
    for (const s of passed) this.queue.push(s, this.due[s]!);
    return out;
  }

  /** After a look at `id`: lets it go unless the look kept it (set). */
  settle(id: string): void {
    const s = this.slotOf.get(id);
    if (s !== undefined && Number.isNaN(this.due[s]!)) this.release(id, s);
  }

  /** Lets every hold go (the clock stepped back: they are given back in the store too). */
  clear(): void {
    for (const [id, s] of this.slotOf) this.release(id, s);
    this.queue.clear();
  }

  private release(id: string, s: number): void {
    this.slotOf.delete(id);
    this.ids[s] = undefined;
    this.pollUrl[s] = '';
    this.origin[s] = '';
    this.free.push(s);
  }
}
