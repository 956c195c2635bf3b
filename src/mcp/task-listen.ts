/**
 * Task status pushes of the Tasks extension on 2026-07-28: a `subscriptions/listen` whose filter
 * names `taskIds` (the extension's addition to the filter) opens an SSE stream that carries
 * `notifications/tasks` for those tasks (the DetailedTask, as tasks/get shows it) whenever their
 * ask changes, so a client need not poll. The SDK's listen router knows only list-changed and
 * resource kinds, so this stream is served here, before the SDK sees the request. The stream
 * starts with `notifications/subscriptions/acknowledged` naming the tasks it honours (asks that
 * exist; other ids are left out), then each task's current state, then one notification per
 * change; it ends with the listen's result once every task is over, or when the relay stops.
 * A wait reads the store only when its ask's change event arrives: idle streams read nothing.
 */
import type { EventEmitter } from 'node:events';
import {
  CLIENT_CAPABILITIES_META_KEY,
  PROTOCOL_VERSION_META_KEY,
  SERVER_INFO_META_KEY,
  SUBSCRIPTION_ID_META_KEY,
} from '@modelcontextprotocol/server';
import { askContentOf } from '../asks/content.ts';
import { CHANGES_MISSED } from '../cases/repository.ts';
import type { StoredCase } from '../store/types.ts';
import { TASKS_EXTENSION, taskOf } from './tasks.ts';
import type { McpCall } from './tools.ts';
import { waitIsOver } from './waits.ts';

/** Tasks one listen may name, and listens open at once on one relay. */
export const LISTEN_LIMITS = { taskIds: 100, open: 1024 } as const;
const KEEP_ALIVE_MS = 25_000;
const MAX_ID = 200;

type RequestId = string | number;
type Json = Record<string, unknown>;

/** A listen request for tasks: its id and the task ids asked for. */
export interface TaskListen {
  id: RequestId;
  taskIds: string[];
}

const obj = (v: unknown): Json | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;

const rpcError = (id: RequestId | null, code: number, message: string, data?: unknown) =>
  Response.json({ jsonrpc: '2.0', id, error: { code, message, ...(data ? { data } : {}) } });

/**
 * The listen for tasks in `body`, a JSON-RPC error Response for a bad one, or null when `body` is
 * no listen naming `taskIds` (the SDK serves every other listen).
 */
export function taskListenOf(body: unknown): TaskListen | Response | null {
  const b = obj(body);
  const params = obj(b?.params);
  const filter = obj(params?.notifications);
  if (b?.method !== 'subscriptions/listen' || !filter || !('taskIds' in filter)) return null;
  // Only 2026-07-28 requests carry the revision in _meta; the SDK answers any other era.
  if (typeof obj(params?._meta)?.[PROTOCOL_VERSION_META_KEY] !== 'string') return null;
  const id = typeof b.id === 'string' || typeof b.id === 'number' ? b.id : null;
  if (id === null) return rpcError(null, -32600, 'Invalid request: a listen needs an id');
  const caps = obj(obj(params?._meta)?.[CLIENT_CAPABILITIES_META_KEY]);
  if (!obj(caps?.extensions) || !Object.hasOwn(obj(caps?.extensions)!, TASKS_EXTENSION))
    return rpcError(id, -32021, 'Missing required client capability', {
      requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
    });
  const ids = filter.taskIds;
  if (
    !Array.isArray(ids) ||
    !ids.length ||
    ids.length > LISTEN_LIMITS.taskIds ||
    !ids.every((t) => typeof t === 'string' && t.length > 0 && t.length <= MAX_ID)
  )
    return rpcError(
      id,
      -32602,
      `Invalid params: notifications.taskIds must be 1-${LISTEN_LIMITS.taskIds} task ids (strings of 1-${MAX_ID} characters)`,
    );
  return { id, taskIds: [...new Set(ids as string[])] };
}

/** The open task listens of one relay process. */
export class TaskListens {
  private readonly open = new Set<(graceful: boolean) => void>();
  /** Store reads made by listens (tests count them). */
  reads = 0;

  constructor(
    private readonly events: EventEmitter,
    private readonly serverInfo: { name: string; version: string },
  ) {}

  get size(): number {
    return this.open.size;
  }

