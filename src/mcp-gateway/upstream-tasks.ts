/**
 * The Tasks extension (`io.modelcontextprotocol/tasks`, 2026-07-28) on an upstream that declares
 * it: the final result of one tools/call (a downstream client that declares Tasks gets it through
 * the gateway's own task, downstream-tasks.ts; `onTask` names the upstream's task). The gateway sends the tools/call itself
 * with the extension declared on the request (the SDK client 2.4 refuses a `resultType: "task"`
 * answer, so these few requests go around it: task-wire.ts, over HTTP or stdio),
 * then follows the task with `tasks/get` at its `pollIntervalMs`. While it is `input_required`,
 * each of its `inputRequests` is asked once (keys already asked are not asked again on later
 * polls), and the answers go back with `tasks/update`. `completed` ends the call with the task's
 * result, `failed` with its error, `cancelled` with an error saying so; a cancel of the downstream
 * call sends `tasks/cancel`. A tools/call answered without a task (complete, or `input_required`
 * rounds: answered and retried with `requestState` echoed verbatim) is handled the same way.
 */
import {
  ProtocolError,
  ProtocolErrorCode,
  type RequestOptions,
} from '@modelcontextprotocol/server';
import type { KeyValue } from '../adapter.ts';
import { TASKS_EXTENSION } from '../mcp/tasks.ts';
import { type Exchange, REVISION, type TaskWakes, taskRequestId } from './task-wire.ts';

/** Which task and which of its inputRequests keys an input request is (its ask is labelled so). */
export interface TaskInput {
  taskId: string;
  key: string;
}

/**
 * Which inputRequests key an input request is: of upstream task `taskId`, or (no taskId) of a
 * task-less `input_required` round of the call in flight.
 */
export interface InputAt {
  key: string;
  taskId?: string | undefined;
}

/** Answers one input request of the upstream (elicitation asked in chat); undefined: cannot. */
export type AnswerInput = (
  request: { method: string; params?: Record<string, unknown> },
  signal: AbortSignal,
  at: InputAt,
) => Promise<Record<string, unknown> | undefined>;

/** What the Tasks path uses of one upstream. */
export interface TaskUpstream {
  name: string;
  /** Sends one request of the Tasks path (task-wire.ts: a POST, or a line on the child's stdin). */
  exchange: Exchange;
  clientInfo: Record<string, string>;
  answer: AnswerInput;
  /** Where the keys already answered are noted, so a resumed task does not ask them again. */
  kv?: Pick<KeyValue, 'get' | 'set'> | undefined;
  /** Where the upstream's `notifications/tasks` wake a follow before its poll interval is up. */
  wakes?: TaskWakes | undefined;
  /** True while the relay stops: the task lives on upstream (no tasks/cancel), to be resumed. */
  stopping?: (() => boolean) | undefined;
}

/** The poll interval when the task suggests none, and the bounds of a suggested one. */
const POLL_MS = { fallback: 1000, min: 10, max: 30_000 } as const;
/** How many `input_required` rounds of a task-less answer are followed before failing. */
const ROUNDS = 10;
/** How long a tasks/cancel may take once the downstream call is gone. */
const CANCEL_MS = 10_000;
/** How long the note of an answered key is kept. */
const ANSWERED_MS = 24 * 60 * 60 * 1000;

type Json = Record<string, unknown>;

/** Sends one tools/call upstream as a Task-aware client and returns its final result. */
export async function callWithTasks(
  u: TaskUpstream,
  params: Json,
  options: RequestOptions,
  onTask?: (taskId: string) => void,
): Promise<Json> {
  const signal = options.signal ?? new AbortController().signal;
  const rpc = rpcOf(u, signal);
  let sent = params;
  for (let round = 0; round <= ROUNDS; round++) {
    const r = await rpc('tools/call', sent);
    if (r.resultType === 'task') {
      onTask?.(String(r.taskId));
      return await followTask(u, rpc, r, signal);
    }
    if (r.resultType !== 'input_required') return completed(r);
    const inputResponses = await answerAll(u, r.inputRequests, new Set(), signal);
    const { inputResponses: _old, requestState: _state, ...rest } = sent;
    sent = {
      ...rest,
      inputResponses,
      ...(typeof r.requestState === 'string' && { requestState: r.requestState }),
    };
  }
  throw new ProtocolError(
    ProtocolErrorCode.InternalError,
    `upstream MCP server "${u.name}" asked for input more than ${ROUNDS} times`,
  );
}

/**
 * Follows upstream task `taskId` that an earlier relay process started (it stopped while the task
 * was running): tasks/get first, handed to `onFirst` (which settles the asks the earlier process
 * left open), then as callWithTasks follows a task, to its final result.
 */
export async function resumeTask(
  u: TaskUpstream,
  taskId: string,
  signal: AbortSignal,
  onFirst: (task: Json) => Promise<void>,
): Promise<Json> {
  const rpc = rpcOf(u, signal);
  const first = await rpc('tasks/get', { taskId });
  await onFirst(first);
  return await followTask(u, rpc, { ...first, taskId }, signal);
}

type Rpc = (method: string, params: Json, own?: AbortSignal) => Promise<Json>;

