/**
 * The downstream face of one upstream: a low-level SDK Server (one per HTTP request, as /mcp does)
 * that declares what the upstream declared and hands every request on unchanged: list pages with
 * their cursors (never aggregated), reads, prompts, completions, log levels, subscriptions. The
 * caller's progress token gets the upstream's progress; the caller's cancel (its signal) cancels
 * upstream. A `tools/call` first passes the tool gate (tool-gate.ts), and the upstream receives
 * exactly the arguments the gate returns. Upstream errors reach the client as they are; the
 * gateway's own failures (upstream down, no such tool) are MCP errors naming the upstream.
 */
import {
  type Notification,
  ProtocolError,
  ProtocolErrorCode,
  type RequestOptions,
  SdkError,
  Server,
  type ServerCapabilities,
  type ServerContext,
} from '@modelcontextprotocol/server';
import type { LegacyCancels } from '../mcp/cancels.ts';
import { cancelScope } from '../mcp/legacy-session.ts';
import { declaresTasks, TASKS_EXTENSION } from '../mcp/tasks.ts';
import type { GateToolCall } from './tool-gate.ts';
import { type Upstream, UpstreamDown } from './upstream.ts';

/** Who is calling (the downstream client's credential). */
export interface DownstreamClient {
  /** The name of the API key it presented, or null for the relay's one key / no key. */
  keyName: string | null;
  /** The relay's URL as this client reached it: the links of asks the tool gate makes. */
  origin?: string | undefined;
  /** The session id the gateway gave this 2025-era client (legacy-session.ts), if it sent one. */
  session?: string | undefined;
}

/** The methods passed through as they are, by the capability that offers them (tools/call passes the gate first). */
const PASSED = {
  tools: ['tools/list'],
  resources: ['resources/list', 'resources/templates/list', 'resources/read'],
  prompts: ['prompts/list', 'prompts/get'],
  completions: ['completion/complete'],
  logging: ['logging/setLevel'],
} as const;

/** What the gateway declares for an upstream it cannot reach (each call then says why). */
const DOWN_CAPABILITIES: ServerCapabilities = { tools: {}, resources: {}, prompts: {} };

/** Builds the downstream server of one request to /mcp/gateway/<name>. */
export async function downstreamServer(
  upstream: Upstream,
  who: DownstreamClient,
  cancels: LegacyCancels,
  gate: GateToolCall,
  era: 'legacy' | 'modern',
): Promise<Server> {
  const client = await upstream.connected().catch(() => undefined);
  const version = client?.getServerVersion();
  const instructions = client?.getInstructions();
  const capabilities = client
    ? passedCapabilities(client.getServerCapabilities())
    : DOWN_CAPABILITIES;
  // A task of the upstream is handed on to a client that declares Tasks (downstream-tasks.ts).
  const tasks = client !== undefined && era === 'modern' && upstream.offersTasks(client);
  if (tasks) capabilities.extensions = { [TASKS_EXTENSION]: {} };
  const server = new Server(
    { name: version?.name ?? upstream.name, version: version?.version ?? '0.0.0' },
    { capabilities, ...(instructions !== undefined && { instructions }) },
  );
  // The SDK refuses a handler for a capability not declared: only the declared ones are passed.
  const methods: string[] = Object.entries(PASSED).flatMap(([cap, m]) =>
    cap in capabilities ? [...m] : [],
  );
  if (capabilities.resources?.subscribe)
    methods.push('resources/subscribe', 'resources/unsubscribe');
  for (const method of methods)
    server.setRequestHandler(
      method as 'tools/list',
      ((req: { params?: Record<string, unknown> }, ctx: ServerContext) =>
        forward(upstream, method, req.params, ctx, { cancels, who, era })) as never,
    );
  if (capabilities.tools)
    server.setRequestHandler('tools/call', (async (
      req: { params: { name: string; arguments?: Record<string, unknown> } },
      ctx: ServerContext,
    ) => callTool(upstream, who, req.params, ctx, { cancels, gate, era })) as never);
  if (tasks) upstream.tasks.install(server);
  return server;
}

/** The upstream's capabilities the gateway serves (the rest it does not proxy yet). */
function passedCapabilities(c: ServerCapabilities | undefined): ServerCapabilities {
  const out: ServerCapabilities = {};
  if (c?.tools) out.tools = c.tools;
  if (c?.resources) out.resources = c.resources;
  if (c?.prompts) out.prompts = c.prompts;
  if (c?.completions) out.completions = c.completions;
  if (c?.logging) out.logging = c.logging;
  return out;
}