  /** Serves one listen as an SSE stream (or refuses it when too many are open). */
  async serve(listen: TaskListen, call: McpCall, signal: AbortSignal): Promise<Response> {
    if (this.open.size >= LISTEN_LIMITS.open)
      return rpcError(listen.id, -32603, 'Subscription limit reached');
    const tasks = new Map<string, StoredCase>();
    for (const id of listen.taskIds) {
      const c = await this.read(call, id);
      if (c && askContentOf(c.doc.hitl.context)) tasks.set(id, c);
    }
    return new Response(this.stream(listen, call, tasks, signal), {
      headers: {
        'content-type': 'text/event-stream',
        'cache-control': 'no-store',
        connection: 'keep-alive',
      },
    });
  }

  private read(call: McpCall, id: string): Promise<StoredCase | undefined> {
    this.reads++;
    return call.relay.store.getCase(id);
  }

  private stream(
    listen: TaskListen,
    call: McpCall,
    tasks: Map<string, StoredCase>,
    signal: AbortSignal,
  ): ReadableStream<Uint8Array> {
    const encoder = new TextEncoder();
    const meta = { [SUBSCRIPTION_ID_META_KEY]: listen.id };
    const sent = new Map<string, string>();
    const unhooks: (() => void)[] = [];
    let closed = false;
    let out: ReadableStreamDefaultController<Uint8Array>;
    const frame = (m: Json) => {
      if (!closed) out.enqueue(encoder.encode(`event: message\ndata: ${JSON.stringify(m)}\n\n`));
    };
    const teardown = (graceful: boolean) => {
      if (closed) return;
      if (graceful)
        frame({
          jsonrpc: '2.0',
          id: listen.id,
          result: {
            resultType: 'complete',
            _meta: { ...meta, [SERVER_INFO_META_KEY]: this.serverInfo },
          },
        });
      closed = true;
      for (const u of unhooks) u();
      this.open.delete(teardown);
      try {
        out.close();
      } catch {
        // The client went first.
      }
    };
    /** Tells the client of `c` when its task's state differs from what it was last told. */
    const tell = (c: StoredCase, settle = true) => {
      tasks.set(c.id, c);
      const task = taskOf(call, c);
      const said = `${task.status}|${task.lastUpdatedAt}`;
      if (sent.get(c.id) !== said) {
        sent.set(c.id, said);
        frame({ jsonrpc: '2.0', method: 'notifications/tasks', params: { ...task, _meta: meta } });
      }
      if (settle) done();
    };
    const done = () => {
      if ([...tasks.values()].every(waitIsOver)) teardown(true);
    };
    const changed = async (id: string, copy?: StoredCase) => {
      const c = copy ?? (await this.read(call, id).catch(() => undefined));
      if (c && !closed) tell(c);
    };
    return new ReadableStream({
      start: (controller) => {
        out = controller;
        this.open.add(teardown);
        frame({
          jsonrpc: '2.0',
          method: 'notifications/subscriptions/acknowledged',
          params: { notifications: { taskIds: [...tasks.keys()] }, _meta: meta },
        });
        for (const id of tasks.keys()) {
          const on = (copy?: StoredCase) => void changed(id, copy);
          this.events.on(`change:${id}`, on);
          unhooks.push(() => this.events.off(`change:${id}`, on));
        }
        // The change feed reconnected: anything may have changed, each open task is read once.
        const missed = () => {
          for (const [id, c] of tasks) if (!waitIsOver(c)) void changed(id);
        };
        this.events.on(CHANGES_MISSED, missed);
        unhooks.push(() => this.events.off(CHANGES_MISSED, missed));
        const alive = setInterval(() => {
          if (!closed) out.enqueue(encoder.encode(': keep-alive\n\n'));
        }, KEEP_ALIVE_MS);
        alive.unref();
        unhooks.push(() => clearInterval(alive));
        const onAbort = () => teardown(false);
        signal.addEventListener('abort', onAbort, { once: true });
        unhooks.push(() => signal.removeEventListener('abort', onAbort));
        for (const c of [...tasks.values()]) tell(c, false);
        done();
      },
      cancel: () => teardown(false),
    });
  }

  /** Ends every open listen with its result (the relay stops). */
  close(): void {
    for (const t of [...this.open]) t(true);
  }
}
