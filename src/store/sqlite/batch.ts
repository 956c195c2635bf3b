/**
 * Group commit for the SQLite store: the writes that concurrent requests issue in the same turn of
 * the event loop share ONE transaction, committed on setImmediate, instead of a commit (and its WAL
 * frames) each. Each operation still runs at once, in call order, on the one connection, so
 * compare-and-set results and reads are what they were; only its promise waits for the commit
 * that holds it (and for nothing else), so nobody learns a result before it is durable.
 *
 * A write that fails undoes only itself and fails only its caller, as it would alone: a statement
 * is atomic in SQLite and the store's multi-statement writes are better-sqlite3 transactions,
 * which nest as savepoints inside the batch. If SQLite drops the whole transaction (some I/O and
 * disk-full errors do) or the commit itself fails, the batch is rolled back and every operation
 * of it runs again on its own, in call order, each in its own transaction as without batching, so
 * one bad write cannot fail the others.
 */
import { resolve } from 'node:path';
import type Database from 'better-sqlite3';

/**
 * The batches open in this process, by database file. A batch holds the file's write lock until
 * its commit on setImmediate; another connection to the same file in this process (two relays in
 * one test, a CLI beside a store) would wait for that lock synchronously, on the very thread that
 * must run the commit. So it commits the other batch first.
 */
const openOnFile = new Map<string, Set<GroupCommit>>();

// Taken at import: a test's fake timers must not hold back the commits of a real database.
const later = globalThis.setImmediate;

interface Op {
  run: () => unknown;
  outcome: { ok: true; value: unknown } | { ok: false; error: unknown };
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

/** Runs store operations, batching the writes of one event-loop turn into one commit. */
export interface Batcher {
  /** Runs `run` now (opening the batch); settles after the commit that holds it. */
  write<T>(run: () => T): Promise<Awaited<T>>;
  /** Runs `run` now; while a batch is open it settles after that batch's commit too. */
  read<T>(run: () => T): Promise<Awaited<T>>;
  /** Commits the open batch now (before the connection closes). */
  flush(): void;
}

function attempt(run: () => unknown): Op['outcome'] {
  try {
    const value = run();
    // A store method may be async: its rejection is handed over at settle time, not unhandled.
    if (value instanceof Promise) value.catch(() => {});
    return { ok: true, value };
  } catch (error) {
    return { ok: false, error };
  }
}

function settle(op: Op): void {
  if (op.outcome.ok) op.resolve(op.outcome.value);
  else op.reject(op.outcome.error);
}

function alone<T>(run: () => T): Promise<Awaited<T>> {
  const outcome = attempt(run);
  return outcome.ok ? Promise.resolve(outcome.value as Awaited<T>) : Promise.reject(outcome.error);
}

/** The open batch of one connection (small methods rather than one long closure). */
class GroupCommit implements Batcher {
  private readonly begin: Database.Statement;
  private readonly commit: Database.Statement;
  private readonly rollback: Database.Statement;
  private ops: Op[] = [];
  private open = false;
  /** The database file (an in-memory database is its connection's own: none). */
  private readonly file: string | undefined;

  constructor(private readonly db: Database.Database) {
    this.file = db.memory ? undefined : resolve(db.name);
    this.begin = db.prepare('BEGIN IMMEDIATE');
    this.commit = db.prepare('COMMIT');
    this.rollback = db.prepare('ROLLBACK');
  }

  write<T>(run: () => T): Promise<Awaited<T>> {
    if (!this.open && !this.openBatch()) return alone(run);
    const p = this.queue<Awaited<T>>(run, attempt(run));
    // SQLite rolled back the whole batch under this write: run them all again, one by one.
    if (!this.db.inTransaction) this.replay(this.take());
    return p;
  }

  read<T>(run: () => T): Promise<Awaited<T>> {
    return this.open ? this.queue<Awaited<T>>(run, attempt(run)) : alone(run);
  }

  readonly flush = (): void => {
    if (!this.open) return;
    const batch = this.take();
    if (!this.db.open) {
      for (const op of batch) op.reject(new Error('the SQLite store is closed'));
      return;
    }
    try {
      this.commit.run();
    } catch {
      this.replay(batch);
      return;
    }
    for (const op of batch) settle(op);
  };

  /** Closes the batch in hand and returns its operations. */
  private take(): Op[] {
    this.open = false;
    if (this.file !== undefined) {
      const open = openOnFile.get(this.file);
      open?.delete(this);
      if (open?.size === 0) openOnFile.delete(this.file);
    }
    const batch = this.ops;
    this.ops = [];
    return batch;
  }

  /** The batch is lost: every operation again, alone, in call order (as without batching). */
  private replay(batch: Op[]): void {
    if (this.db.inTransaction) this.rollback.run();
    for (const op of batch) {
      op.outcome = attempt(op.run);
      settle(op);
    }
  }

  private queue<T>(run: () => unknown, outcome: Op['outcome']): Promise<T> {
    return new Promise<unknown>((resolve, reject) => {
      this.ops.push({ run, outcome, resolve, reject });
    }) as Promise<T>;
  }

  /** Opens the batch; false when the write lock cannot be had (the write then runs alone). */
  private openBatch(): boolean {
    const peers = this.file === undefined ? undefined : openOnFile.get(this.file);
    for (const peer of peers ?? []) peer.flush();
    try {
      this.begin.run();
    } catch {
      return false;
    }
    this.open = true;
    if (this.file !== undefined) {
      const open = openOnFile.get(this.file) ?? new Set();
      openOnFile.set(this.file, open.add(this));
    }
    later(this.flush);
    return true;
  }
}

/**
 * Commits the batches this process holds open on `db`'s file, before a step that takes the write
 * lock outside a batcher (a store opening the file migrates it under BEGIN IMMEDIATE).
 */
export function commitOpenBatches(db: Database.Database): void {
  if (db.memory) return;
  for (const batch of openOnFile.get(resolve(db.name)) ?? []) batch.flush();
}

export function sqliteBatcher(db: Database.Database): Batcher {
  return new GroupCommit(db);
}

type Method = (...args: never[]) => Promise<unknown>;

/**
 * Routes every method of `target` through the batcher: names in `reads` as reads, the rest as
 * writes. Returns a new object; `target` keeps working unbatched.
 */
export function batched<T extends object>(b: Batcher, target: T, reads: ReadonlySet<string>): T {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(target)) {
    if (typeof value !== 'function') {
      out[name] = value;
      continue;
    }
    const m = value as Method;
    out[name] = reads.has(name)
      ? (...args: never[]) => b.read(() => m.apply(target, args))
      : (...args: never[]) => b.write(() => m.apply(target, args));
  }
  return out as T;
}
