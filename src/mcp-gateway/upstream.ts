/**
 * One upstream MCP server and the gateway's connection to it: an official SDK client, connected at
 * start and again after a failure (an HTTP server that cannot be reached, a stdio child that
 * exited: restarted with a growing pause), its state on /readyz as part `mcp-upstream:<name>`, and
 * a log line with the reason whenever it goes down. A request while it is down tries once more at
 * once and fails with that reason, so a client never waits on a dead upstream.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { Client } from '@modelcontextprotocol/client';
import type { Notification, RequestOptions, Tool } from '@modelcontextprotocol/server';
import type { Dispatcher } from 'undici';
import { isHttpUpstream, type McpUpstreamConfig } from '../config/mcp-upstreams.ts';
import type { Health } from '../health.ts';
import { type Logger, scrub } from '../log.ts';
import { TASKS_EXTENSION } from '../mcp/tasks.ts';
import { Callers } from './callers.ts';
import { DownstreamTasks, type TaskStore } from './downstream-tasks.ts';
import { type Exchange, httpExchange, TaskWakes, tapStdio } from './task-wire.ts';
import { type AnswerInput, callWithTasks, resumeTask } from './upstream-tasks.ts';
import {
  type GuardedPost,
  guardedFetch,
  guardedPost,
  linkTo,
  type UpstreamLink,
} from './upstream-transport.ts';

/** What an upstream needs of the relay. */
export interface UpstreamDeps {
  dispatcher: Dispatcher;
  log: Logger;
  health?: Health | undefined;
  /** A notification the upstream sent outside any request (list changes, resource updates). */
  onNotification(upstream: string, n: Notification): void;
  /** Adds the gateway's own request handlers (elicitation) to a fresh client. */
  prepare?(client: Client, upstream: Upstream): void;
  /** Where the gateway's tasks and the answered keys of upstream tasks are kept. */
  tasks?: TaskStore | undefined;
}

/** The upstream cannot serve now; the message says why (never a secret). */
export class UpstreamDown extends Error {
  constructor(upstream: string, reason: string) {
    super(`upstream MCP server "${upstream}" is not available: ${reason}`);
    this.name = 'UpstreamDown';
  }
}

/** The pause before reconnecting: 1 s, doubling, at most 30 s. */
const backoffMs = (failures: number) => Math.min(30_000, 1000 * 2 ** Math.max(0, failures - 1));

/** How long connecting may take (the handshake, or the probe of `auto`). */
const CONNECT_TIMEOUT_MS = 15_000;

/** How many `input_required` rounds one upstream call may take before it fails. */
const INPUT_ROUNDS = 10;

/** The client name and version the gateway gives upstream servers. */
export const GATEWAY_CLIENT_INFO = { name: 'hitl-relay-gateway', version: '1.0.0' } as const;

/** One upstream: its connection, supervised. */
export class Upstream {
  private client: Client | undefined;
  private connecting: Promise<Client> | undefined;
  private tools: Map<string, Tool> | undefined;
  private failures = 0;
  private retry: NodeJS.Timeout | undefined;
  private closed = false;
  private reason = 'not connected yet';
  /** The relay's URL as the last downstream client reached it (PUBLIC_URL wins in createAsk). */
  origin: string | undefined;
  /** The downstream calls in flight, by caller: who an elicitation came for (callers.ts). */
  readonly callers = new Callers();
  /** Answers an input request of a task (the elicitation handler sets it: upstream-tasks.ts). */
  answerInput: AnswerInput | undefined;
  /** True while the relay stops (the elicitation handler sets it): tasks live on upstream. */
  keepTasks: (() => boolean) | undefined;
  /** The gateway's tasks for downstream clients that declare Tasks (downstream-tasks.ts). */
  readonly tasks: DownstreamTasks;
  /** The follows of upstream tasks, woken by the upstream's `notifications/tasks`. */
  private readonly wakes = new TaskWakes();

  constructor(
    readonly name: string,
    readonly config: McpUpstreamConfig,
    private readonly deps: UpstreamDeps,
  ) {
    this.tasks = new DownstreamTasks(name, deps.tasks);
    this.tasks.revive = (taskId) =>
      void this.resumeTask(taskId, async () => {}).catch((err: Error) =>
        deps.log.warn(
          { upstream: name, err: scrub(err.message) },
          'mcp gateway: cannot follow an upstream task again',
        ),
      );
  }

  /**
   * Follows upstream task `taskId` that an earlier relay process started (task-resume.ts):
   * `onFirst` gets its state first; a gateway task a client holds for it ends with its outcome.
   */
  async resumeTask(taskId: string, onFirst: (task: Record<string, unknown>) => Promise<void>) {
    const tasks = this.tasksPath(await this.connected());
    if (!tasks) throw new UpstreamDown(this.name, 'it no longer offers the Tasks extension');
    await this.tasks.resume(taskId, (signal) => resumeTask(tasks, taskId, signal, onFirst));
  }

