/**
 * The tool gate: the proxy asks it, for every downstream `tools/call`, whether to send the call
 * upstream and with which arguments. `allow` sends as it came; `deny` refuses without asking;
 * `approve` holds the call as an ask of the relay (a case like any other: cards, history,
 * policies, receipts, /v1/asks) and waits for the person: approved, it sends exactly the approved
 * arguments, once; refused, it says who refused and how. A held call is durable: an identical
 * call from the same client joins the waiting decision (tool-gate-ledger.ts), across a restart too.
 */
import { argumentsSent, toolCallOf } from '../asks/tool-call.ts';
import { createAsk } from '../asks-service/asks.ts';
import { withdrawAsk } from '../asks-service/withdraw.ts';
import type { CaseRepository } from '../cases/repository.ts';
import { toolRulesSchema } from '../config/mcp-tool-rules.ts';
import { ValidationError } from '../errors.ts';
import type { HitlService } from '../hitl-service/index.ts';
import type { McpToolDeps } from '../mcp/tools.ts';
import { AskWaits, waitIsOver } from '../mcp/waits.ts';
import type { StoredCase } from '../store/types.ts';
import { heldAsk } from './tool-gate-ask.ts';
import {
  type GateUpstream,
  type GateUpstreamConfig,
  parseGateUpstreams,
  type ResolvedRule,
  ruleFor,
} from './tool-gate-config.ts';
import { argumentsDigest, callDigest, GateLedger } from './tool-gate-ledger.ts';
import {
  alreadySentMessage,
  cancelledMessage,
  deniedMessage,
  GATE_WITHDRAWN,
  noTargetMessage,
  refusalOf,
  stoppedMessage,
  unshownMessage,
} from './tool-gate-refusal.ts';

/** The upstream tool as tools/list described it (the SDK's Tool fits). */
export interface GateTool {
  name: string;
  inputSchema?: Record<string, unknown> | undefined;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean } | undefined;
}

/** One downstream tools/call. */
export interface GateInput {
  upstream: string;
  tool: GateTool;
  args: Record<string, unknown>;
  /** The downstream client's credential: its named API key, or null. */
  client: { keyName: string | null };
  /** Aborted when the downstream request goes away (cancelled, disconnected, relay stopping). */
  signal: AbortSignal;
  /**
   * Aborted when the client cancelled the call (2026-07-28: closed its stream; 2025:
   * notifications/cancelled): the ask is withdrawn unless another caller still waits on it. A
   * 2025 client that only disconnected leaves it open, so its retry joins the same decision.
   */
  cancelled?: AbortSignal | undefined;
  /** The relay's URL as this client reached it (the asks' links; PUBLIC_URL wins). */
  origin?: string | undefined;
}

/** What the proxy does with the call. */
export type GateDecision =
  | { kind: 'send'; args: Record<string, unknown> }
  | { kind: 'refuse'; message: string };

/** What the gate uses of the relay. */
export interface ToolGateDeps {
  relay: McpToolDeps & { cases: McpToolDeps['cases'] & Pick<CaseRepository, 'history'> };
  asks: HitlService;
  /** The relay's URL when a call names none (PUBLIC_URL wins inside createAsk): the asks' links. */
  origin: () => string;
}

/** Decides one call (what the proxy calls for every downstream tools/call). */
export type GateToolCall = (input: GateInput) => Promise<GateDecision>;

/** The gate: the decision function, and its waits (counted by tests and benchmarks). */
export interface ToolGate extends GateToolCall {
  waits: AskWaits;
  /** Whether a call of `tool` on `upstream` passes as it came (rule `allow`), known at once. */
  allows(upstream: string, tool: GateTool): boolean;
  /** The relay stops: open waits end without withdrawing their asks; stops listening for changes. */
  close(): void;
}

/** How long after its ask's life a held call's join mark and send mark are kept. */
const GRACE_MS = 3_600_000;
/** How often a call looks whether another replica finished creating the identical call's ask. */
const CREATING_LOOK_MS = 100;

