/**
 * The Tasks extension (`io.modelcontextprotocol/tasks`, 2026-07-28) toward a downstream client
 * that declares it on its tools/call, when the upstream's answer is a task (upstream-tasks.ts):
 * the call answers with the gateway's own task (its own id, mapped to the upstream's), and the
 * gateway keeps following the upstream task in the background. The client's `tasks/get` shows
 * that task: `working` while the upstream works or waits on a person (its `input_required` is
 * answered in chat by the gateway, never handed down), then `completed` with the upstream's
 * result, `failed` with its error, or `cancelled`. `tasks/cancel` stops the follow, which
 * withdraws the task's open asks and sends `tasks/cancel` upstream; `tasks/update` has nothing
 * to answer. A call the upstream answers without a task gets its result as usual. Each task is
 * also kept in the store (its result or error sealed), for an hour after it ended: a relay that
 * stops leaves the working ones working (no tasks/cancel upstream), and the next process follows
 * the upstream task again (at start-up when it has asks open, task-resume.ts, or at the client's
 * next tasks/get), so the client's tasks/get still answers and completes. The request checks, the
 * -32602 and -32021 errors and the poll hint are the MCP server front's (mcp/tasks.ts).
 */
import { randomUUID } from 'node:crypto';
import { ProtocolError, ProtocolErrorCode, type Server } from '@modelcontextprotocol/server';
import type { KeyValue } from '../adapter.ts';
import { requireTasks, TASK_NOT_FOUND, taskParams, taskPollMs } from '../mcp/tasks.ts';
import type { TextSealer } from '../store/sealer.ts';

type Json = Record<string, unknown>;

/** How long an ended task can still be read (its ttlMs counts from its creation). */
const KEPT_MS = 60 * 60 * 1000;
/** How long a working task's record is kept (renewed by nothing: a day is the bound). */
const WORKING_MS = 24 * 60 * 60 * 1000;

/** Where the tasks are kept across restarts: the store's key-value rows, results sealed. */
export interface TaskStore {
  kv: Pick<KeyValue, 'get' | 'set'>;
  sealer: TextSealer;
}

/** Follows the upstream task again after a restart (Upstream.resumeTask). */
export type Revive = (upstreamTaskId: string) => void;

/** The relay stops: a follow ends without cancelling its upstream task. */
export class RelayStopping extends Error {
  constructor() {
    super('the relay is stopping');
    this.name = 'RelayStopping';
  }
}

/** One upstream call that may become a task: `onTask` is called once the upstream made one. */
export type TaskRun = (
  onTask: (upstreamTaskId: string) => void,
  signal: AbortSignal,
) => Promise<Json>;

interface Entry {
  id: string;
  upstreamTaskId: string;
  createdAt: number;
  updatedAt: number;
  status: 'working' | 'completed' | 'failed' | 'cancelled';
  result?: Json;
  error?: { code: number; message: string; data?: unknown };
  stop: AbortController;
}

/** The gateway's tasks of one upstream, for the downstream clients that declare Tasks. */
export class DownstreamTasks {
  private readonly tasks = new Map<string, Entry>();
  /** The follows of upstream tasks resumed in this process, by upstream task id. */
  private readonly resumed = new Map<string, AbortController>();
  /** Set by the upstream: follows an upstream task again (a working task read from the store). */
  revive: Revive | undefined;

  constructor(
    private readonly upstream: string,
    private readonly store?: TaskStore | undefined,
  ) {}

  /**
   * Runs `run`; answers with its result when it ends without a task, or with the gateway's task
   * (resultType "task") as soon as the upstream made one. `callSignal` (the downstream request)
   * cancels the run only until the task is handed over; then `tasks/cancel` does.
   */
  start(run: TaskRun, callSignal: AbortSignal): Promise<Json> {
    const stop = new AbortController();
    const abort = () => stop.abort(callSignal.reason);
    callSignal.addEventListener('abort', abort, { once: true });
    return new Promise<Json>((resolve, reject) => {
      let entry: Entry | undefined;
      const onTask = (upstreamTaskId: string) => {
        callSignal.removeEventListener('abort', abort);
        const now = Date.now();
        entry = {
          id: randomUUID(),
          upstreamTaskId,
          createdAt: now,
          updatedAt: now,
          status: 'working',
          stop,
        };
        this.tasks.set(entry.id, entry);
        void this.save(entry);
        resolve({ resultType: 'task', ...this.view(entry) });
      };
      run(onTask, stop.signal).then(
        (result) => {
          callSignal.removeEventListener('abort', abort);
          if (entry) this.end(entry, { status: 'completed', result });
          else resolve(result);
        },
        (err: unknown) => {
          callSignal.removeEventListener('abort', abort);
          if (!entry) return reject(err);
          this.failed(entry, err);
        },
      );
    });
  }

  /**
   * Follows upstream task `upstreamTaskId` again with `run` (an earlier process started it): when
   * a client holds the gateway's task for it (in the store), that task ends with the outcome.
   */
  async resume(upstreamTaskId: string, run: (signal: AbortSignal) => Promise<Json>) {
    if (this.resumed.has(upstreamTaskId)) return;
    const stop = new AbortController();
    this.resumed.set(upstreamTaskId, stop);
    try {
      const id = await this.store?.kv.get(upstreamKey(this.upstream, upstreamTaskId));
      const known = id ? (this.tasks.get(id) ?? (await this.load(id))) : undefined;
      const entry = known?.status === 'working' ? { ...known, stop } : undefined;
      if (entry) this.tasks.set(entry.id, entry);
      await run(stop.signal).then(
        (result) => entry && this.end(entry, { status: 'completed', result }),
        (err: unknown) => {
          if (entry) this.failed(entry, err);
          throw err;
        },
      );
    } finally {
      this.resumed.delete(upstreamTaskId);
    }
  }

