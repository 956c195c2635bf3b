/**
 * The Tasks extension (`io.modelcontextprotocol/tasks`, 2026-07-28) on an upstream that declares
 * it: the final result of one tools/call (a downstream client that declares Tasks gets it through
 * the gateway's own task, downstream-tasks.ts; `onTask` names the upstream's task). The gateway sends the tools/call itself
 * with the extension declared on the request (the SDK client 2.4 refuses a `resultType: "task"`
 * answer, so these few requests are plain JSON-RPC POSTs through the upstream's guarded fetch),
 * then follows the task with `tasks/get` at its `pollIntervalMs`. While it is `input_required`,
 * each of its `inputRequests` is asked once (keys already asked are not asked again on later
 * polls), and the answers go back with `tasks/update`. `completed` ends the call with the task's
 * result, `failed` with its error, `cancelled` with an error saying so; a cancel of the downstream
 * call sends `tasks/cancel`. A tools/call answered without a task (complete, or `input_required`
 * rounds: answered and retried with `requestState` echoed verbatim) is handled the same way.
 */
import type { FetchLike } from '@modelcontextprotocol/client';
import {
  ProtocolError,
  ProtocolErrorCode,
  type RequestOptions,
} from '@modelcontextprotocol/server';
import { TASKS_EXTENSION } from '../mcp/tasks.ts';

/** Answers one input request of the upstream (elicitation asked in chat); undefined: cannot. */
export type AnswerInput = (
  request: { method: string; params?: Record<string, unknown> },
  signal: AbortSignal,
) => Promise<Record<string, unknown> | undefined>;

/** What the Tasks path uses of one upstream. */
export interface TaskUpstream {
  name: string;
  url: string;
  fetch: FetchLike;
  clientInfo: Record<string, string>;
  answer: AnswerInput;
}

const REVISION = '2026-07-28';
/** The poll interval when the task suggests none, and the bounds of a suggested one. */
const POLL_MS = { fallback: 1000, min: 10, max: 30_000 } as const;
/** How many `input_required` rounds of a task-less answer are followed before failing. */
const ROUNDS = 10;
/** How long a tasks/cancel may take once the downstream call is gone. */
const CANCEL_MS = 10_000;

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

type Rpc = (method: string, params: Json, own?: AbortSignal) => Promise<Json>;

async function followTask(u: TaskUpstream, rpc: Rpc, first: Json, signal: AbortSignal) {
  const taskId = String(first.taskId);
  const asked = new Set<string>();
  // The call's signal is aborted by then: the cancel has its own.
  const cancel = () =>
    void rpc('tasks/cancel', { taskId }, AbortSignal.timeout(CANCEL_MS)).catch(() => undefined);
  signal.addEventListener('abort', cancel, { once: true });
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
        const inputResponses = await answerAll(u, task.inputRequests, asked, signal);
        if (Object.keys(inputResponses).length > 0)
          await rpc('tasks/update', { taskId, inputResponses });
      }
      await pause(task.pollIntervalMs, signal);
      task = await rpc('tasks/get', { taskId });
    }
  } finally {
    signal.removeEventListener('abort', cancel);
  }
}

/** Answers every input request whose key is not in `asked` (and adds the keys). */
async function answerAll(
  u: TaskUpstream,
  requests: unknown,
  asked: Set<string>,
  signal: AbortSignal,
): Promise<Json> {
  const fresh = Object.entries((requests ?? {}) as Record<string, Json>).filter(
    ([key]) => !asked.has(key),
  );
  for (const [key] of fresh) asked.add(key);
  const answers = await Promise.all(
    fresh.map(async ([key, req]) => {
      const answer = await u.answer(req as { method: string; params?: Json }, signal);
      if (!answer)
        throw new ProtocolError(
          ProtocolErrorCode.InternalError,
          `upstream MCP server "${u.name}" asked for ${String(req.method)}, which the gateway does not answer`,
        );
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

function pause(suggested: unknown, signal: AbortSignal): Promise<void> {
  const n = typeof suggested === 'number' && Number.isFinite(suggested) ? suggested : 0;
  const ms = n > 0 ? Math.min(POLL_MS.max, Math.max(POLL_MS.min, n)) : POLL_MS.fallback;
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const t = setTimeout(done, ms);
    function done() {
      signal.removeEventListener('abort', stop);
      resolve();
    }
    function stop() {
      clearTimeout(t);
      reject(signal.reason);
    }
    signal.addEventListener('abort', stop, { once: true });
  });
}

/** One JSON-RPC request per POST, framed as 2026-07-28 with the extension declared. */
function rpcOf(u: TaskUpstream, signal: AbortSignal): Rpc {
  let n = 0;
  return async (method, params, own) => {
    const id = `gw-task-${++n}`;
    const meta = {
      ...((params._meta as Json | undefined) ?? {}),
      'io.modelcontextprotocol/protocolVersion': REVISION,
      'io.modelcontextprotocol/clientInfo': u.clientInfo,
      'io.modelcontextprotocol/clientCapabilities': {
        elicitation: { form: {}, url: {} },
        extensions: { [TASKS_EXTENSION]: {} },
      },
    };
    const name = method === 'tools/call' ? params.name : params.taskId;
    const res = await u.fetch(u.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': REVISION,
        'mcp-method': method,
        ...(typeof name === 'string' && { 'mcp-name': name }),
      },
      body: JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: meta } }),
      signal: own ?? signal,
    });
    const answer = await answerOf(u, res, id);
    if (answer.error) {
      const e = answer.error as { code: number; message: string; data?: unknown };
      throw new ProtocolError(e.code, e.message, e.data);
    }
    return (answer.result ?? {}) as Json;
  };
}

/** The answer to request `id`, from a JSON body or an SSE stream. */
async function answerOf(u: TaskUpstream, res: Response, id: string): Promise<Json> {
  const text = await res.text();
  const sse = (res.headers.get('content-type') ?? '').includes('text/event-stream');
  const messages = sse
    ? text
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => parsed(l.slice(5)))
    : [parsed(text)];
  const answer = messages.find((m) => m?.id === id);
  if (answer) return answer;
  throw new ProtocolError(
    ProtocolErrorCode.InternalError,
    `upstream MCP server "${u.name}" answered HTTP ${res.status} without a JSON-RPC answer`,
  );
}

function parsed(text: string): Json | undefined {
  try {
    return JSON.parse(text) as Json;
  } catch {
    return undefined;
  }
}