type Call = {
  upstream: string;
  tool: string;
  client: string | null;
  args: Record<string, unknown>;
};
type Refuse = Extract<GateDecision, { kind: 'refuse' }>;
const refuse = (message: string): Refuse => ({ kind: 'refuse', message });

/**
 * Creates the gate over the relay's asks; `upstreams` is RELAY_CONFIG's `mcp_upstreams` by name
 * (each one's `target` and `tools`; the tool rules are validated here).
 */
export function createToolGate(
  deps: ToolGateDeps,
  upstreams: Record<string, GateUpstreamConfig> | undefined,
): ToolGate {
  const byName = new Map(parseGateUpstreams(upstreams).map((u) => [u.name, u]));
  const waits = new AskWaits(deps.relay.cases.events, deps.relay.store);
  let closing = false;
  const held = new HeldCalls(deps, waits, () => closing);
  const gate = async (input: GateInput): Promise<GateDecision> => {
    const u = byName.get(input.upstream) ?? {
      name: input.upstream,
      tools: toolRulesSchema.parse({}),
    };
    const call: Call = {
      upstream: input.upstream,
      tool: input.tool.name,
      client: input.client.keyName,
      args: input.args,
    };
    const rule = ruleFor(u, call.tool, input.tool.annotations);
    if (rule.policy === 'allow') return { kind: 'send', args: input.args };
    if (rule.policy === 'deny') return refuse(deniedMessage(call));
    if (!u.target) return refuse(noTargetMessage(call));
    const origin = input.origin ?? deps.origin();
    const hold = { u, rule, schema: input.tool.inputSchema, origin };
    const cancelled = input.cancelled ?? new AbortController().signal;
    return held.decide(call, hold, { stop: input.signal, cancelled });
  };
  const close = () => {
    closing = true;
    waits.close();
  };
  const allows = (upstream: string, tool: GateTool) => {
    const u = byName.get(upstream);
    return (
      ruleFor(
        u ?? { name: upstream, tools: toolRulesSchema.parse({}) },
        tool.name,
        tool.annotations,
      ).policy === 'allow'
    );
  };
  return Object.assign(gate, { waits, close, allows });
}

/** How a call is held: its upstream, its rule, the tool's schema. */
type Hold = {
  u: GateUpstream;
  rule: ResolvedRule;
  schema: Record<string, unknown> | undefined;
  origin: string;
};

/** When a caller stops waiting: any reason (`stop`), or because its client cancelled the call. */
type Stops = { stop: AbortSignal; cancelled: AbortSignal };

/** Held calls: the ask of each, joined by identical calls, sent once. */
class HeldCalls {
  private readonly ledger: GateLedger;
  /** Asks being created in this process, by call digest (identical concurrent calls share one). */
  private readonly creating = new Map<string, Promise<string | Refuse>>();
  /** How many callers of this process wait on each ask. */
  private readonly waiting = new Map<string, number>();

  constructor(
    private readonly d: ToolGateDeps,
    private readonly waits: AskWaits,
    private readonly closing: () => boolean,
  ) {
    this.ledger = new GateLedger(d.relay.store.kv);
  }

  /** Holds `call` for a person and decides it. */
  async decide(call: Call, hold: Hold, stops: Stops): Promise<GateDecision> {
    const digest = callDigest(call);
    const id = await this.askOf(digest, call, hold, stops.stop);
    if (typeof id !== 'string') return id;
    const known = await this.d.relay.store.getCase(id);
    if (!known) {
      // The ask is gone (retention): the mark is stale; this call is a new question.
      await this.ledger.release(digest, id);
      return this.decide(call, hold, stops);
    }
    this.waiting.set(id, (this.waiting.get(id) ?? 0) + 1);
    let c: StoredCase | undefined;
    let others = 0;
    try {
      c = await this.waits.until(id, known, stops.stop, () => {});
    } finally {
      others = (this.waiting.get(id) ?? 1) - 1;
      if (others > 0) this.waiting.set(id, others);
      else this.waiting.delete(id);
    }
    if (c && waitIsOver(c)) return this.settle(c, digest, call, hold.rule);
    // Cancelled, and nobody else here waits for it: nobody answers a question nobody waits for.
    if (c && stops.cancelled.aborted && !others && !this.closing()) {
      const withdrawn = await withdrawAsk(this.d.relay, this.d.asks, c, GATE_WITHDRAWN).then(
        () => true,
        (err: Error) => {
          this.d.relay.log.warn({ id, err: err.message }, 'mcp gateway: cannot withdraw an ask');
          return false;
        },
      );
      if (withdrawn) {
        await this.ledger.release(digest, id);
        return refuse(cancelledMessage(call, id));
      }
    }
    return refuse(stoppedMessage(call, id));
  }