async function followTask(u: TaskUpstream, rpc: Rpc, first: Json, signal: AbortSignal) {
  const taskId = String(first.taskId);
  const asked = new Set<string>();
  // The call's signal is aborted by then: the cancel has its own. Not while the relay stops.
  const cancel = () => {
    if (u.stopping?.()) return;
    void rpc('tasks/cancel', { taskId }, AbortSignal.timeout(CANCEL_MS)).catch(() => undefined);
  };
  signal.addEventListener('abort', cancel, { once: true });
  const pause = new Pause();
  const off = u.wakes?.on(taskId, pause.poke);
  try {
    let task = first;
    for (;;) {
      if (task.status === 'completed') return completed((task.result ?? {}) as Json);
      if (task.status === 'failed') {
        const e = (task.error ?? {}) as { code?: number; message?: string; data?: unknown };
        throw new ProtocolError(
          e.code ?? ProtocolErrorCode.InternalError,
          String(e.message),
          e.data,
        );
      }
      if (task.status === 'cancelled')
        throw new ProtocolError(
          ProtocolErrorCode.InternalError,
          `upstream MCP server "${u.name}" cancelled task ${taskId}`,
        );
      if (task.status === 'input_required') {
        const inputResponses = await answerAll(u, task.inputRequests, asked, signal, taskId);
        if (Object.keys(inputResponses).length > 0)
          await rpc('tasks/update', { taskId, inputResponses });
      }
      await pause.wait(task.pollIntervalMs, signal);
      task = await rpc('tasks/get', { taskId });
    }
  } finally {
    off?.();
    signal.removeEventListener('abort', cancel);
  }
}

/**
 * Answers every input request whose key is not in `asked` (and adds the keys). For a task, a key
 * answered by an earlier relay process (noted in `u.kv`) is not asked again either.
 */
async function answerAll(
  u: TaskUpstream,
  requests: unknown,
  asked: Set<string>,
  signal: AbortSignal,
  taskId?: string,
): Promise<Json> {
  const note = (key: string) => `mcp-gw-answered:${u.name}:${taskId}:${key}`;
  const fresh: Array<[string, Json]> = [];
  for (const [key, req] of Object.entries((requests ?? {}) as Record<string, Json>)) {
    if (asked.has(key)) continue;
    asked.add(key);
    if (taskId && u.kv && (await u.kv.get(note(key))) !== undefined) continue;
    fresh.push([key, req]);
  }
  const answers = await Promise.all(
    fresh.map(async ([key, req]) => {
      const answer = await u.answer(req as { method: string; params?: Json }, signal, {
        key,
        taskId,
      });
      if (!answer)
        throw new ProtocolError(
          ProtocolErrorCode.InternalError,
          `upstream MCP server "${u.name}" asked for ${String(req.method)}, which the gateway does not answer`,
        );
      if (taskId) await u.kv?.set(note(key), '1', ANSWERED_MS);
      return [key, answer] as const;
    }),
  );
  return Object.fromEntries(answers);
}

/** The result as the SDK server returns it (it stamps resultType itself). */
function completed(r: Json): Json {
  const { resultType: _type, ...result } = r;
  return result;
}

/**
 * The wait between two tasks/get: the task's poll interval, cut short by a notification of the
 * task (one that came while no wait ran ends the next wait at once).
 */
class Pause {
  private poked = false;
  private cut: (() => void) | undefined;

  readonly poke = () => {
    this.poked = true;
    this.cut?.();
  };

  wait(suggested: unknown, signal: AbortSignal): Promise<void> {
    const n = typeof suggested === 'number' && Number.isFinite(suggested) ? suggested : 0;
    const ms = n > 0 ? Math.min(POLL_MS.max, Math.max(POLL_MS.min, n)) : POLL_MS.fallback;
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const done = () => {
        clearTimeout(t);
        this.poked = false;
        this.cut = undefined;
        signal.removeEventListener('abort', stop);
        resolve();
      };
      const stop = () => {
        clearTimeout(t);
        this.cut = undefined;
        reject(signal.reason);
      };
      const t = setTimeout(done, ms);
      if (this.poked) return done();
      this.cut = done;
      signal.addEventListener('abort', stop, { once: true });
    });
  }
}

/** One JSON-RPC request over `u.exchange`, framed as 2026-07-28 with the extension declared. */
function rpcOf(u: TaskUpstream, signal: AbortSignal): Rpc {
  return async (method, params, own) => {
    const meta = {
      ...((params._meta as Json | undefined) ?? {}),
      'io.modelcontextprotocol/protocolVersion': REVISION,
      'io.modelcontextprotocol/clientInfo': u.clientInfo,
      'io.modelcontextprotocol/clientCapabilities': {
        elicitation: { form: {}, url: {} },
        extensions: { [TASKS_EXTENSION]: {} },
      },
    };
    const message = {
      jsonrpc: '2.0' as const,
      id: taskRequestId(),
      method,
      params: { ...params, _meta: meta },
    };
    const answer = await u.exchange(message, own ?? signal);
    if (answer.error) {
      const e = answer.error as { code: number; message: string; data?: unknown };
      throw new ProtocolError(e.code, e.message, e.data);
    }
    return (answer.result ?? {}) as Json;
  };
}
