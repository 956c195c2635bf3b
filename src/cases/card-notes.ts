/**
 * Notes every card of a case carries whatever its state: a protocol version the relay does not
 * interpret (v0.9 §2), and an escalation ladder that ended the relay's wait with a timeout policy
 * (nobody decided; never a person's decision), and a note set from outside the case's service
 * (doc.note: an MCP server said its URL elicitation completed). Plain text; each adapter escapes it.
 */
import { isKnownVersion } from '../protocol/hitl.ts';
import { type Strings, t } from '../render/templates.ts';
import type { StoredCase } from '../store/types.ts';

/** Whether the relay reads the case at all: a version it does not know gets Details only. */
export function interpreted(c: StoredCase): boolean {
  return isKnownVersion(c.doc.hitl.spec_version);
}

/** A time as the cards show it: "2026-11-30 10:15 UTC". */
const minute = (at: number) => `${new Date(at).toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** The notes of `c`, in the order they are shown under its status line. */
export function caseNotes(c: StoredCase, s: Strings): string[] {
  const notes: string[] = [];
  if (!interpreted(c))
    notes.push(t(s, 'status.unknown_version', { version: c.doc.hitl.spec_version.slice(0, 32) }));
  const f = c.doc.escalation?.final;
  // Once a person's answer completed the case, that answer is what the card says.
  if (f?.outcome === 'policy' && c.status !== 'completed')
    notes.push(t(s, 'status.ladder_policy', { at: minute(f.at), action: f.action }));
  if (c.doc.note) notes.push(c.doc.note);
  return notes;
}