  /** The ask of an identical held call, else a new one; or the refusal when none can be made. */
  private async askOf(digest: string, call: Call, hold: Hold, signal: AbortSignal) {
    for (;;) {
      const local = this.creating.get(digest);
      if (local) return local;
      const mark = await this.ledger.find(digest);
      if (mark.kind === 'ask') return mark.id;
      if (mark.kind === 'none' && (await this.ledger.claimCreate(digest))) {
        const made = this.create(digest, call, hold);
        this.creating.set(digest, made);
        try {
          return await made;
        } finally {
          this.creating.delete(digest);
        }
      }
      // Another replica is creating it: look again shortly.
      await new Promise((r) => setTimeout(r, CREATING_LOOK_MS));
      if (signal.aborted) return refuse(stoppedMessage(call, 'not yet created'));
    }
  }

  /** Creates the ask of a held call and marks it for identical calls. */
  private async create(digest: string, call: Call, hold: Hold): Promise<string | Refuse> {
    const made = heldAsk({ ...call, inputSchema: hold.schema, edit: hold.rule.edit });
    if (!made.ok) {
      await this.ledger.abandonCreate(digest);
      return refuse(unshownMessage(call, made.problem));
    }
    const body = {
      target: hold.u.target,
      content: made.content,
      expires_in: hold.rule.expiresIn,
      labels: {
        mcp_upstream: call.upstream,
        mcp_tool: call.tool.slice(0, 256),
        mcp_client: call.client ?? '',
      },
    };
    try {
      const created = await createAsk(this.d.relay, this.d.asks, body, hold.origin, {
        context: { tool_call: made.toolCall },
      });
      const id = created.relay.id;
      await this.ledger.created(digest, id, hold.rule.expiresIn * 1000 + GRACE_MS);
      this.d.relay.log.info(
        { id, upstream: call.upstream, tool: call.tool, client: call.client },
        'mcp gateway: tool call held for a person',
      );
      return id;
    } catch (err) {
      await this.ledger.abandonCreate(digest);
      if (!(err instanceof ValidationError)) throw err;
      const why = err.details.map((i) => `${i.path}: ${i.message}`).join('; ');
      return refuse(unshownMessage(call, `the relay refused the ask (${why || err.message})`));
    }
  }

  /** The decided ask: the one send of the approved arguments, or the refusal. */
  private async settle(c: StoredCase, digest: string, call: Call, rule: ResolvedRule) {
    const tc = toolCallOf(c.doc.hitl.context);
    const sent = c.status === 'completed' && tc ? argumentsSent(tc, c.doc.result?.data) : null;
    if (!sent) {
      await this.ledger.release(digest, c.id);
      return refuse(refusalOf(c, call));
    }
    const sha = argumentsDigest(sent);
    if (!(await this.ledger.claimSend(c.id, sha, rule.expiresIn * 1000 + GRACE_MS)))
      return refuse(alreadySentMessage(call, c.id));
    await this.d.relay.cases.history(c.id, 'tool_call_sent', {
      upstream: call.upstream,
      tool: call.tool,
      client: call.client,
      arguments_sha256: sha,
    });
    await this.ledger.release(digest, c.id);
    this.d.relay.log.info(
      { id: c.id, upstream: call.upstream, tool: call.tool, arguments_sha256: sha },
      'mcp gateway: approved tool call sent',
    );
    return { kind: 'send' as const, args: sent };
  }
}
