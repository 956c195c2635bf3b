/**
 * The lean path of the hot `tools/call`: an ask tool called by a 2026-07-28 client. The SDK's
 * createMcpHandler needs a fresh McpServer per request (eleven tools registered, the Tasks methods,
 * the resources) and runs its whole ladder around the one call; here the call's own work runs as
 * it does under the SDK (the tool's zod input schema through `~standard.validate`, createToolAsk,
 * taskOf or waitForPerson) and the answer is written as the SDK writes it: `{ result, jsonrpc, id }`,
 * the result with `resultType` and the server's `serverInfo` in `_meta`. A client that declared the
 * Tasks extension gets its task (status 200, application/json); one that did not waits for the
 * person (mcp/lean-wait.ts: an SSE stream with its progress token, else the JSON result at the end).
 *
 * Taken only when every condition is known before anything is done (`leanPlan`), else the SDK path
 * as always: a JSON-RPC request (not a batch) whose params hold only name, arguments and `_meta`;
 * the tool one of the ask tools; `_meta` the envelope (protocol version 2026-07-28, a client info
 * of name and version strings, capabilities empty or of only `extensions`, every extension's
 * settings an object) and, without the Tasks extension only, a progress token (a string or an
 * integer); the SEP-2243 headers agreeing with the body; an Accept naming both application/json
 * and text/event-stream; and arguments the tool's schema accepts (a refused argument takes the SDK
 * path, which words the error). test/mcp/mcp-lean.test.ts compares both paths' answers.
 */
import { PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';
import type { KindTool } from './kinds.ts';
import { type LeanServing, leanWait, thrown } from './lean-wait.ts';
import { TASKS_EXTENSION, taskOf } from './tasks.ts';
import type { McpCall } from './tools.ts';
import { createToolAsk, kindToolOf } from './tools.ts';

const MODERN = '2026-07-28';
const RESERVED = 'io.modelcontextprotocol/';
const CLIENT_INFO = `${RESERVED}clientInfo`;
const CLIENT_CAPABILITIES = `${RESERVED}clientCapabilities`;
const SERVER_INFO = `${RESERVED}serverInfo`;
const ENVELOPE = new Set([PROTOCOL_VERSION_META_KEY, CLIENT_INFO, CLIENT_CAPABILITIES]);
const PARAMS = new Set(['name', 'arguments', '_meta']);
const MESSAGE = new Set(['jsonrpc', 'id', 'method', 'params']);

type Msg = Record<string, unknown>;

/** A call the lean path serves: its id, tool and raw arguments. */
export interface LeanToolCall {
  id: string | number;
  tool: KindTool;
  input: (value: unknown) => unknown;
  args: unknown;
  /** The client declared the Tasks extension: the answer is its task. */
  tasks: boolean;
  /** Without Tasks: the client's progress token, if it gave one (progress on an SSE stream). */
  progressToken: string | number | undefined;
}

const isObject = (v: unknown): v is Msg => typeof v === 'object' && v !== null && !Array.isArray(v);
const only = (o: Msg, keys: Set<string>) => Object.keys(o).every((k) => keys.has(k));

/** The call when the lean path may take it (see above); undefined: the SDK path. */
export function leanPlan(body: unknown, headers: Headers): LeanToolCall | undefined {
  if (!isObject(body) || !only(body, MESSAGE) || body.jsonrpc !== '2.0') return undefined;
  if (body.method !== 'tools/call') return undefined;
  const { id, params } = body;
  if (typeof id !== 'string' && !(typeof id === 'number' && Number.isInteger(id))) return undefined;
  if (!isObject(params) || !only(params, PARAMS)) return undefined;
  const { name, arguments: args, _meta: meta } = params;
  const found = typeof name === 'string' ? kindToolOf(name) : undefined;
  if (!found || (args !== undefined && !isObject(args))) return undefined;
  if (!isObject(meta)) return undefined;
  const { progressToken, ...envelope } = meta;
  const tasks = envelopeOf(envelope);
  if (tasks === undefined || !headersAgree(headers, found.tool.name)) return undefined;
  if (progressToken !== undefined && (tasks || !isToken(progressToken))) return undefined;
  return { id, tool: found.tool, input: found.input, args, tasks, progressToken };
}

const isToken = (t: unknown): t is string | number =>
  typeof t === 'string' || (typeof t === 'number' && Number.isSafeInteger(t));

/**
 * Whether a 2026-07-28 client's envelope, in the plainest shape the SDK accepts, declares the Tasks
 * extension; undefined when it is not that plain.
 */
function envelopeOf(meta: Msg): boolean | undefined {
  if (!only(meta, ENVELOPE) || meta[PROTOCOL_VERSION_META_KEY] !== MODERN) return undefined;
  const info = meta[CLIENT_INFO];
  if (!isObject(info) || !only(info, new Set(['name', 'version']))) return undefined;
  if (typeof info.name !== 'string' || typeof info.version !== 'string') return undefined;
  const caps = meta[CLIENT_CAPABILITIES];
  if (!isObject(caps) || !only(caps, new Set(['extensions']))) return undefined;
  if (caps.extensions === undefined) return false;
  const extensions = caps.extensions;
  if (!isObject(extensions) || !Object.values(extensions).every(isObject)) return undefined;
  return Object.hasOwn(extensions, TASKS_EXTENSION);
}

function headersAgree(headers: Headers, name: string): boolean {
  if (headers.get('mcp-protocol-version') !== MODERN) return false;
  if (headers.get('mcp-method') !== 'tools/call' || headers.get('mcp-name') !== name) return false;
  const accepts = (headers.get('accept') ?? '')
    .split(',')
    .map((t) => t.split(';')[0]!.trim().toLowerCase());
  return accepts.includes('application/json') && accepts.includes('text/event-stream');
}

/**
 * Serves the planned call; undefined when its arguments are refused (nothing was done: the SDK
 * path answers it with its own wording).
 */
export async function leanCall(
  call: McpCall,
  plan: LeanToolCall,
  o: LeanServing,
): Promise<Response | undefined> {
  const checked = (await plan.input(plan.args ?? {})) as { value?: unknown; issues?: unknown[] };
  if (checked.issues && checked.issues.length > 0) return undefined;
  o.taken();
  const answer = (result: Msg) => ({
    result: sdkShape(result, o.serverInfo),
    jsonrpc: '2.0',
    id: plan.id,
  });
  let made: Awaited<ReturnType<typeof createToolAsk>>;
  try {
    made = await createToolAsk(call, plan.tool, checked.value as never);
  } catch (err) {
    return Response.json(answer(thrown(err)));
  }
  if ('refusal' in made) return Response.json(answer(made.refusal));
  if (plan.tasks)
    return Response.json(answer({ content: [], resultType: 'task', ...taskOf(call, made.case) }));
  return leanWait(call, made.case, plan, o, answer);
}

/**
 * A tool result as the SDK writes it: its result schema's keys first (_meta, content,
 * structuredContent, isError), resultType (complete unless given), the server's info in `_meta`.
 */
function sdkShape(result: Msg, serverInfo: { name: string; version: string }): Msg {
  const { _meta, content, structuredContent, isError, ...rest } = result;
  const meta = isObject(_meta) ? _meta : {};
  return {
    ...(_meta !== undefined ? { _meta: undefined } : {}),
    content,
    ...(structuredContent !== undefined ? { structuredContent } : {}),
    ...(isError !== undefined ? { isError } : {}),
    ...rest,
    ...(rest.resultType === undefined ? { resultType: 'complete' } : {}),
    _meta: { ...meta, [SERVER_INFO]: serverInfo },
  };
}
