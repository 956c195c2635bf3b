/**
 * SQLite WAL checkpoints off the request path (issue 22). The request connection has automatic
 * checkpoints turned off (otherwise the commit that crosses 1,000 WAL pages copies them into the
 * database and fsyncs, inside a request). A worker thread with its own connection runs a PASSIVE
 * checkpoint on a timer instead (it never blocks a writer). Under sustained writes a passive pass
 * never lets the WAL restart (new frames always follow the copied ones), so when the file has grown
 * past a bound the same pass then runs TRUNCATE, which takes the write lock, copies the few frames
 * written since the passive copy, and empties the file: the WAL cannot grow without limit. If the worker dies, automatic
 * checkpoints are turned back on, so the bound holds either way.
 */
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';

/** How the checkpointer runs. */
export interface CheckpointOptions {
  /** Time between passes (default 1 s). */
  intervalMs?: number;
  /** A WAL file larger than this is truncated by the next pass, after its passive copy (default 64 MiB). */
  truncateAboveBytes?: number;
  /** Each pass's result (tests count them). */
  onPass?: (pass: CheckpointPass) => void;
  /** A failed pass or a dead worker (default: a process warning on stderr). */
  onError?: (err: Error) => void;
}

/**
 * What one checkpoint did: PRAGMA wal_checkpoint's answer and the WAL size its pass saw before. A
 * pass over the bound reports two: PASSIVE, then TRUNCATE (same `at`).
 */
export interface CheckpointPass {
  mode: 'PASSIVE' | 'TRUNCATE';
  /** 1 when the checkpoint could not finish (a writer or reader was in the way). */
  busy: number;
  /** Frames in the WAL, and how many of them are now in the database. */
  log: number;
  checkpointed: number;
  walBytes: number;
  /** When the pass began (ms since the epoch). */
  at: number;
}

/** The worker: CommonJS (an eval'd worker), given the driver's resolved path. */
const WORKER = `
const { parentPort, workerData: w } = require('node:worker_threads');
const { statSync } = require('node:fs');
const Database = require(w.driver);
// fileMustExist: a worker that starts late (a busy machine) after the file was deleted must not
// create an empty database at the path: the relay's readiness check would then report the file
// "replaced" instead of "deleted", and a restart would open the empty one.
const db = new Database(w.file, { fileMustExist: true });
// Short: a TRUNCATE waits for readers while it holds the write lock; if they are slow it gives
// up (busy) and the next pass tries again, rather than keep the relay's writers waiting.
db.pragma('busy_timeout = 1000');
const walBytes = () => { try { return statSync(w.file + '-wal').size; } catch { return 0; } };
const run = (mode, at, size) => {
  const [r] = db.pragma('wal_checkpoint(' + mode + ')');
  parentPort.postMessage({ pass: { mode, ...r, walBytes: size, at } });
};
const pass = () => {
  const at = Date.now();
  const size = walBytes();
  try {
    // PASSIVE first, always: it copies without the write lock, so a TRUNCATE that follows holds
    // the lock only for the frames written since (a backlog copied under the lock kept writers
    // waiting past their busy timeout: "database is locked").
    run('PASSIVE', at, size);
    if (size > w.truncateAbove) run('TRUNCATE', at, size);
  } catch (err) {
    parentPort.postMessage({ error: String((err && err.message) || err) });
  }
};
const timer = setInterval(pass, w.intervalMs);
parentPort.on('message', () => {
  clearInterval(timer);
  db.close();
  parentPort.close();
});
`;

/** A running checkpointer; stop() ends it (before the request connection closes). */
export interface Checkpointer {
  stop(): Promise<void>;
}

/** Turns automatic checkpoints off on `db` and starts the worker that checkpoints `file`. */
export function startCheckpointer(
  db: Database.Database,
  file: string,
  o: CheckpointOptions = {},
): Checkpointer {
  const report =
    o.onError ?? ((err: Error) => process.emitWarning(err.message, 'SQLiteCheckpoint'));
  db.pragma('wal_autocheckpoint = 0');
  const worker = new Worker(WORKER, {
    eval: true,
    workerData: {
      // The driver this module loads, by path (an eval'd worker resolves from no module).
      driver: fileURLToPath(import.meta.resolve('better-sqlite3')),
      file,
      intervalMs: o.intervalMs ?? 1000,
      truncateAbove: o.truncateAboveBytes ?? 64 * 1024 * 1024,
    },
  });
  worker.unref();
  let stopping = false;
  worker.on('message', (m: { pass?: CheckpointPass; error?: string }) => {
    if (m.pass) o.onPass?.(m.pass);
    if (m.error) report(new Error(`SQLite checkpoint failed (retried next pass): ${m.error}`));
  });
  let dead = false;
  const died = (why: string) => {
    // 'error' is followed by 'exit': reported once.
    if (stopping || dead || !db.open) return;
    dead = true;
    // Without the worker, commits checkpoint again as SQLite does by default: bounded, if slower.
    db.pragma('wal_autocheckpoint = 1000');
    report(
      new Error(`SQLite checkpoint worker stopped (${why}); automatic checkpoints are back on`),
    );
  };
  worker.on('error', (err) => died(err.message));
  worker.on('exit', (code) => died(`exit code ${code}`));
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  return {
    async stop() {
      if (stopping) return exited;
      stopping = true;
      worker.postMessage('stop');
      const timer = setTimeout(() => void worker.terminate(), 2000);
      await exited;
      clearTimeout(timer);
    },
  };
}
