/**
 * The Bot Framework activity and conversation reference in our own small types (pure, no SDK):
 * what the adapter reads of an inbound activity, what it sends, and the SDK-neutral reference it
 * stores per conversation. Only connector.ts translates these to and from botbuilder.
 */

/**
 * A channel message's conversation id carries its thread (";messageid=<root>"); the channel itself
 * is the part before the first ";".
 */
export function baseConversationId(conversationId: string): string {
  return conversationId.split(';')[0] ?? conversationId;
}

/** A person or bot as an activity names them. */
export interface TeamsAccount {
  id: string;
  name?: string;
}

/** The fields of an inbound activity the adapter relies on (the rest passes through untouched). */
export interface TeamsActivity {
  type: string;
  id?: string;
  name?: string;
  serviceUrl: string;
  channelId?: string;
  conversation: { id: string; conversationType?: string; tenantId?: string; isGroup?: boolean };
  from?: TeamsAccount;
  recipient?: TeamsAccount;
  replyToId?: string;
  text?: string;
  value?: unknown;
  membersAdded?: TeamsAccount[];
  entities?: Array<{ type?: string; mentioned?: { id?: string }; text?: string }>;
  channelData?: unknown;
}

/** An attachment of an outgoing activity (an Adaptive Card). */
export interface TeamsAttachment {
  contentType: string;
  content: unknown;
}

/** What the adapter sends: a message (text or a card) in a conversation. */
export interface OutgoingActivity {
  text?: string;
  textFormat?: 'plain' | 'markdown';
  attachments?: TeamsAttachment[];
  summary?: string;
  replyToId?: string;
}

/**
 * Where a conversation is, as stored (version 2): enough to post and edit there from any replica,
 * in our own shape so that stored data does not depend on an SDK.
 */
export interface TeamsReference {
  v: 2;
  serviceUrl: string;
  /** "msteams" (the Bot Framework channel). */
  channelId: string;
  conversation: { id: string; type?: string; tenantId?: string };
  /** The bot's own id in this conversation ("28:<app id>"). */
  botId?: string;
}

/** An Adaptive Card as an attachment. */
export function adaptiveCard(content: unknown): TeamsAttachment {
  return { contentType: 'application/vnd.microsoft.card.adaptive', content };
}

/** The reference to keep for an activity's conversation: the channel itself (no thread). */
export function referenceOf(activity: TeamsActivity): TeamsReference {
  const c = activity.conversation;
  const tenant = (activity.channelData as { tenant?: { id?: unknown } } | undefined)?.tenant?.id;
  const tenantId = c.tenantId ?? (typeof tenant === 'string' ? tenant : undefined);
  return {
    v: 2,
    serviceUrl: activity.serviceUrl,
    channelId: activity.channelId ?? 'msteams',
    conversation: {
      id: baseConversationId(c.id),
      ...(c.conversationType ? { type: c.conversationType } : {}),
      ...(tenantId ? { tenantId } : {}),
    },
    ...(activity.recipient?.id ? { botId: activity.recipient.id } : {}),
  };
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

/**
 * Reads a stored reference: today's shape, or the botbuilder ConversationReference stored before
 * (serviceUrl, channelId, conversation.{id,conversationType,tenantId}, bot.id). Null when unusable.
 */
export function readReference(raw: unknown): TeamsReference | null {
  if (!raw || typeof raw !== 'object') return null;
  const r = raw as Record<string, unknown>;
  const conv = (r.conversation ?? {}) as Record<string, unknown>;
  const serviceUrl = str(r.serviceUrl);
  const id = str(conv.id);
  if (!serviceUrl || !id) return null;
  const type = str(conv.type) ?? str(conv.conversationType);
  const tenantId = str(conv.tenantId);
  const botId = str(r.botId) ?? str((r.bot as Record<string, unknown> | undefined)?.id);
  return {
    v: 2,
    serviceUrl,
    channelId: str(r.channelId) ?? 'msteams',
    conversation: { id, ...(type ? { type } : {}), ...(tenantId ? { tenantId } : {}) },
    ...(botId ? { botId } : {}),
  };
}

/** The message text without the mention of the bot ("<at>hitl-relay</at> hitl id" -> "hitl id"). */
export function textWithoutBotMention(activity: TeamsActivity): string {
  let text = activity.text ?? '';
  for (const e of activity.entities ?? []) {
    if (e.type === 'mention' && e.mentioned?.id === activity.recipient?.id && e.text) {
      text = text.split(e.text).join('');
    }
  }
  return text.trim();
}
