/**
 * What a client is told when a gated call is not sent: who refused and how, or why nobody did,
 * in words taken from the ask as stored (the relay says nothing the record does not). Each ends
 * with "It was not sent." so a model reading only the text cannot take it for a result. Pure.
 */
import type { StoredCase } from '../store/types.ts';
import { clientName } from './callers.ts';

/** The call as a refusal names it. */
export interface RefusedCall {
  upstream: string;
  tool: string;
  client: string | null;
}

const NOT_SENT = 'It was not sent.';
const what = (c: RefusedCall) => `${c.tool} on ${c.upstream}`;

/** Who answered, as the chat platform named them. */
function whoAnswered(k: StoredCase): string {
  const by = k.doc.submitted_by;
  if (by) return `${by.display_name ?? by.platform_user_id} (${by.platform})`;
  return k.doc.responded_by?.name ?? 'someone';
}

/** The refusal of an ask that ended without approving the call. */
export function refusalOf(k: StoredCase, call: RefusedCall): string {
  const ask = `ask ${k.id}`;
  const reason = k.doc.delivery_failed?.reason ?? k.doc.reason;
  if (k.doc.delivery_failed && k.status !== 'completed')
    return `Nobody could be shown the approval of ${what(call)} (${ask}): ${reason}. ${NOT_SENT}`;
  switch (k.status) {
    case 'completed': {
      const data = (k.doc.result?.data ?? {}) as { decision?: unknown; confirmed?: unknown };
      const how = data.confirmed === false ? 'declined' : `answered "${String(data.decision)}" to`;
      const said = data.decision === 'reject' ? 'rejected' : how;
      return `${whoAnswered(k)} ${said} ${what(call)} for ${clientName(call.client)} (${ask}). ${NOT_SENT}`;
    }
    case 'expired':
      return `Nobody approved ${what(call)} before the approval expired (${ask}${reason ? `: ${reason}` : ''}). ${NOT_SENT}`;
    case 'cancelled':
      return `The approval of ${what(call)} was cancelled (${ask}${reason ? `: ${reason}` : ''}). ${NOT_SENT}`;
    default:
      return `The approval of ${what(call)} ended as ${k.status} (${ask}). ${NOT_SENT}`;
  }
}

/** A call refused by configuration, without asking anyone. */
export const deniedMessage = (call: RefusedCall): string =>
  `${what(call)} is denied by the relay's tool policy (mcp_upstreams[].tools); nobody was asked. ${NOT_SENT}`;

/** An approve call on an upstream with nowhere to ask. */
export const noTargetMessage = (call: RefusedCall): string =>
  `${what(call)} needs a person's approval, but upstream ${call.upstream} has no target to ask in (mcp_upstreams[].target). ${NOT_SENT}`;

/** An approve call that could not be shown in full. */
export const unshownMessage = (call: RefusedCall, problem: string): string =>
  `${what(call)} needs a person's approval, but it cannot be shown in chat: ${problem}. ${NOT_SENT}`;

/** A caller that waited on a decision whose call another caller sent. */
export const alreadySentMessage = (call: RefusedCall, id: string): string =>
  `${what(call)} was approved (ask ${id}) and sent once already, as the answer to an identical earlier call; the relay does not send a gated call twice. Its result went to that call.`;

/** The caller stopped waiting (cancelled or disconnected) before anyone decided. */
export const stoppedMessage = (call: RefusedCall, id: string): string =>
  `The client stopped waiting for the approval of ${what(call)} (ask ${id}); the ask stays open and an identical call joins it. ${NOT_SENT}`;

/** What the cards of a held call say when its client cancelled it (the ask is withdrawn). */
export const GATE_WITHDRAWN = 'the MCP client cancelled the tool call; it was not sent';

/** The caller cancelled the call before anyone decided: its ask was withdrawn. */
export const cancelledMessage = (call: RefusedCall, id: string): string =>
  `The client cancelled the call of ${what(call)} before anyone decided; its approval (ask ${id}) was withdrawn. ${NOT_SENT}`;