/** The downstream client's protocol era: 2026-07-28 (modern) or a 2025 revision (legacy). */
type Era = 'legacy' | 'modern';

/** What a tools/call needs besides the call: the cancels, the gate, the client's era. */
type CallDeps = { cancels: LegacyCancels; gate: GateToolCall; era: Era };

async function callTool(
  upstream: Upstream,
  who: DownstreamClient,
  params: { name: string; arguments?: Record<string, unknown> },
  ctx: ServerContext,
  d: CallDeps,
) {
  const tool = await guarded(upstream, () => upstream.tool(params.name));
  if (!tool)
    throw new ProtocolError(
      ProtocolErrorCode.InvalidParams,
      `upstream MCP server "${upstream.name}" has no tool "${params.name}"`,
    );
  // One registration for the whole call: held, then sent (a second one would make the id ambiguous).
  const legacy = d.cancels.track(ctx.mcpReq.id, cancelScope(who.keyName, who.session));
  try {
    const decision = await d.gate({
      upstream: upstream.name,
      tool,
      args: params.arguments ?? {},
      client: { keyName: who.keyName },
      signal: AbortSignal.any([ctx.mcpReq.signal, legacy.signal]),
      // 2026-07-28 cancels by closing the stream; on 2025 that is only a disconnect.
      cancelled: d.era === 'legacy' ? legacy.signal : ctx.mcpReq.signal,
      origin: who.origin,
    });
    if (decision.kind === 'refuse')
      return { isError: true, content: [{ type: 'text', text: decision.message }] };
    const sent = { ...params, arguments: decision.args };
    const asTask = d.era === 'modern' && declaresTasks(ctx);
    const by = { cancels: d.cancels, who, era: d.era, asTask };
    return await forward(upstream, 'tools/call', sent, ctx, by, legacy);
  } finally {
    legacy.done();
  }
}

/**
 * Sends one request upstream, as `who`'s call, with the caller's progress token, cancel and `_meta`. The cancel is
 * the request's own signal (2026-07-28: the client closed the stream) or a 2025-era
 * `notifications/cancelled` naming its id (mcp/cancels.ts).
 */
async function forward(
  upstream: Upstream,
  method: string,
  params: Record<string, unknown> | undefined,
  ctx: ServerContext,
  by: { cancels: LegacyCancels; who: DownstreamClient; era: Era; asTask?: boolean },
  tracked?: ReturnType<LegacyCancels['track']>,
) {
  const { cancels, who } = by;
  const { _meta: _dropped, ...rest } = params ?? {};
  const { progressToken, ...meta } = (ctx.mcpReq._meta ?? {}) as Record<string, unknown>;
  const sent = { ...rest, ...(Object.keys(meta).length > 0 && { _meta: meta }) };
  const legacy = tracked ?? cancels.track(ctx.mcpReq.id, cancelScope(who.keyName, who.session));
  const options: RequestOptions = { signal: AbortSignal.any([ctx.mcpReq.signal, legacy.signal]) };
  // What cancels the call, as against a disconnect (a 2025 client's retry may join its asks).
  // None for a call answered with the gateway's task: it outlives the request, and only its
  // tasks/cancel (its own signal) ends it, so a stopped wait there is always a cancel.
  const cancelled = by.asTask ? undefined : by.era === 'legacy' ? legacy.signal : ctx.mcpReq.signal;
  // The last progress must reach the client before the result does: each is awaited before it.
  const relayed: Promise<void>[] = [];
  if (progressToken !== undefined)
    options.onprogress = (p) => {
      const n = { method: 'notifications/progress', params: { ...p, progressToken } };
      relayed.push(ctx.mcpReq.notify(n as Notification).catch(() => undefined));
    };
  try {
    // Sent as this client's call: an elicitation it causes names the client (callers.ts).
    const result = await guarded(upstream, () =>
      upstream.callers.run(
        who.keyName,
        () => upstream.request(method, params === undefined ? undefined : sent, options, by.asTask),
        { method, params: rest, cancelled },
      ),
    );
    await Promise.all(relayed);
    return result;
  } finally {
    if (!tracked) legacy.done();
  }
}

/** Runs `fn`; the gateway's own failures become MCP errors naming the upstream. */
async function guarded<T>(upstream: Upstream, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ProtocolError) throw err;
    if (err instanceof UpstreamDown)
      throw new ProtocolError(ProtocolErrorCode.InternalError, err.message);
    if (err instanceof SdkError)
      throw new ProtocolError(
        ProtocolErrorCode.InternalError,
        `upstream MCP server "${upstream.name}": ${err.message}`,
      );
    throw err;
  }
}
