/**
 * The tools of the MCP server: one per interaction kind (the call creates the ask through the asks
 * service, exactly as POST /v1/asks does, then waits for the person with progress notifications),
 * and get_answer (an ask by id, for a client that disconnected). A call the client cancels withdraws
 * its ask; a relay that shuts down leaves it open (the client reads it later with get_answer).
 */
import type { McpServer, ServerContext } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { askContentOf, kindOf } from '../asks/content.ts';
import { type AskDeps, createAsk } from '../asks-service/asks.ts';
import { withdrawAsk } from '../asks-service/withdraw.ts';
import type { CaseRepository } from '../cases/repository.ts';
import { ValidationError, type ValidationIssue } from '../errors.ts';
import type { HitlService } from '../hitl-service/index.ts';
import type { StoredCase } from '../store/types.ts';
import {
  argumentIssue,
  askBodyOf,
  commonArguments,
  NO_TARGET,
  refusalText,
  type ToolArguments,
} from './arguments.ts';
import type { LegacyCancels } from './cancels.ts';
import { jsonSchemaOnce } from './json-schema-once.ts';
import { KIND_TOOLS, type KindTool } from './kinds.ts';
import { anyOutcomeSchema, outcomeOf, outcomeSchema, outcomeText } from './outcome.ts';
import type { AskWaits } from './waits.ts';

/** What the tools use of the relay. */
export interface McpToolDeps extends AskDeps {
  cases: AskDeps['cases'] & Pick<CaseRepository, 'events'>;
}

/** One request's view: the relay, its asks service and waits, and what the connection configured. */
export interface McpCall {
  relay: McpToolDeps;
  asks: HitlService;
  waits: AskWaits;
  /** The relay's URL as this client reached it (PUBLIC_URL when set). */
  origin: string;
  /** The target used when a call names none (?target= on the MCP URL, --target for stdio). */
  defaultTarget: string | undefined;
  /** True once the relay shuts down: open waits end without withdrawing their asks. */
  closing: () => boolean;
  /** Cancels of 2025-era calls, which reach another server instance (mcp/cancels.ts). */
  cancels: LegacyCancels;
  /** Where this 2025 client's cancels are matched: its session (mcp/legacy-session.ts). */
  cancelScope?: string | undefined;
  /**
   * The request's protocol era. A 2026-07-28 client cancels by closing the call's stream; a 2025
   * client sends notifications/cancelled, so there a closed connection is only a disconnect and
   * leaves the ask open for get_answer.
   */
  era: 'legacy' | 'modern';
  /** On 2026-07-28: turns a call into a task when the client declared the extension (mcp/tasks.ts). */
  tasks?: TaskStarts;
  /** Admits one more ask of this connection's API key (the intake rate limit), or says when. */
  admit?: IntakeGate;
}

/** Where a call of an ask tool may become a task instead of waiting (mcp/tasks.ts). */
export interface TaskStarts {
  /** True when this call becomes a task for `c` (its result is then the task, not the answer). */
  take(ctx: ServerContext, c: StoredCase): boolean;
}

/** The intake rate limit of a connection: ok, or how long until the next ask is admitted. */
export type IntakeGate = () => { ok: true } | { ok: false; retryAfterMs: number };

/** What the cards say when the agent withdraws its ask (a cancelled call or task). */
export const WITHDRAWN = 'the agent cancelled the request';

const refused = (issues: ValidationIssue[]) => ({
  isError: true,
  content: [{ type: 'text' as const, text: refusalText(issues) }],
});

/** Creates the ask of a call: its stored case, or the refusal to answer with (nothing stored). */
export async function createToolAsk(
  call: McpCall,
  tool: KindTool,
  args: ToolArguments,
): Promise<{ case: StoredCase } | { refusal: ReturnType<typeof refused> }> {
  const body = askBodyOf(tool, args, call.defaultTarget);
  if (body.target === undefined) return { refusal: refused([NO_TARGET]) };
  const admitted = call.admit?.() ?? { ok: true };
  if (!admitted.ok) return { refusal: rateLimited(admitted.retryAfterMs) };
  try {
    const created = await createAsk(call.relay, call.asks, body, call.origin);
    const stored = await call.relay.store.getCase(created.relay.id);
    if (!stored) throw new Error('the ask was created but cannot be read back');
    return { case: stored };
  } catch (err) {
    if (err instanceof ValidationError) return { refusal: refused(err.details.map(argumentIssue)) };
    throw err;
  }
}