  /** The run of `t` failed: cancelled when it was stopped, failed with the error otherwise. */
  private failed(t: Entry, err: unknown): void {
    if (t.stop.signal.reason instanceof RelayStopping) return;
    if (t.stop.signal.aborted) {
      this.end(t, { status: 'cancelled' });
      return;
    }
    const e = err instanceof ProtocolError ? err : undefined;
    const error = e
      ? { code: e.code, message: e.message, ...(e.data !== undefined && { data: e.data }) }
      : { code: ProtocolErrorCode.InternalError, message: (err as Error).message };
    this.end(t, { status: 'failed', error });
  }

  /** Adds tasks/get, tasks/cancel and tasks/update to a downstream server. */
  install(server: Server): void {
    server.setRequestHandler('tasks/get', taskParams, async ({ taskId }, ctx) => {
      requireTasks(ctx);
      return this.view(await this.find(taskId)) as never;
    });
    server.setRequestHandler('tasks/cancel', taskParams, async ({ taskId }, ctx) => {
      requireTasks(ctx);
      this.cancel(await this.find(taskId), 'the MCP client cancelled the task');
      return {} as never;
    });
    // The person answers the upstream's questions in chat: nothing is outstanding here.
    server.setRequestHandler('tasks/update', taskParams, async ({ taskId }, ctx) => {
      requireTasks(ctx);
      await this.find(taskId);
      return {} as never;
    });
  }

  /**
   * The relay is stopping. Kept in the store, the working tasks stay working (their follows end
   * without tasks/cancel: the next process resumes them); without a store they are cancelled.
   */
  close(): void {
    for (const stop of this.resumed.values()) stop.abort(new RelayStopping());
    for (const t of this.tasks.values())
      if (this.store) t.stop.abort(new RelayStopping());
      else this.cancel(t, 'the relay is stopping');
  }

  /** Stops following a working task (which sends tasks/cancel upstream) and marks it cancelled. */
  private cancel(t: Entry, why: string): void {
    if (t.status !== 'working') return;
    t.stop.abort(new Error(why));
    this.resumed.get(t.upstreamTaskId)?.abort(new Error(why));
    this.end(t, { status: 'cancelled' });
  }

  /** The task as tasks/get shows it (the spec's DetailedTask). */
  private view(t: Entry): Json {
    const base = {
      taskId: t.id,
      createdAt: new Date(t.createdAt).toISOString(),
      lastUpdatedAt: new Date(t.updatedAt).toISOString(),
      ttlMs: t.status === 'working' ? null : t.updatedAt + KEPT_MS - t.createdAt,
      pollIntervalMs: taskPollMs(Date.now() - t.createdAt),
    };
    if (t.status === 'completed')
      return { ...base, status: t.status, result: { ...t.result, resultType: 'complete' } };
    if (t.status === 'failed') return { ...base, status: t.status, error: t.error };
    if (t.status === 'cancelled') return { ...base, status: t.status };
    return {
      ...base,
      status: t.status,
      statusMessage: `upstream MCP server "${this.upstream}" is working on it`,
    };
  }

  /** The task `taskId`: in memory, or read from the store (a working one is followed again). */
  private async find(taskId: string): Promise<Entry> {
    const t = this.tasks.get(taskId) ?? (await this.load(taskId));
    if (!t) throw new ProtocolError(ProtocolErrorCode.InvalidParams, TASK_NOT_FOUND);
    if (t.status === 'working' && !this.tasks.has(taskId)) this.revive?.(t.upstreamTaskId);
    return t;
  }

  private end(t: Entry, how: Pick<Entry, 'status' | 'result' | 'error'>): void {
    if (t.status !== 'working') return;
    Object.assign(t, how, { updatedAt: Date.now() });
    void this.save(t);
    setTimeout(() => this.tasks.delete(t.id), KEPT_MS).unref();
  }

  /** Writes `t` to the store: its outcome sealed (a result may hold anything). */
  private async save(t: Entry): Promise<void> {
    if (!this.store) return;
    const { kv, sealer } = this.store;
    const outcome = t.status === 'working' ? undefined : { result: t.result, error: t.error };
    const record = {
      upstreamTaskId: t.upstreamTaskId,
      createdAt: t.createdAt,
      updatedAt: t.updatedAt,
      status: t.status,
      ...(outcome && { sealed: sealer.seal(JSON.stringify(outcome)) }),
    };
    const ttl = t.status === 'working' ? WORKING_MS : KEPT_MS;
    await kv.set(taskKey(this.upstream, t.id), JSON.stringify(record), ttl).catch(() => {});
    await kv.set(upstreamKey(this.upstream, t.upstreamTaskId), t.id, ttl).catch(() => {});
  }

  /** The task `id` as an earlier process left it in the store. */
  private async load(id: string): Promise<Entry | undefined> {
    const text = await this.store?.kv.get(taskKey(this.upstream, id)).catch(() => undefined);
    if (!text || !this.store) return undefined;
    const r = JSON.parse(text) as Omit<Entry, 'id' | 'stop' | 'result' | 'error'> & {
      sealed?: string;
    };
    const outcome = r.sealed ? (JSON.parse(this.store.sealer.open(r.sealed)) as Json) : {};
    const { sealed: _sealed, ...rest } = r;
    return { ...rest, ...outcome, id, stop: new AbortController() } as Entry;
  }
}

const taskKey = (upstream: string, id: string) => `mcp-gw-task:${upstream}:${id}`;
const upstreamKey = (upstream: string, id: string) => `mcp-gw-utask:${upstream}:${id}`;
