/** Card -> the web chat's message JSON (pure). The page escapes text when it draws it. */
import type { Card } from '../../src/render/card.ts';

/** One message of a room, as the JSON API serves it. */
export interface WebMessage {
  id: string;
  /** Relay case id, or null for a notice (reminder). */
  case: string | null;
  /** The message this one replies to (reminders, later rounds), or null. */
  reply_to: string | null;
  text: string;
  title: string;
  prompt: string;
  lines: string[];
  hint: string | null;
  actions: { action: string; label: string; style: string; confirm: boolean }[];
  link: { label: string; url: string } | null;
  /** A link the person opens themselves (URL elicitation): the page shows its host in bold. */
  open_link?: { label: string; url: string; host: string };
  status: string;
  final: boolean;
  /** The case's state for the card's badge (pending ... cancelled), or null for a notice. */
  state: string | null;
  /** An open ask's content, drawn as native controls (ask-controls.ts). */
  ask?: Card['ask'];
  /** A final card's outcome, for its badge and colour. */
  outcome?: Card['outcome'];
  /** The button key (`hitl:<key>:<action>`), kept server-side only. */
  key?: string;
  /** The room the message is in, kept server-side only. */
  room?: string;
  /** Its place in the room's listing (kept server-side): an edit renews that slot's expiry. */
  slot?: number;
}

/** Renders a card as a web chat message. */
export function renderWebMessage(id: string, card: Card, replyTo: string | null): WebMessage {
  return {
    id,
    case: card.caseId,
    reply_to: replyTo,
    text: [card.title, card.prompt, ...card.lines, card.hint ?? '', card.status]
      .filter(Boolean)
      .join('\n'),
    title: card.title,
    prompt: card.prompt,
    lines: card.lines,
    hint: card.hint,
    actions: card.actions.map((a) => ({
      action: a.action,
      label: a.label,
      style: a.style,
      confirm: !!a.confirm,
    })),
    link: card.link,
    ...(card.openLink ? { open_link: card.openLink } : {}),
    status: card.status,
    final: card.final,
    state: card.state ?? (card.final ? 'completed' : 'pending'),
    key: card.key,
    ...(card.ask ? { ask: card.ask } : {}),
    ...(card.outcome ? { outcome: card.outcome } : {}),
  };
}

/** A notice (reminder) as a web chat message. */
export function renderWebNotice(
  id: string,
  text: string,
  link: WebMessage['link'],
  replyTo: string,
): WebMessage {
  return {
    id,
    case: null,
    reply_to: replyTo,
    text,
    title: '',
    prompt: text,
    lines: [],
    hint: null,
    actions: [],
    link,
    status: '',
    final: true,
    state: null,
  };
}

/** The message without server-side fields. */
export function publicMessage(m: WebMessage): Omit<WebMessage, 'key' | 'room' | 'slot'> {
  const { key: _key, room: _room, slot: _slot, ...rest } = m;
  return rest;
}
