/**
 * The tool gate: every downstream `tools/call` passes here before it reaches the upstream, and the
 * upstream receives exactly the arguments returned. This is the pass-through placeholder of the
 * proxy core; the policy gating of issue 33 (allow / approve / deny per tool, held calls shown in
 * chat with every argument) lands in this file and replaces it.
 */
import type { Tool } from '@modelcontextprotocol/server';

/** One tool call the gate decides on. */
export interface GateInput {
  /** The upstream's name in RELAY_CONFIG. */
  upstream: string;
  /** The upstream's definition of the tool (tools/list), with annotations and inputSchema. */
  tool: Tool;
  args: Record<string, unknown>;
  /** The downstream client's credential. */
  client: { keyName: string | null };
  /** Aborted when the client cancels the call. */
  signal: AbortSignal;
}

/** Send (with these arguments) or refuse (the message is the client's tool error). */
export type GateDecision =
  | { kind: 'send'; args: Record<string, unknown> }
  | { kind: 'refuse'; message: string };

/** Decides one call: for now every call is sent as it is. */
export async function gateToolCall(input: GateInput): Promise<GateDecision> {
  return { kind: 'send', args: input.args };
}
