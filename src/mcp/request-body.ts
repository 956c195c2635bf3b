/**
 * The body of a request to /mcp, read once before the SDK sees it. Without it the SDK's handler
 * clones the request (to keep a copy for its 2025-era leg) and reads the body through its web
 * stream, which makes @hono/node-server build a full web Request (a body stream, teed by the
 * clone) for every call: with the body handed over parsed (the SDK's `parsedBody`), the request
 * is never cloned nor its stream touched, and the body is read straight off the socket. Only a
 * POST of JSON with a Content-Length within the SDK's limit is read here (the relay's own body
 * limit is lower, server/app.ts); anything else goes to the SDK as it came, and a body that is not
 * JSON goes on as a fresh request with the same bytes, so every answer stays the SDK's own.
 */
import { DEFAULT_MAX_REQUEST_BODY_SIZE, isJsonContentType } from '@modelcontextprotocol/server';

/** The request to hand the SDK and, when it was read here, its parsed body. */
export interface McpRequestBody {
  request: Request;
  parsedBody?: unknown;
}

/** The SDK's answer to a body it could not read (a client that went away mid-body). */
const unreadable = () =>
  Response.json(
    {
      jsonrpc: '2.0',
      error: { code: -32700, message: 'Parse error: the request body could not be read' },
      id: null,
    },
    { status: 400 },
  );

/** Reads `request`'s JSON body when that is safe to do ahead of the SDK (see above). */
export async function readMcpBody(request: Request): Promise<McpRequestBody | Response> {
  if (request.method.toUpperCase() !== 'POST') return { request };
  const headers = request.headers;
  if (!isJsonContentType(headers.get('content-type'))) return { request };
  const length = headers.get('content-length');
  if (length === null || !(Number(length) <= DEFAULT_MAX_REQUEST_BODY_SIZE)) return { request };
  let text: string;
  try {
    text = await request.text();
  } catch {
    return unreadable();
  }
  if (text.length > 0)
    try {
      return { request, parsedBody: JSON.parse(text) };
    } catch {
      // Not JSON: the SDK answers it (legacy or not) from the same bytes.
    }
  const again = new Request(request.url, {
    method: request.method,
    headers,
    body: text,
    signal: request.signal,
  });
  return { request: again };
}
