/** The fake Discord's message store: channel messages as Discord holds and returns them. */

/** A message as the fake holds it. */
export interface FakeDiscordMessage {
  id: string;
  channel_id: string;
  content: string;
  components: FakeActionRow[];
  /** Embeds as the message carries them (an outcome's colour and title). */
  embeds: Array<{ title?: string; color?: number; description?: string }>;
  allowed_mentions: unknown;
  message_reference?: { message_id: string };
  flags: number;
  /** Every custom_id this message ever carried (a person with a stale view can still tap them). */
  seenCustomIds: string[];
  edits: number;
}

/** An action row of buttons. */
export interface FakeActionRow {
  type: 1;
  components: Array<{ type: 2; style: number; label?: string; custom_id?: string; url?: string }>;
}

let snowflakeCounter = 1_300_000_000_000_000_000n;
/** A fresh snowflake-like id. */
export function fakeSnowflake(): string {
  snowflakeCounter += 1n;
  return snowflakeCounter.toString();
}

/** Channel messages per channel, in posting order. */
export class FakeMessageStore {
  private readonly channels = new Map<string, FakeDiscordMessage[]>();

  constructor(private readonly applicationId: string) {}

  messages(channelId: string): FakeDiscordMessage[] {
    return [...(this.channels.get(channelId) ?? [])];
  }

  /** A person deletes a message. */
  delete(channelId: string, messageId: string): void {
    const list = this.channels.get(channelId) ?? [];
    this.channels.set(
      channelId,
      list.filter((m) => m.id !== messageId),
    );
  }

  find(channelId: string, messageId: string): FakeDiscordMessage | undefined {
    return this.channels.get(channelId)?.find((m) => m.id === messageId);
  }

  /** Replaces the fields an edit (PATCH or UPDATE_MESSAGE) carries. */
  edit(message: FakeDiscordMessage, body: Record<string, unknown>): void {
    if (typeof body.content === 'string') message.content = body.content;
    if (Array.isArray(body.components)) {
      message.components = body.components as FakeActionRow[];
      for (const row of message.components) {
        for (const button of row.components ?? []) {
          if (button.custom_id && !message.seenCustomIds.includes(button.custom_id)) {
            message.seenCustomIds.push(button.custom_id);
          }
        }
      }
    }
    if (Array.isArray(body.embeds)) message.embeds = body.embeds as FakeDiscordMessage['embeds'];
    if ('allowed_mentions' in body) message.allowed_mentions = body.allowed_mentions;
  }

  /** A message that is not kept in a channel (ephemeral follow-ups only their recipient sees). */
  detached(channelId: string, body: Record<string, unknown>): FakeDiscordMessage {
    const message: FakeDiscordMessage = {
      id: fakeSnowflake(),
      channel_id: channelId,
      content: '',
      components: [],
      embeds: [],
      allowed_mentions: body.allowed_mentions,
      flags: typeof body.flags === 'number' ? body.flags : 0,
      seenCustomIds: [],
      edits: 0,
      ...(body.message_reference
        ? { message_reference: body.message_reference as { message_id: string } }
        : {}),
    };
    this.edit(message, body);
    return message;
  }

  /** POST /channels/:id/messages */
  create(channelId: string, body: Record<string, unknown>): FakeDiscordMessage {
    const message = this.detached(channelId, body);
    const list = this.channels.get(channelId) ?? [];
    list.push(message);
    this.channels.set(channelId, list);
    return message;
  }

  /** The message object Discord answers with. */
  wire(m: FakeDiscordMessage): Record<string, unknown> {
    return {
      id: m.id,
      type: m.message_reference ? 19 : 0,
      channel_id: m.channel_id,
      content: m.content,
      components: m.components,
      flags: m.flags,
      author: { id: this.applicationId, username: 'hitl-relay', bot: true, discriminator: '0' },
      timestamp: new Date().toISOString(),
      edited_timestamp: m.edits ? new Date().toISOString() : null,
      tts: false,
      mention_everyone: false,
      mentions: [],
      mention_roles: [],
      attachments: [],
      embeds: m.embeds,
      pinned: false,
    };
  }
}
