/**
 * The lean pass-through of a `tools/call` the tool gate allows: the downstream request's JSON is
 * sent to the upstream as the SDK client would send it (its `_meta` envelope from the client
 * itself, `Client._outboundMetaEnvelope()`, the caller's other `_meta` keys after it; the
 * SEP-2243 headers `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`; the configured headers and
 * URL policy in `guardedFetch`), and the upstream's answer goes back under the downstream id, as
 * the SDK's downstream Server writes it (`resultType`, its `serverInfo` in `_meta`). No SDK Server
 * per request, no zod ladder, no SDK client request path: the gateway's CPU per call.
 *
 * Taken only when that changes nothing, decided before anything is sent (`leanPlan`): a 2026-07-28
 * downstream request whose headers agree with its body, no progress token, no reserved `_meta`
 * key but the envelope's, no Tasks (either side), a connected 2026-07-28 HTTP upstream, the tool
 * known with no `x-mcp-header` in its schema, and the gate's rule `allow` known synchronously.
 * Once sent it is never sent again, but for an `input_required` answer (the upstream did nothing
 * yet): that call is handed to the SDK path, which drives the rounds. An event-stream answer is
 * read here; every message but the call's own answer goes to the SDK client's transport
 * (`onmessage`), so server requests, elicitation and logging are served as on the SDK path.
 */
import type { Client } from '@modelcontextprotocol/client';
import { PROTOCOL_VERSION_META_KEY, type Tool } from '@modelcontextprotocol/server';
import type { Upstream } from './upstream.ts';
import type { PostAnswer } from './upstream-transport.ts';

/** The version whose wire the lean path writes. */
const MODERN = '2026-07-28';
const RESERVED = 'io.modelcontextprotocol/';
const ENVELOPE = new Set([
  PROTOCOL_VERSION_META_KEY,
  `${RESERVED}clientInfo`,
  `${RESERVED}clientCapabilities`,
]);
/** Tool names sent as `Mcp-Name` unencoded (anything else takes the SDK path). */
const PLAIN_NAME = /^[A-Za-z0-9_.\-/]{1,128}$/;

/** How often the lean path was taken, and how often a taken call went to the SDK path after all. */
export class LeanCounts {
  taken = 0;
  handedOver = 0;
}

type Msg = Record<string, unknown>;
type Call = { id: string | number; name: string; params: Msg; meta: Msg };

/** A request header by its lower-case name (web Headers' get, or node's IncomingMessage headers). */
export type HeaderOf = (name: string) => string | null | undefined;

/** A lean call's downstream answer: a 200 JSON-RPC response, its text. */
export interface LeanReply {
  text: string;
}

/** What a lean call needs: the upstream, its client, the tool gate's synchronous answer. */
export interface LeanPlan {
  call: Call;
  client: Client;
}

/** The call, when the lean path may take it (see above); undefined: the SDK path as always. */
export function leanPlan(
  upstream: Upstream,
  header: HeaderOf,
  body: unknown,
  allows: ((upstream: string, tool: Tool) => boolean) | undefined,
): LeanPlan | undefined {
  const call = callOf(body, header);
  const client = call && allows ? upstream.leanClient() : undefined;
  if (!call || !client || !allows) return undefined;
  const tool = upstream.knownTool(call.name);
  if (!tool || declaresHeaders(tool) || !allows(upstream.name, tool)) return undefined;
  return { call, client };
}

function callOf(body: unknown, header: HeaderOf): Call | undefined {
  if (!isObject(body) || body.jsonrpc !== '2.0' || body.method !== 'tools/call') return undefined;
  const { id, params } = body;
  if ((typeof id !== 'string' && typeof id !== 'number') || !isObject(params)) return undefined;
  const { name, arguments: args, _meta: meta } = params;
  if (typeof name !== 'string' || !PLAIN_NAME.test(name) || !isObject(meta)) return undefined;
  if (args !== undefined && !isObject(args)) return undefined;
  if (meta[PROTOCOL_VERSION_META_KEY] !== MODERN || 'progressToken' in meta) return undefined;
  for (const k of Object.keys(meta))
    if (k.startsWith(RESERVED) && !ENVELOPE.has(k)) return undefined;
  const caps = meta[`${RESERVED}clientCapabilities`];
  if (!isObject(caps) || (caps.extensions !== undefined && !isEmptyObject(caps.extensions)))
    return undefined;
  if (header('mcp-protocol-version') !== MODERN) return undefined;
  if (header('mcp-method') !== 'tools/call' || header('mcp-name') !== name) return undefined;
  if (!/application\/json/i.test(header('accept') ?? '')) return undefined;
  return { id, name, params, meta };
}

const declared = new WeakMap<Tool, boolean>();
/** Whether a tool's input schema declares `x-mcp-header` (the SDK adds `Mcp-Param-*` headers). */
function declaresHeaders(tool: Tool): boolean {
  let d = declared.get(tool);
  if (d === undefined) {
    d = JSON.stringify(tool.inputSchema ?? {}).includes('"x-mcp-header"');
    declared.set(tool, d);
  }
  return d;
}

