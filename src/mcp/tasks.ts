/**
 * The Tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663, on protocol revision 2026-07-28):
 * a client that declares it on a tools/call of an ask tool gets a task at once (resultType "task")
 * instead of a call held open for minutes or days, then follows it with `tasks/get` (the tool's
 * result inlined once the person answered), withdraws it with `tasks/cancel`. The task is the ask:
 * its id is the ask's id and its state is read from the store on each request, so it survives a
 * restart of the relay and any replica serves it (nothing of it is kept in memory). The status
 * never becomes input_required: the person answers in chat, not through the client. The SDK
 * (2.4) has no runtime for the extension, so its three methods are registered here with their
 * wire shapes from the extension's specification.
 */
import {
  CLIENT_CAPABILITIES_META_KEY,
  type McpServer,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  type RequestId,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import { askContentOf } from '../asks/content.ts';
import { withdrawAsk } from '../asks-service/withdraw.ts';
import type { StoredCase } from '../store/types.ts';
import { outcomeText } from './outcome.ts';
import { type McpCall, type TaskStarts, toolOutcome, toolResult, WITHDRAWN } from './tools.ts';
import { waitIsOver } from './waits.ts';

/** The extension's identifier (client and server capabilities). */
export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

/** The shortest and longest poll interval the tasks suggest (pollIntervalMs). */
export const TASK_POLL_MS = { min: 1000, max: 30_000 } as const;

/**
 * How often to poll a task of age `ageMs`: a tenth of its age, within TASK_POLL_MS. A person who
 * has not answered in ten minutes is unlikely to in the next second, and a fresh ask is often
 * answered within seconds, so the hint grows with the wait (the spec lets it change).
 */
export const taskPollMs = (ageMs: number): number =>
  Math.round(Math.min(TASK_POLL_MS.max, Math.max(TASK_POLL_MS.min, ageMs / 10)));

/** Whether the client declared the extension on this request (2026-07-28 per-request capabilities). */
export function declaresTasks(ctx: ServerContext): boolean {
  // The SDK types the envelope as {} (its keys are the reserved io.modelcontextprotocol/* ones).
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  const caps = envelope?.[CLIENT_CAPABILITIES_META_KEY] as
    | { extensions?: Record<string, unknown> }
    | undefined;
  return !!caps?.extensions && Object.hasOwn(caps.extensions, TASKS_EXTENSION);
}

/** A task as tasks/get, and the tools/call that created it, show it (the spec's DetailedTask). */
export function taskOf(call: McpCall, c: StoredCase, now = Date.now()) {
  const base = {
    taskId: c.id,
    createdAt: new Date(c.created_at).toISOString(),
    lastUpdatedAt: new Date(c.updated_at).toISOString(),
    ttlMs: ttlOf(c, call.relay.config.retentionMs),
    pollIntervalMs: taskPollMs(now - c.created_at),
  };
  if (!waitIsOver(c))
    return {
      ...base,
      status: 'working' as const,
      statusMessage: `waiting for a person in ${c.target}`,
    };
  if (c.status === 'cancelled')
    return {
      ...base,
      status: 'cancelled' as const,
      statusMessage: outcomeText(toolOutcome(call, c)),
    };
  // Answered, expired, or shown to nobody: the call completed with the tool's result (an expired
  // ask's result says nobody answered; an undeliverable one is a tool error, isError).
  // The result is what the tools/call would have answered, resultType included.
  const result = { ...toolResult(call, c), resultType: 'complete' };
  return { ...base, status: 'completed' as const, result };
}

/**
 * How long the task can be read, from its creation: until the ask's deadline (or its end, once
 * over), then the store's retention (RETENTION_DAYS); null when final asks are kept for ever.
 */
function ttlOf(c: StoredCase, retentionMs: number): number | null {
  if (!(retentionMs > 0)) return null;
  const end = waitIsOver(c) ? c.updated_at : Date.parse(c.doc.hitl.expires_at);
  return Math.max(
    0,
    Math.round((Number.isFinite(end) ? end : c.updated_at) + retentionMs - c.created_at),
  );
}

/** The message of the spec's -32602 for a task id that is not known. */
export const TASK_NOT_FOUND = 'Failed to retrieve task: Task not found';

/** The ask of a task request, or the spec's -32602 for an id that is no ask. */
async function askOfTask(call: McpCall, taskId: string): Promise<StoredCase> {
  const c = await call.relay.store.getCase(taskId.slice(0, 200));
  if (!c || !askContentOf(c.doc.hitl.context))
    throw new ProtocolError(ProtocolErrorCode.InvalidParams, TASK_NOT_FOUND);
  return c;
}

/** Refuses a task request of a client that did not declare the extension on it (the spec's -32021). */
export function requireTasks(ctx: ServerContext): void {
  if (!declaresTasks(ctx))
    throw new MissingRequiredClientCapabilityError({
      requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
    });
}

/** The params of tasks/get, tasks/cancel and tasks/update. */
export const taskParams = { params: z.looseObject({ taskId: z.string().min(1) }) };

/**
 * The tasks of one 2026-07-28 request: the ask tools' calls that became tasks (take), and the
 * extension's methods. install() runs after the tools are registered.
 */
export class TaskCalls implements TaskStarts {
  private readonly started = new Map<RequestId, StoredCase>();

  constructor(private readonly call: McpCall) {}

  take(ctx: ServerContext, c: StoredCase): boolean {
    if (!declaresTasks(ctx)) return false;
    this.started.set(ctx.mcpReq.id, c);
    return true;
  }

  /** Wraps tools/call (a call that became a task answers with it) and adds tasks/get, cancel, update. */
  install(server: McpServer): void {
    const low = server.server;
    // The SDK's protected accessor for a stored handler (for role classes that re-dispatch); the
    // McpServer's own tools/call (argument checks, output validation) stays in front of ours.
    const tools = (
      low as unknown as { _getRequestHandler(m: string): Handler | undefined }
    )._getRequestHandler('tools/call');
    if (!tools) throw new Error('register the tools before the tasks');
    low.removeRequestHandler('tools/call');
    low.setRequestHandler('tools/call', (async (
      request: Parameters<Handler>[0],
      ctx: ServerContext,
    ) => {
      const result = await tools(request, ctx);
      const c = this.started.get(ctx.mcpReq.id);
      return c ? { resultType: 'task', ...taskOf(this.call, c) } : result;
    }) as never);
    low.setRequestHandler('tasks/get', taskParams, async ({ taskId }, ctx) => {
      requireTasks(ctx);
      return taskOf(this.call, await askOfTask(this.call, taskId));
    });
    low.setRequestHandler('tasks/cancel', taskParams, async ({ taskId }, ctx) => {
      requireTasks(ctx);
      const c = await askOfTask(this.call, taskId);
      if (!waitIsOver(c)) await withdrawAsk(this.call.relay, this.call.asks, c, WITHDRAWN);
      return {};
    });
    // Nothing is ever outstanding (the person answers in chat), so every response is ignored.
    low.setRequestHandler('tasks/update', taskParams, async ({ taskId }, ctx) => {
      requireTasks(ctx);
      await askOfTask(this.call, taskId);
      return {};
    });
  }
}

type Handler = (
  request: { method: string; params?: unknown },
  ctx: ServerContext,
) => Promise<unknown>;
