/**
 * The Tasks extension (`io.modelcontextprotocol/tasks`, 2026-07-28) toward a downstream client
 * that declares it on its tools/call, when the upstream's answer is a task (upstream-tasks.ts):
 * the call answers with the gateway's own task (its own id, mapped to the upstream's), and the
 * gateway keeps following the upstream task in the background. The client's `tasks/get` shows
 * that task: `working` while the upstream works or waits on a person (its `input_required` is
 * answered in chat by the gateway, never handed down), then `completed` with the upstream's
 * result, `failed` with its error, or `cancelled`. `tasks/cancel` stops the follow, which
 * withdraws the task's open asks and sends `tasks/cancel` upstream; `tasks/update` has nothing
 * to answer. A call the upstream answers without a task gets its result as usual. The tasks are
 * kept in this process's memory for the upstream (a relay restart forgets them), each for an hour
 * after it ended. The request checks, the -32602 and -32021 errors and the poll hint are the MCP
 * server front's (mcp/tasks.ts).
 */
import { randomUUID } from 'node:crypto';
import { ProtocolError, ProtocolErrorCode, type Server } from '@modelcontextprotocol/server';
import { requireTasks, TASK_NOT_FOUND, taskParams, taskPollMs } from '../mcp/tasks.ts';

type Json = Record<string, unknown>;

/** How long an ended task can still be read (its ttlMs counts from its creation). */
const KEPT_MS = 60 * 60 * 1000;

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

  constructor(private readonly upstream: string) {}

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
          if (stop.signal.aborted) return this.end(entry, { status: 'cancelled' });
          const e = err instanceof ProtocolError ? err : undefined;
          const error = e
            ? { code: e.code, message: e.message, ...(e.data !== undefined && { data: e.data }) }
            : { code: ProtocolErrorCode.InternalError, message: (err as Error).message };
          this.end(entry, { status: 'failed', error });
        },
      );
    });
  }

  /** Adds tasks/get, tasks/cancel and tasks/update to a downstream server. */
  install(server: Server): void {
    server.setRequestHandler('tasks/get', taskParams, async ({ taskId }, ctx) => {
      requireTasks(ctx);
      return this.view(this.find(taskId)) as never;
    });
    server.setRequestHandler('tasks/cancel', taskParams, async ({ taskId }, ctx) => {
      requireTasks(ctx);
      this.cancel(this.find(taskId), 'the MCP client cancelled the task');
      return {} as never;
    });
    // The person answers the upstream's questions in chat: nothing is outstanding here.
    server.setRequestHandler('tasks/update', taskParams, async ({ taskId }, ctx) => {
      requireTasks(ctx);
      this.find(taskId);
      return {} as never;
    });
  }

  /** The relay is stopping: every working task is cancelled (upstream too); none survives it. */
  close(): void {
    for (const t of this.tasks.values()) this.cancel(t, 'the relay is stopping');
  }

  /** Stops following a working task (which sends tasks/cancel upstream) and marks it cancelled. */
  private cancel(t: Entry, why: string): void {
    if (t.status !== 'working') return;
    t.stop.abort(new Error(why));
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

  private find(taskId: string): Entry {
    const t = this.tasks.get(taskId);
    if (!t) throw new ProtocolError(ProtocolErrorCode.InvalidParams, TASK_NOT_FOUND);
    return t;
  }

  private end(t: Entry, how: Pick<Entry, 'status' | 'result' | 'error'>): void {
    if (t.status !== 'working') return;
    Object.assign(t, how, { updatedAt: Date.now() });
    setTimeout(() => this.tasks.delete(t.id), KEPT_MS).unref();
  }
}
