/**
 * Notes every card of a case carries whatever its state: a protocol version the relay does not
 * interpret (v0.9 §2), an Agent Access case decided on the service's page (while open), an
 * escalation ladder that ended the relay's wait with a timeout policy (nobody decided; never a
 * person's decision), and a note set from outside the case's service (doc.note: an MCP server said
 * its URL elicitation completed). Plain text; each adapter escapes it.
 */
import { isKnownVersion } from '../protocol/hitl.ts';
import { isTerminal } from '../protocol/types.ts';
import { type Strings, t } from '../render/templates.ts';
import type { StoredCase } from '../store/types.ts';

/** Whether the relay reads the case at all: a version it does not know gets Details only. */
export function interpreted(c: StoredCase): boolean {
  return isKnownVersion(c.doc.hitl.spec_version);
}

/**
 * Whether `c` is a case of the Agent Access profile (v0.9 Appendix I, `context["x-hitl-agent-access"]`):
 * its decision is made on the service's own page by the signed-in owner and committed there, so
 * the card is link-only, whatever submit fields a service may have sent with it.
 */
export function agentAccess(c: StoredCase): boolean {
  const ctx = c.doc.hitl.context as Record<string, unknown> | undefined;
  return typeof ctx?.['x-hitl-agent-access'] === 'object' && ctx['x-hitl-agent-access'] !== null;
}

/** A time as the cards show it: "2026-11-30 10:15 UTC". */
const minute = (at: number) => `${new Date(at).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** The notes of `c`, in the order they are shown under its status line. */
export function caseNotes(c: StoredCase, s: Strings): string[] {
  const notes: string[] = [];
  if (!interpreted(c))
    notes.push(t(s, 'status.unknown_version', { version: c.doc.hitl.spec_version.slice(0, 32) }));
  if (agentAccess(c) && !isTerminal(c.status)) notes.push(t(s, 'status.agent_access'));
  const f = c.doc.escalation?.final;
  // Once a person's answer completed the case, that answer is what the card says.
  if (f?.outcome === 'policy' && c.status !== 'completed')
    notes.push(t(s, 'status.ladder_policy', { at: minute(f.at), action: f.action }));
  if (c.doc.note) notes.push(c.doc.note);
  return notes;
}