  /** The /readyz part of this upstream. */
  get part(): string {
    return `mcp-upstream:${this.name}`;
  }

  /** Connects in the background (the relay starts without waiting for its upstreams). */
  start(): void {
    this.deps.health?.set(this.part, 'starting');
    void this.connected().catch(() => undefined);
  }

  /** The connected client, connecting first when needed; UpstreamDown when that fails. */
  connected(): Promise<Client> {
    if (this.closed) return Promise.reject(new UpstreamDown(this.name, 'the relay is stopping'));
    if (this.client) return Promise.resolve(this.client);
    this.connecting ??= this.connect().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  /**
   * Sends one request upstream as the SDK client (ProtocolError from the server passes as is).
   * `asTask`: the downstream client declared Tasks, so a tools/call the upstream answers with a
   * task answers with the gateway's own (downstream-tasks.ts).
   */
  async request(
    method: string,
    params: Record<string, unknown> | undefined,
    options: RequestOptions,
    asTask = false,
  ): Promise<Record<string, unknown>> {
    const client = await this.connected();
    const tasks = method === 'tools/call' && params && this.tasksPath(client);
    if (tasks && asTask)
      return await this.tasks.start(
        (onTask, signal) => callWithTasks(tasks, params, { ...options, signal }, onTask),
        options.signal ?? new AbortController().signal,
      );
    if (tasks) return await callWithTasks(tasks, params, options);
    const req = { method, ...(params !== undefined && { params }) };
    const timeouts = { timeout: this.config.timeoutMs, resetTimeoutOnProgress: true };
    return (await client.request(req as never, { ...timeouts, ...options })) as Record<
      string,
      unknown
    >;
  }

  /** Whether downstream clients are offered Tasks (the upstream's calls take the Tasks path). */
  offersTasks(client: Client): boolean {
    return this.tasksPath(client) !== undefined;
  }

  /** The Tasks path, when this is a 2026-07-28 upstream (HTTP or stdio) that declares it. */
  private tasksPath(client: Client) {
    const declared = (client.getServerCapabilities() as { extensions?: object } | undefined)
      ?.extensions;
    const modern = client.getNegotiatedProtocolVersion() === '2026-07-28';
    if (!declared || !Object.hasOwn(declared, TASKS_EXTENSION) || !modern) return undefined;
    if (!this.answerInput) return undefined;
    const exchange = isHttpUpstream(this.config)
      ? httpExchange(this.name, this.config.url, this.leanFetch(), this.wakes)
      : this.stdioExchange;
    const clientInfo = { ...GATEWAY_CLIENT_INFO };
    const answer = this.answerInput;
    const stopping = () => this.closed || !!this.keepTasks?.();
    const kv = this.deps.tasks?.kv;
    return { name: this.name, exchange, clientInfo, answer, kv, wakes: this.wakes, stopping };
  }

  /** The Tasks path's requests to the stdio child of the connection now (task-wire.ts). */
  private stdio: Exchange | undefined;
  private readonly stdioExchange: Exchange = async (message, signal) => {
    await this.connected();
    const send = this.stdio;
    if (!send) throw new UpstreamDown(this.name, this.reason || 'not connected');
    return await send(message, signal);
  };

  /**
   * The client, when a call may take the lean path (lean-call.ts): connected now, over HTTP,
   * on 2026-07-28, without the Tasks path.
   */
  leanClient(): Client | undefined {
    const c = this.client;
    if (!c || !isHttpUpstream(this.config) || this.closed || this.config.lean === false)
      return undefined;
    if (c.getNegotiatedProtocolVersion() !== '2026-07-28' || this.offersTasks(c)) return undefined;
    return c;
  }

  /** Tool `name` as the last tools/list described it (undefined when not read yet). */
  knownTool(name: string): Tool | undefined {
    return this.tools?.get(name);
  }

  private fetchOf: ReturnType<typeof guardedFetch> | undefined;
  /** The guarded fetch of this HTTP upstream (URL policy, its headers, no redirect). */
  leanFetch(): ReturnType<typeof guardedFetch> {
    if (!isHttpUpstream(this.config)) throw new Error('not an HTTP upstream');
    this.fetchOf ??= guardedFetch(this.config, this.deps.dispatcher);
    return this.fetchOf;
  }

  private postOf: GuardedPost | undefined;
  /** The lean path's POST to this HTTP upstream (guardedFetch's rules: upstream-transport.ts). */
  leanPost(): GuardedPost {
    if (!isHttpUpstream(this.config)) throw new Error('not an HTTP upstream');
    this.postOf ??= guardedPost(this.config, this.deps.dispatcher);
    return this.postOf;
  }

  /** A lean call's `input_required` answer, for the SDK path's first send of that call. */
  private readonly replays = new AsyncLocalStorage<{
    name: string;
    answer: Record<string, unknown>;
  }>();

  /**
   * Runs `fn` (the SDK path of a call the lean path sent) so that its first tools/call of `name`
   * is answered with `answer` instead of being sent again: the upstream sees each leg once.
   */
  handOver<T>(name: string, answer: Record<string, unknown>, fn: () => Promise<T>): Promise<T> {
    return this.replays.run({ name, answer }, fn);
  }

  private replay(body: string): Response | undefined {
    const slot = this.replays.getStore();
    if (!slot || slot.name === '') return undefined;
    const m = JSON.parse(body) as { method?: string; id?: unknown; params?: { name?: unknown } };
    if (m.method !== 'tools/call' || m.params?.name !== slot.name) return undefined;
    slot.name = '';
    const text = JSON.stringify({ ...slot.answer, id: m.id });
    return new Response(text, { status: 200, headers: { 'content-type': 'application/json' } });
  }

  /** The upstream's definition of tool `name` (tools/list, read again after a change). */
  async tool(name: string): Promise<Tool | undefined> {
    const found = (await this.toolList()).get(name);
    if (found) return found;
    this.tools = undefined;
    return (await this.toolList()).get(name);
  }

  private async toolList(): Promise<Map<string, Tool>> {
    if (this.tools) return this.tools;
    const client = await this.connected();
    const { tools } = await client.listTools(undefined, { cacheMode: 'bypass' });
    this.tools = new Map(tools.map((t) => [t.name, t]));
    return this.tools;
  }

  /** The last reason it went down (for errors while it reconnects). */
  get lastReason(): string {
    return this.reason;
  }

  /** Ends the connection (and the child process) for good. */
  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    this.tasks.close();
    const client = this.client;
    this.client = undefined;
    await client?.close().catch(() => undefined);
  }

