/**
 * The official Tasks requester (`@modelcontextprotocol/ext-tasks`) on the official SDK client,
 * against a relay's /mcp on 2026-07-28. The SDK client (2.4) rejects a `resultType: "task"` result,
 * so ext-tasks sends tools/call and tasks/* through a host-owned `rawDispatch` (its documented
 * setup for a 2026-07-28 Tasks server): here one Streamable HTTP POST per request, with the
 * revision's standard headers, reading the JSON or SSE answer.
 */
import type { Client } from '@modelcontextprotocol/client';
import {
  createTaskSessionFromClient,
  type RawClientDispatch,
  type TaskEnabledSession,
} from '@modelcontextprotocol/ext-tasks/client';
import { connectMcp } from './mcp-client.ts';

const REVISION = '2026-07-28';
const CLIENT_INFO = { name: 'tasks-agent', version: '1.0.0' };

/** What the relay answered one JSON-RPC request with (from a JSON body or an SSE stream). */
async function answerOf(res: Response, id: number): Promise<Record<string, any>> {
  const text = await res.text();
  if (!(res.headers.get('content-type') ?? '').includes('text/event-stream'))
    return JSON.parse(text);
  for (const line of text.split('\n')) {
    if (!line.startsWith('data:')) continue;
    const m = JSON.parse(line.slice(5));
    if (m.id === id) return m;
  }
  throw new Error(`no answer to request ${id} in the stream: ${text.slice(0, 300)}`);
}

/** A rawDispatch that POSTs each request to `url()` (a function: the relay may move on restart). */
export function httpDispatch(
  url: () => string,
  seen: Array<Record<string, any>> = [],
  key?: string,
) {
  let n = 0;
  const dispatch: RawClientDispatch = async (request, options) => {
    const id = ++n;
    const body: Record<string, any> = { ...(request as Record<string, any>), jsonrpc: '2.0', id };
    const params = (body.params ?? {}) as Record<string, unknown>;
    const name = body.method === 'tools/call' ? params.name : params.taskId;
    const res = await fetch(url(), {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': REVISION,
        'mcp-method': String(body.method),
        ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
        ...(key ? { authorization: `Bearer ${key}` } : {}),
      },
      body: JSON.stringify(body),
      ...(options?.signal ? { signal: options.signal } : {}),
    });
    const answer = await answerOf(res, id);
    seen.push({ method: body.method, ...answer });
    return answer.error
      ? { kind: 'error', error: answer.error }
      : { kind: 'result', result: answer.result };
  };
  return dispatch;
}

/** A connected SDK client and its Tasks session; `seen` holds every raw answer (to check the wire). */
export async function connectTasks(url: () => string, endpointId = 'relay', key?: string) {
  const client: Client = await connectMcp(url(), {
    name: CLIENT_INFO.name,
    ...(key ? { key } : {}),
  });
  const seen: Array<Record<string, any>> = [];
  const session: TaskEnabledSession = createTaskSessionFromClient(client, {
    endpointId,
    rawDispatch: httpDispatch(url, seen, key),
    v2RequestFraming: {
      protocolVersion: REVISION,
      clientInfo: CLIENT_INFO,
      clientCapabilities: {},
    },
  });
  return {
    client,
    session,
    seen,
    async close() {
      await session.close().catch(() => undefined);
      await client.close().catch(() => undefined);
    },
  };
}