/**
 * Sends the planned call; its downstream answer, or the upstream's answer to hand over when it
 * is `input_required`: the SDK path then drives the rounds, its first send answered with it
 * (Upstream.handOver), so the upstream sees no leg twice.
 */
export async function leanCall(
  upstream: Upstream,
  plan: LeanPlan,
  keyName: string | null,
  signal: AbortSignal,
): Promise<LeanReply | { handover: Msg }> {
  const { call, client } = plan;
  const sdk = client as unknown as SdkClientInternals;
  const { progressToken: _none, ...meta } = dropReserved(call.meta);
  const upId = `lean-${++sequence}`;
  const params = { ...call.params, _meta: { ...sdk._outboundMetaEnvelope(), ...meta } };
  const message = { method: 'tools/call', params, jsonrpc: '2.0', id: upId };
  const answer = await upstream.callers.run(keyName, () =>
    exchange(upstream, message, call.name, signal, sdk),
  );
  if ('error' in answer) return reply(call.id, { error: answer.error });
  const result = answer.result;
  if (isObject(result) && result.resultType === 'input_required') return { handover: answer };
  if (!isObject(result) || result.resultType !== 'complete')
    return reply(call.id, { error: internal(upstream, 'Invalid result for tools/call') });
  const version = client.getServerVersion();
  const info = { name: version?.name ?? upstream.name, version: version?.version ?? '0.0.0' };
  const out = { ...result, _meta: { [SERVER_INFO]: info, ...(result._meta as Msg | undefined) } };
  return reply(call.id, { result: out });
}

const SERVER_INFO = `${RESERVED}serverInfo`;
let sequence = 0;

/** What the lean path uses of the SDK client beyond its public API. */
interface SdkClientInternals {
  _outboundMetaEnvelope(): Msg | undefined;
  transport?: { onmessage?: (m: unknown) => void };
}

function dropReserved(meta: Msg): Msg {
  const out: Msg = {};
  for (const [k, v] of Object.entries(meta)) if (!ENVELOPE.has(k)) out[k] = v;
  return out;
}

/** One POST upstream; the JSON-RPC answer to `message` (an error object for a failed exchange). */
async function exchange(
  upstream: Upstream,
  message: Msg,
  name: string,
  signal: AbortSignal,
  sdk: SdkClientInternals,
): Promise<Msg> {
  const headers = {
    'mcp-protocol-version': MODERN,
    'mcp-method': 'tools/call',
    'mcp-name': name,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  let res: PostAnswer;
  try {
    res = await upstream.leanPost()(JSON.stringify(message), headers, signal);
  } catch (err) {
    return { error: internal(upstream, (err as Error).message) };
  }
  if (res.stream) return await fromStream(res.stream, message.id, sdk, upstream);
  const text = res.text ?? '';
  const parsed = parseJson(text);
  const ok = res.status >= 200 && res.status < 300;
  if (isObject(parsed) && parsed.id === message.id && (ok || res.status === 400))
    if ('result' in parsed || 'error' in parsed) return parsed;
  const why = ok ? 'unexpected answer' : `Error POSTing to endpoint: ${text}`;
  return { error: internal(upstream, why) };
}

/** Reads an event stream: its messages to the SDK client's transport, but the call's answer. */
async function fromStream(
  body: ReadableStream<Uint8Array>,
  id: unknown,
  sdk: SdkClientInternals,
  upstream: Upstream,
): Promise<Msg> {
  const decode = new TextDecoderStream() as unknown as ReadableWritablePair<string, Uint8Array>;
  const reader = body.pipeThrough(decode);
  let buffer = '';
  for await (const chunk of reader as unknown as AsyncIterable<string>) {
    buffer += chunk.replace(/\r\n?/g, '\n');
    let end = buffer.indexOf('\n\n');
    for (; end >= 0; end = buffer.indexOf('\n\n')) {
      const event = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = event
        .split('\n')
        .filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(l.startsWith('data: ') ? 6 : 5))
        .join('\n');
      const m = data ? parseJson(data) : undefined;
      if (!isObject(m)) continue;
      if (m.id === id && ('result' in m || 'error' in m)) {
        void reader.cancel().catch(() => undefined);
        return m;
      }
      sdk.transport?.onmessage?.(m);
    }
  }
  return { error: internal(upstream, 'the event stream ended without an answer') };
}

/** The gateway's own failure, as the SDK path words it (proxy.ts `guarded`). */
function internal(upstream: Upstream, why: string) {
  return { code: -32603, message: `upstream MCP server "${upstream.name}": ${why}` };
}

function reply(id: string | number, body: Msg): LeanReply {
  return { text: JSON.stringify({ ...body, jsonrpc: '2.0', id }) };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const isObject = (v: unknown): v is Msg => typeof v === 'object' && v !== null && !Array.isArray(v);
const isEmptyObject = (v: unknown) => isObject(v) && Object.keys(v).length === 0;
