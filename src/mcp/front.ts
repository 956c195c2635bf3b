/**
 * The MCP server of the relay: a web-standard handler (the SDK's createMcpHandler, one fresh
 * McpServer per HTTP request, no session state) so any replica serves any request, both protocol
 * eras (2025-06-18 / 2025-11-25 statelessly, 2026-07-28 natively). Mounted at /mcp by
 * server/mcp-routes.ts; the stdio bridge (mcp/stdio.ts) forwards to it.
 */
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import type { HitlService } from '../hitl-service/index.ts';
import { LegacyCancels } from './cancels.ts';
import { leanCall, leanPlan } from './lean-call.ts';
import { sessionOf, withSession } from './legacy-session.ts';
import { readMcpBody } from './request-body.ts';
import { registerAskResources } from './resources.ts';
import { TaskListens, taskListenOf } from './task-listen.ts';
import { TASKS_EXTENSION, TaskCalls } from './tasks.ts';
import { type IntakeGate, type McpCall, type McpToolDeps, registerTools } from './tools.ts';
import { AskWaits } from './waits.ts';

/** The name and version the server gives clients. */
export const MCP_SERVER_INFO = { name: 'hitl-relay', version: '1.0.0' } as const;

/** What the server tells a model about itself (initialize / server/discover instructions). */
const INSTRUCTIONS =
  'Ask a person in their chat and wait for a typed answer. Pick the ask_* tool that fits the question; each call posts a card where the person works and ends with their answer. If your call ends early, get_answer reads it by ask_id.';

/** The relay's MCP server. */
export interface McpFront {
  /**
   * Serves one HTTP request at /mcp; `origin` is the relay's URL as the client reached it, `admit`
   * the intake rate limit of its API key (asked once per ask a call would create).
   */
  fetch(
    request: Request,
    o: { origin: string; defaultTarget?: string; admit?: IntakeGate },
  ): Promise<Response>;
  /** The open waits (the benchmark and tests count their store reads). */
  waits: AskWaits;
  /** The `tools/call`s the lean path served (mcp/lean-call.ts) since start. */
  leanCalls: number;
  /** Ends open calls without withdrawing their asks (the relay stops). */
  close(): Promise<void>;
}

/** What the relay knows of a request's connection (the API key's default target and rate limit). */
type ConnectionFacts = {
  origin: string;
  defaultTarget?: string | undefined;
  admit?: IntakeGate | undefined;
  /** A 2025 client's session (legacy-session.ts): its cancels are matched within it. */
  cancelScope?: string | undefined;
};

/** The server instance of one request: the tools, resources and (2026-07-28) the tasks. */
function serverFor(call: McpCall): McpServer {
  // The Tasks extension exists on 2026-07-28 only (2025-11-25's experimental tasks are not served).
  const tasks = call.era === 'modern' ? new TaskCalls(call) : undefined;
  if (tasks) call.tasks = tasks;
  const extensions = tasks ? { extensions: { [TASKS_EXTENSION]: {} } } : {};
  const server = new McpServer(MCP_SERVER_INFO, {
    capabilities: { tools: {}, resources: {}, ...extensions },
    instructions: INSTRUCTIONS,
  });
  if (call.era === 'legacy')
    server.server.setNotificationHandler('notifications/cancelled', (n) => {
      const { requestId, reason } = n.params;
      if (requestId !== undefined)
        call.cancels.cancel(requestId, reason ?? 'cancelled by the client', call.cancelScope);
    });
  registerTools(server, call);
  tasks?.install(server);
  registerAskResources(server, call);
  return server;
}

/** The call of one request: the front's shared parts and the connection's facts. */
function callFor(
  shared: Pick<McpCall, 'relay' | 'asks' | 'waits' | 'cancels' | 'closing'>,
  at: ConnectionFacts | undefined,
  era: McpCall['era'],
): McpCall {
  return {
    ...shared,
    origin: at?.origin ?? '',
    defaultTarget: at?.defaultTarget,
    era,
    ...(at?.admit ? { admit: at.admit } : {}),
    ...(at?.cancelScope ? { cancelScope: at.cancelScope } : {}),
  };
}

/** What the relay knows of a request's connection, from what its route said. */
const connectionOf = (
  relay: McpToolDeps,
  o: { origin: string; defaultTarget?: string; admit?: IntakeGate },
): ConnectionFacts => ({
  origin: relay.config.publicUrl ?? o.origin,
  defaultTarget: o.defaultTarget,
  admit: o.admit,
});

/** The SDK's path; a 2025 client's session scopes its cancels (two clients may share a request id). */
async function viaSdk(
  handler: ReturnType<typeof createMcpHandler>,
  read: Exclude<Awaited<ReturnType<typeof readMcpBody>>, Response>,
  extra: ConnectionFacts,
): Promise<Response> {
  const session = sessionOf(read.request.headers);
  const facts = session ? { ...extra, cancelScope: session } : extra;
  // The relay checked the API key in front (server/app.ts); this only names the connection.
  const response = await handler.fetch(read.request, {
    authInfo: { token: '', clientId: 'relay-key', scopes: [], extra: facts },
    ...(read.parsedBody !== undefined ? { parsedBody: read.parsedBody } : {}),
  });
  return withSession(response, read.parsedBody);
}

/** Creates the MCP server over the asks service. */
export function createMcpFront(relay: McpToolDeps, asks: HitlService): McpFront {
  const waits = new AskWaits(relay.cases.events, relay.store);
  let closing = false;
  const cancels = new LegacyCancels();
  const leanWaits = new Set<AbortController>();
  const listens = new TaskListens(relay.cases.events, MCP_SERVER_INFO);
  const shared = { relay, asks, waits, cancels, closing: () => closing };
  const callOf = (at: ConnectionFacts | undefined, era: McpCall['era']) => callFor(shared, at, era);
  const handler = createMcpHandler(
    // The connection's own facts ride in authInfo.extra (the SDK hands it to the factory as is).
    ({ authInfo, era }) =>
      serverFor(
        callOf(
          authInfo?.extra as ConnectionFacts | undefined,
          era === 'legacy' ? 'legacy' : 'modern',
        ),
      ),
    {
      onerror: (err) => relay.log.debug({ err: err.message }, 'mcp: request refused'),
    },
  );
  const front: McpFront = {
    waits,
    leanCalls: 0,
    async fetch(request, o) {
      const read = await readMcpBody(request);
      if (read instanceof Response) return read;
      const extra = connectionOf(relay, o);
      // Task status pushes are served here: the SDK's listen knows no tasks (mcp/task-listen.ts).
      const listen = taskListenOf(read.parsedBody);
      if (listen instanceof Response) return listen;
      if (listen) return listens.serve(listen, callOf(extra, 'modern'), request.signal);
      const plan = leanPlan(read.parsedBody, read.request.headers);
      if (plan && !closing) {
        const served = await leanCall(callOf(extra, 'modern'), plan, {
          serverInfo: MCP_SERVER_INFO,
          signal: request.signal,
          open: leanWaits,
          taken: () => void front.leanCalls++,
        });
        if (served) return served;
      }
      return viaSdk(handler, read, extra);
    },
    async close() {
      closing = true;
      for (const ended of leanWaits) ended.abort();
      listens.close();
      await handler.close();
      waits.close();
    },
  };
  return front;
}