/** The intake rate limit's refusal: a tool error the model can act on (nothing was stored). */
function rateLimited(retryAfterMs: number) {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return {
    isError: true,
    content: [
      {
        type: 'text' as const,
        text: `The ask was not sent (nothing was stored): this API key sent more asks than the relay's intake rate limit allows (INTAKE_RATE_LIMIT_PER_MINUTE). Retry after ${seconds} s.`,
      },
    ],
    _meta: { 'hitl-relay/retry_after_seconds': seconds },
  };
}

/** The outcome of an ask as it stands (the structuredContent of its tool result). */
export const toolOutcome = (call: Pick<McpCall, 'origin'>, c: StoredCase) =>
  outcomeOf(c, kindOfCase(c), call.origin);

/** The tool result of an ask as it stands. */
export function toolResult(call: McpCall, c: StoredCase) {
  const outcome = toolOutcome(call, c);
  if (c.doc.delivery_failed && !outcome.final)
    return {
      isError: true,
      content: [
        {
          type: 'text' as const,
          text: `Nobody could be shown ask ${c.id}: ${c.doc.delivery_failed.reason}. Check the target.`,
        },
      ],
    };
  return {
    content: [{ type: 'text' as const, text: outcomeText(outcome) }],
    structuredContent: outcome,
  };
}

const kindOfCase = (c: StoredCase) => {
  const content = askContentOf(c.doc.hitl.context);
  return content ? kindOf(content) : 'unknown';
};

/**
 * What a waiting call needs of its request, whichever path serves it (the SDK's context, or the
 * lean path's own stream, mcp/lean-call.ts): its id, the signal that cancels it, the progress
 * token the client gave (if any) and how to send it a notification.
 */
export interface CallWire {
  id: string | number;
  signal: AbortSignal;
  progressToken: string | number | undefined;
  notify(n: { method: 'notifications/progress'; params: ProgressParams }): void;
}

type ProgressParams = { progressToken: string | number; progress: number; message: string };

/** The wire of a call the SDK serves. */
export function wireOf(ctx: ServerContext): CallWire {
  return {
    id: ctx.mcpReq.id,
    signal: ctx.mcpReq.signal,
    progressToken: ctx.mcpReq._meta?.progressToken,
    notify: (n) => void ctx.mcpReq.notify(n).catch(() => undefined),
  };
}

/**
 * Progress notifications for one call, when the client asked for them (a progressToken): a line
 * per card posted (those posted while the ask was created are read once), reminder and vote.
 */
export async function progressOf(call: McpCall, wire: CallWire, c: StoredCase) {
  const token = wire.progressToken;
  const said = new Set<string>();
  let n = 0;
  const send = (message: string) => {
    if (token === undefined || (message.startsWith('posted to ') && said.has(message))) return;
    said.add(message);
    n++;
    wire.notify({
      method: 'notifications/progress',
      params: { progressToken: token, progress: n, message },
    });
  };
  if (token === undefined) return send;
  send(`asked in ${c.target} (ask ${c.id}); waiting for a person`);
  for (const m of await call.relay.store.listMessages(c.id))
    if (m.state === 'posted') send(`posted to ${m.target}`);
  return send;
}

