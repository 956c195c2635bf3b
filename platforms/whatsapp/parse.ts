/** Webhook payloads -> neutral events. Pure: no I/O. */
import type { MessageRef, TapUser } from '../../src/adapter.ts';

const PLATFORM = 'whatsapp';

/** A message a person sent: a reply button, a list row, a template's quick reply, or text. */
export interface InboundMessage {
  /** Its "wamid...." (de-duplication). */
  id: string;
  /** The person's wa_id. */
  from: string;
  /** When WhatsApp received it (ms). */
  at: number;
  /** The business message it answers (the card's id), when it is a reply. */
  contextId: string | null;
  user: TapUser;
  /** The button or row id (the payload), or null. */
  reply: string | null;
  /** The text of a text message, or null. */
  text: string | null;
}

/** A delivery receipt of one of our messages. */
export interface StatusEvent {
  id: string;
  status: 'sent' | 'delivered' | 'read' | 'failed';
  recipient: string;
  at: number;
  /** Meta's errors of a failed message, as "#code title". */
  errors: string[];
}

/** One `changes[]` item of the `messages` field, for one business number. */
export interface InboundBatch {
  phoneId: string;
  messages: InboundMessage[];
  statuses: StatusEvent[];
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null;
const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const seconds = (v: unknown): number => {
  const n = Number(v);
  return Number.isFinite(n) ? n * 1000 : 0;
};

/** The payload of a tap: reply button, list row, or a template's quick-reply button. */
function replyOf(m: Json): string | null {
  const interactive = isObject(m.interactive) ? m.interactive : null;
  if (interactive) {
    const picked = isObject(interactive.button_reply)
      ? interactive.button_reply
      : isObject(interactive.list_reply)
        ? interactive.list_reply
        : null;
    return picked ? str(picked.id) : null;
  }
  return isObject(m.button) ? str(m.button.payload) : null;
}

function messageOf(m: unknown, names: Map<string, string>): InboundMessage | null {
  if (!isObject(m)) return null;
  const id = str(m.id);
  const from = str(m.from);
  if (!id || !from) return null;
  const name = names.get(from);
  return {
    id,
    from,
    at: seconds(m.timestamp),
    contextId: isObject(m.context) ? str(m.context.id) : null,
    user: name ? { id: from, name } : { id: from },
    reply: replyOf(m),
    text: isObject(m.text) ? str(m.text.body) : null,
  };
}

const STATUSES = new Set(['sent', 'delivered', 'read', 'failed']);

function statusOf(s: unknown): StatusEvent | null {
  if (!isObject(s)) return null;
  const id = str(s.id);
  const status = str(s.status);
  const recipient = str(s.recipient_id);
  if (!id || !status || !recipient || !STATUSES.has(status)) return null;
  const errors = list(s.errors).flatMap((e) =>
    isObject(e) ? [`#${String(e.code ?? '?')} ${String(e.title ?? e.message ?? '')}`.trim()] : [],
  );
  return {
    id,
    status: status as StatusEvent['status'],
    recipient,
    at: seconds(s.timestamp),
    errors,
  };
}

/** Every batch of a webhook body; anything that is not WhatsApp's shape is skipped. */
export function parseWebhook(body: unknown): InboundBatch[] {
  if (!isObject(body) || body.object !== 'whatsapp_business_account') return [];
  const out: InboundBatch[] = [];
  for (const entry of list(body.entry)) {
    for (const change of list(isObject(entry) ? entry.changes : [])) {
      if (!isObject(change) || change.field !== 'messages' || !isObject(change.value)) continue;
      const value = change.value;
      const phoneId = isObject(value.metadata) ? str(value.metadata.phone_number_id) : null;
      if (!phoneId) continue;
      const names = new Map<string, string>();
      for (const c of list(value.contacts)) {
        const waId = isObject(c) ? str(c.wa_id) : null;
        const name = isObject(c) && isObject(c.profile) ? str(c.profile.name) : null;
        if (waId && name) names.set(waId, name.slice(0, 128));
      }
      out.push({
        phoneId,
        messages: list(value.messages).flatMap((m) => messageOf(m, names) ?? []),
        statuses: list(value.statuses).flatMap((s) => statusOf(s) ?? []),
      });
    }
  }
  return out;
}

/** Splits `hitl:<key>:<action>`; null for anything else. */
export function parsePayload(data: string | null): { key: string; action: string } | null {
  if (!data?.startsWith('hitl:')) return null;
  const rest = data.slice('hitl:'.length);
  const cut = rest.lastIndexOf(':');
  if (cut <= 0 || cut === rest.length - 1) return null;
  return { key: rest.slice(0, cut), action: rest.slice(cut + 1) };
}

/** Splits an ask row id `ha:<key>:<op>:<n>`; null for anything else. */
export function parseAskReply(data: string | null): { key: string; op: string; n: number } | null {
  const match = data ? /^ha:(.+):([cp]):(\d{1,3})$/.exec(data) : null;
  if (!match) return null;
  return { key: match[1] as string, op: match[2] as string, n: Number(match[3]) };
}

/** A target's address: "<phone number id>:<wa_id>", both digits. */
export const ADDRESS = /^(\d{1,32}):(\d{5,20})$/;

/** Splits an address; null when it is not one. */
export function parseAddress(address: string): { phoneId: string; waId: string } | null {
  const match = ADDRESS.exec(address);
  return match ? { phoneId: match[1] as string, waId: match[2] as string } : null;
}

/** The ref of a card message sent to `address`. */
export function cardRef(address: string, messageId: string): MessageRef {
  return { platform: PLATFORM, address, id: messageId };
}

/** The target string a person gives the agent for this chat. */
export function targetFor(phoneId: string, waId: string): string {
  return `${PLATFORM}:${phoneId}:${waId}`;
}
