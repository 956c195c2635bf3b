/**
 * The lean path of the hot `tools/call`: an ask tool called by a 2026-07-28 client that declared
 * the Tasks extension, answered with its task once the ask is stored and its card posted. The SDK's
 * createMcpHandler needs a fresh McpServer per request (eleven tools registered, the Tasks methods,
 * the resources) and runs its whole ladder around the one call; here the call's own work runs as
 * it does under the SDK (the tool's zod input schema through `~standard.validate`, createToolAsk,
 * taskOf) and the answer is written as the SDK writes it: `{ result, jsonrpc, id }`, the result
 * with `resultType` and the server's `serverInfo` in `_meta`, status 200, application/json.
 *
 * Taken only when every condition is known before anything is done (`leanPlan`), else the SDK path
 * as always: a JSON-RPC request (not a batch) whose params hold only name, arguments and `_meta`;
 * the tool one of the ask tools; `_meta` the envelope alone (protocol version 2026-07-28, a client
 * info of name and version strings, capabilities of only `extensions`, which holds the Tasks
 * extension, every extension's settings an object), no progress token; the SEP-2243 headers
 * agreeing with the body; an Accept naming both application/json and text/event-stream; and
 * arguments the tool's schema accepts (a refused argument takes the SDK path, which words the
 * error). test/mcp/mcp-lean.test.ts compares both paths' answers.
 */
import { PROTOCOL_VERSION_META_KEY } from '@modelcontextprotocol/server';
import type { KindTool } from './kinds.ts';
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
  if (!isObject(meta) || !only(meta, ENVELOPE) || !envelopeIsPlain(meta)) return undefined;
  if (!headersAgree(headers, found.tool.name)) return undefined;
  return { id, tool: found.tool, input: found.input, args };
}

/** The envelope of a Tasks-declaring 2026-07-28 client, in the plainest shape the SDK accepts. */
function envelopeIsPlain(meta: Msg): boolean {
  if (meta[PROTOCOL_VERSION_META_KEY] !== MODERN) return false;
  const info = meta[CLIENT_INFO];
  if (!isObject(info) || !only(info, new Set(['name', 'version']))) return false;
  if (typeof info.name !== 'string' || typeof info.version !== 'string') return false;
  const caps = meta[CLIENT_CAPABILITIES];
  if (!isObject(caps) || !only(caps, new Set(['extensions'])) || !isObject(caps.extensions))
    return false;
  const extensions = caps.extensions;
  return Object.hasOwn(extensions, TASKS_EXTENSION) && Object.values(extensions).every(isObject);
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
  serverInfo: { name: string; version: string },
): Promise<Response | undefined> {
  const checked = (await plan.input(plan.args ?? {})) as { value?: unknown; issues?: unknown[] };
  if (checked.issues && checked.issues.length > 0) return undefined;
  let result: Msg;
  try {
    const made = await createToolAsk(call, plan.tool, checked.value as never);
    if ('refusal' in made) {
      // In the SDK's key order (its result schema's: _meta, content, isError).
      const { _meta, content, ...rest } = made.refusal as Msg;
      result = { ...(_meta ? { _meta } : {}), content, ...rest, resultType: 'complete' };
    } else result = { content: [], resultType: 'task', ...taskOf(call, made.case) };
  } catch (err) {
    // As the SDK's McpServer answers a tool handler that throws.
    const text = err instanceof Error ? err.message : String(err);
    result = { content: [{ type: 'text', text }], isError: true, resultType: 'complete' };
  }
  const meta = isObject(result._meta) ? result._meta : {};
  const out = { ...result, _meta: { ...meta, [SERVER_INFO]: serverInfo } };
  return Response.json({ result: out, jsonrpc: '2.0', id: plan.id });
}