/** Waits for the person, with progress; withdraws the ask when the client cancels the call. */
export async function waitForPerson(call: McpCall, c: StoredCase, wire: CallWire) {
  const progress = await progressOf(call, wire, c);
  const legacy = call.cancels.track(wire.id, call.cancelScope);
  const signal = AbortSignal.any([wire.signal, legacy.signal]);
  try {
    const end = await call.waits.until(c.id, c, signal, progress);
    const cancelled = call.era === 'legacy' ? legacy.signal.aborted : wire.signal.aborted;
    if (cancelled && !call.closing() && end && !outcomeOf(end, '', '').final)
      await withdrawAsk(call.relay, call.asks, end, WITHDRAWN).catch((err: Error) =>
        call.relay.log.warn({ id: c.id, err: err.message }, 'mcp: cannot withdraw a cancelled ask'),
      );
    return toolResult(call, end ?? c);
  } finally {
    legacy.done();
  }
}

const ANNOTATIONS = {
  // Asking posts a card in a chat and waits: it changes the world, never destroys anything, and a
  // second call is a second question.
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: true,
};

/**
 * The tools' schemas, built once for the process: every HTTP request gets a fresh server (no
 * session state), and building eleven tools' zod schemas per request cost ~16 ms of CPU on the
 * benchmark machine against ~0.5 ms for registering prebuilt ones (bench/mcp.ts).
 */
const SCHEMAS = new Map(
  KIND_TOOLS.map((t) => [
    t.name,
    {
      input: jsonSchemaOnce(z.strictObject({ ...t.content, ...commonArguments })),
      output: jsonSchemaOnce(outcomeSchema(t)),
    },
  ]),
);
const GET_ANSWER_INPUT = jsonSchemaOnce(
  z.strictObject({
    ask_id: z.string().min(1).max(100),
    wait_seconds: z.number().int().min(0).max(3600).optional().describe('Default 0'),
  }),
);
const ANY_OUTCOME = jsonSchemaOnce(anyOutcomeSchema);

/** An ask tool by name and its input check as the SDK runs it (mcp/lean-call.ts). */
export function kindToolOf(
  name: string,
):
  | { tool: KindTool; input: (value: unknown) => ReturnType<z.ZodType['~standard']['validate']> }
  | undefined {
  const tool = KIND_TOOLS.find((t) => t.name === name);
  const schema = SCHEMAS.get(name)?.input;
  if (!tool || !schema) return undefined;
  return { tool, input: (value: unknown) => schema['~standard'].validate(value) };
}

/** Registers the ten ask tools and get_answer on `server`. */
export function registerTools(server: McpServer, call: McpCall): void {
  for (const tool of KIND_TOOLS)
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: SCHEMAS.get(tool.name)!.input,
        outputSchema: SCHEMAS.get(tool.name)!.output,
        annotations: ANNOTATIONS,
      },
      async (args: ToolArguments, ctx: ServerContext) => {
        const made = await createToolAsk(call, tool, args);
        if ('refusal' in made) return made.refusal;
        // A task-declaring client gets a task: mcp/tasks.ts answers with it instead of this
        // result, which is never sent, so it is one the SDK neither checks nor projects.
        if (call.tasks?.take(ctx, made.case)) return { content: [], isError: true };
        return waitForPerson(call, made.case, wireOf(ctx));
      },
    );
  registerGetAnswer(server, call);
}

function registerGetAnswer(server: McpServer, call: McpCall): void {
  server.registerTool(
    'get_answer',
    {
      title: 'Read the answer to an ask',
      description:
        'Read an ask you made earlier by its ask_id: its status and, once a person answered, the typed answer. With wait_seconds, waits up to that long for the answer.',
      inputSchema: GET_ANSWER_INPUT,
      outputSchema: ANY_OUTCOME,
      annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    },
    async ({ ask_id, wait_seconds }, ctx: ServerContext) => {
      const found = await call.relay.store.getCase(ask_id);
      if (!found || !askContentOf(found.doc.hitl.context))
        return refused([{ path: 'ask_id', message: `no ask with id "${ask_id.slice(0, 100)}"` }]);
      if (!wait_seconds) return toolResult(call, found);
      const timer = AbortSignal.timeout(wait_seconds * 1000);
      const signal = AbortSignal.any([ctx.mcpReq.signal, timer]);
      const end = await call.waits.until(
        found.id,
        found,
        signal,
        await progressOf(call, wireOf(ctx), found),
      );
      return toolResult(call, end ?? found);
    },
  );
}
