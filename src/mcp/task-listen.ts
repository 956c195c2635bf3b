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
  private readonly open = new Set<ListenStream>();
  /** Store reads made by listens (tests count them). */
  reads = 0;

  constructor(
    private readonly events: EventEmitter,
    readonly serverInfo: { name: string; version: string },
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

  read(call: McpCall, id: string): Promise<StoredCase | undefined> {
    this.reads++;
    return call.relay.store.getCase(id);
  }

  private stream(
    listen: TaskListen,
    call: McpCall,
    tasks: Map<string, StoredCase>,
    signal: AbortSignal,
  ): ReadableStream<Uint8Array> {
    const s = new ListenStream(this, listen, call, tasks);
    return new ReadableStream({
      start: (controller) => {
        this.open.add(s);
        s.start(controller, this.events, signal);
      },
      cancel: () => s.teardown(false),
    });
  }

  /** Forgets a listen that ended. */
  ended(s: ListenStream): void {
    this.open.delete(s);
  }

  /** Ends every open listen with its result (the relay stops). */
  close(): void {
    for (const s of [...this.open]) s.teardown(true);
  }
}

/** One listen's stream: what it was told of each task, and its listeners. */
class ListenStream {
  private readonly encoder = new TextEncoder();
  private readonly meta: Json;
  private readonly sent = new Map<string, string>();
  private readonly unhooks: (() => void)[] = [];
  private closed = false;
  private out!: ReadableStreamDefaultController<Uint8Array>;

  constructor(
    private readonly listens: TaskListens,
    private readonly listen: TaskListen,
    private readonly call: McpCall,
    private readonly tasks: Map<string, StoredCase>,
  ) {
    this.meta = { [SUBSCRIPTION_ID_META_KEY]: listen.id };
  }

  start(
    out: ReadableStreamDefaultController<Uint8Array>,
    events: EventEmitter,
    signal: AbortSignal,
  ): void {
    this.out = out;
    this.frame({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { notifications: { taskIds: [...this.tasks.keys()] }, _meta: this.meta },
    });
    for (const id of this.tasks.keys())
      this.hook(events, `change:${id}`, (copy?: StoredCase) => void this.changed(id, copy));
    // The change feed reconnected: anything may have changed, each open task is read once.
    this.hook(events, CHANGES_MISSED, () => {
      for (const [id, c] of this.tasks) if (!waitIsOver(c)) void this.changed(id);
    });
    const alive = setInterval(() => this.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
    alive.unref();
    this.unhooks.push(() => clearInterval(alive));
    const onAbort = () => this.teardown(false);
    signal.addEventListener('abort', onAbort, { once: true });
    this.unhooks.push(() => signal.removeEventListener('abort', onAbort));
    for (const c of [...this.tasks.values()]) this.tell(c, false);
    this.settle();
  }

  private hook(events: EventEmitter, name: string, on: (copy?: StoredCase) => void): void {
    events.on(name, on);
    this.unhooks.push(() => events.off(name, on));
  }

  private write(text: string): void {
    if (!this.closed) this.out.enqueue(this.encoder.encode(text));
  }

  private frame(m: Json): void {
    this.write(`event: message\ndata: ${JSON.stringify(m)}\n\n`);
  }

  /** Tells the client of `c` when its task's state differs from what it was last told. */
  private tell(c: StoredCase, settle = true): void {
    this.tasks.set(c.id, c);
    const task = taskOf(this.call, c);
    const said = `${task.status}|${task.lastUpdatedAt}`;
    if (this.sent.get(c.id) !== said) {
      this.sent.set(c.id, said);
      this.frame({
        jsonrpc: '2.0',
        method: 'notifications/tasks',
        params: { ...task, _meta: this.meta },
      });
    }
    if (settle) this.settle();
  }

  /** Ends the listen with its result once every task is over. */
  private settle(): void {
    if ([...this.tasks.values()].every(waitIsOver)) this.teardown(true);
  }

  private async changed(id: string, copy?: StoredCase): Promise<void> {
    const c = copy ?? (await this.listens.read(this.call, id).catch(() => undefined));
    if (c && !this.closed) this.tell(c);
  }

  teardown(graceful: boolean): void {
    if (this.closed) return;
    if (graceful)
      this.frame({
        jsonrpc: '2.0',
        id: this.listen.id,
        result: {
          resultType: 'complete',
          _meta: { ...this.meta, [SERVER_INFO_META_KEY]: this.listens.serverInfo },
        },
      });
    this.closed = true;
    for (const u of this.unhooks) u();
    this.listens.ended(this);
    try {
      this.out.close();
    } catch {
      // The client went first.
    }
  }
}