  private async connect(): Promise<Client> {
    const client = this.newClient();
    const link = linkTo(this.config, this.deps.dispatcher, (body) => this.replay(body));
    try {
      await client.connect(link.transport as never, { timeout: CONNECT_TIMEOUT_MS });
    } catch (err) {
      await client.close().catch(() => undefined);
      throw this.down(this.describe(err, link));
    }
    if (this.closed) {
      await client.close().catch(() => undefined);
      throw new UpstreamDown(this.name, 'the relay is stopping');
    }
    const stdio = isHttpUpstream(this.config)
      ? undefined
      : tapStdio(link.transport, () => new UpstreamDown(this.name, 'the process ended'));
    client.onclose = () => {
      if (this.client !== client) return;
      this.client = undefined;
      this.stdio = undefined;
      this.tools = undefined;
      if (!this.closed) this.down(this.describe(new Error('the connection closed'), link));
    };
    this.client = client;
    this.stdio = stdio;
    this.failures = 0;
    this.reason = '';
    this.deps.health?.set(this.part, 'up');
    this.deps.log.info({ upstream: this.name }, 'mcp gateway: upstream connected');
    return client;
  }

  private newClient(): Client {
    const p = this.config.protocol;
    const mode = p === 'auto' ? 'auto' : p === 'legacy' ? 'legacy' : { pin: p };
    const client = new Client(GATEWAY_CLIENT_INFO, {
      versionNegotiation: { mode, probe: { timeoutMs: CONNECT_TIMEOUT_MS } },
      listMaxPages: 0,
      // 2026-07-28 `input_required`: the SDK's driver hands each input request to the gateway's
      // handlers (elicitation: asked in chat) and retries with the answers and the requestState
      // echoed verbatim, kept in memory only for the call (input-required docs: mcp-gateway.md).
      inputRequired: { autoFulfill: true, maxRounds: INPUT_ROUNDS },
    });
    client.fallbackNotificationHandler = async (n) => {
      if (this.wakes.notified(n)) return;
      if (n.method === 'notifications/tools/list_changed') this.tools = undefined;
      this.deps.onNotification(this.name, n);
    };
    this.deps.prepare?.(client, this);
    return client;
  }

  /** Marks the upstream down (part, log line) and schedules the next attempt. */
  private down(reason: string): UpstreamDown {
    this.reason = reason;
    this.failures += 1;
    this.deps.health?.set(this.part, 'down', reason);
    this.deps.log.warn({ upstream: this.name, reason }, 'mcp gateway: upstream down');
    clearTimeout(this.retry);
    if (!this.closed) {
      this.retry = setTimeout(
        () => void this.connected().catch(() => undefined),
        backoffMs(this.failures),
      );
      this.retry.unref();
    }
    return new UpstreamDown(this.name, reason);
  }

  /** Why a connection failed or ended, in words, with nothing secret in it. */
  private describe(err: unknown, link: UpstreamLink): string {
    const causes: string[] = [];
    for (let e: unknown = err; e instanceof Error && causes.length < 4; e = e.cause)
      if (!causes.includes(e.message)) causes.push(e.message);
    const stderr = link.stderrTail().trim().split('\n').pop()?.slice(0, 300);
    const how = 'command' in this.config ? 'the process ended or failed' : 'unreachable';
    const words = `${how}: ${causes.join(': ') || 'unknown error'}${stderr ? ` (stderr: ${stderr})` : ''}`;
    return scrub(words);
  }
}
