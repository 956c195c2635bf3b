/** The fake Bot API's state: chats, messages, queued updates, callback answers, and test helpers. */
import { randomInt } from 'node:crypto';
import type { Chat, Message, MessageEntity, Update, User, UserFromGetMe } from 'grammy/types';

/** A message as the fake keeps it: the Bot API object plus what the bot sent. */
export interface StoredMessage {
  message: Message.TextMessage;
  /** The text parameter exactly as sent (HTML source in HTML mode). */
  sent: string;
  /** Every callback_data this message ever carried (a stale client may still show old buttons). */
  everCallbackData: string[];
}

/** One answerCallbackQuery call. */
export interface RecordedAnswer {
  callback_query_id: string;
  text?: string;
  show_alert?: boolean;
}

export class FakeTelegramState {
  readonly botInfo: UserFromGetMe;
  protected readonly chats = new Map<number, StoredMessage[]>();
  protected readonly lastMessageId = new Map<number, number>();
  protected readonly pending: Update[] = [];
  protected nextUpdateId = randomInt(100_000_000, 900_000_000);
  protected pollWaiters = new Set<() => void>();
  protected webhook: { url: string; secret_token?: string; allowed_updates?: string[] } | null =
    null;
  protected readonly openQueries = new Map<string, boolean>();
  protected readonly answered: RecordedAnswer[] = [];
  /** Ephemeral messages (Bot API 10): only their receiver sees them; never in the chat's history. */
  protected readonly ephemerals: Array<{
    chat_id: number;
    receiver_user_id: number;
    callback_query_id?: string;
    text: string;
  }> = [];
  protected answerWaiters = new Set<() => void>();
  /** Groups upgraded to supergroups: old id -> new id. */
  protected readonly migrated = new Map<number, number>();

  constructor(botInfo: UserFromGetMe) {
    this.botInfo = botInfo;
  }

  /** Queues an update for getUpdates (long polling); returns it with its update_id. */
  queueUpdate(update: Omit<Update, 'update_id'>): Update {
    const full = { update_id: this.nextUpdateId++, ...update } as Update;
    this.pending.push(full);
    for (const wake of this.pollWaiters) wake();
    return full;
  }

  /** getUpdates requests held open right now, each waiting for an update or its timeout. */
  openPolls(): number {
    return this.pollWaiters.size;
  }

  /** Builds (does not deliver) an update with a fresh update_id. */
  makeUpdate(update: Omit<Update, 'update_id'>): Update {
    return { update_id: this.nextUpdateId++, ...update } as Update;
  }

  /** A callback_query update for a tap on `data` on a stored message (or an inaccessible one). */
  callbackQuery(args: {
    chatId: number;
    messageId: number;
    data: string;
    from: User;
    inaccessible?: boolean;
  }): Update {
    const id = String(randomInt(1, 2 ** 47));
    this.openQueries.set(id, false);
    const stored = this.message(args.chatId, args.messageId);
    const message = args.inaccessible
      ? { chat: this.chatOf(args.chatId), message_id: args.messageId, date: 0 as const }
      : stored
        ? structuredClone(stored.message)
        : undefined;
    return this.makeUpdate({
      callback_query: {
        id,
        from: args.from,
        ...(message ? { message } : {}),
        chat_instance: String(-args.chatId * 7 + 13),
        data: args.data,
      },
    });
  }

  /** A text message update as a person would send it; a leading /command gets its entity. */
  textMessage(args: { chatId: number; from: User; text: string; replyTo?: number }): Update {
    const command = /^\/[A-Za-z0-9_]+(@[A-Za-z0-9_]+)?/.exec(args.text);
    const entities: MessageEntity[] = command
      ? [{ type: 'bot_command', offset: 0, length: command[0].length }]
      : [];
    const message = {
      message_id: this.nextMessageId(args.chatId),
      from: args.from,
      chat: this.chatOf(args.chatId),
      date: Math.floor(Date.now() / 1000),
      text: args.text,
      ...(entities.length ? { entities } : {}),
      // A reply carries the message it answers, as Telegram sends it.
      ...(args.replyTo !== undefined && this.message(args.chatId, args.replyTo)
        ? { reply_to_message: structuredClone(this.message(args.chatId, args.replyTo)!.message) }
        : {}),
    };
    return this.makeUpdate({ message } as unknown as Omit<Update, 'update_id'>);
  }

  /** Button URLs matching this are refused with BUTTON_URL_INVALID, as Telegram does for some hosts. */
  protected refusedUrls: RegExp | null = null;

  /** Makes the fake refuse URL buttons whose URL matches `pattern`. */
  refuseButtonUrls(pattern: RegExp | null): void {
    this.refusedUrls = pattern;
  }

  /**
   * False: the fake answers as a Bot API server older than 10, to which a `disabled` button is a
   * button of no kind it knows (refused as Telegram refuses a bare text button).
   */
  protected botApi10 = true;

  /** Makes the fake answer as a Bot API server older than 10 (a self-hosted one not yet updated). */
  useOlderBotApi(): void {
    this.botApi10 = false;
  }

  /** Chats the bot was kicked from: every call there answers 403. */
  protected readonly kicked = new Set<number>();

  /** A person deletes a message: edits answer "message to edit not found". */
  deleteMessage(chatId: number, messageId: number): void {
    const list = this.chats.get(chatId) ?? [];
    this.chats.set(
      chatId,
      list.filter((m) => m.message.message_id !== messageId),
    );
  }

  /** The bot is removed from a group: Telegram answers 403 "bot was kicked from the group chat". */
  kickBot(chatId: number): void {
    this.kicked.add(chatId);
  }

  /** Upgrades a group to a supergroup: sends to the old id then fail with migrate_to_chat_id. */
  migrateChat(fromChatId: number, toChatId: number): void {
    this.migrated.set(fromChatId, toChatId);
  }

  /** Messages of a chat, in sending order. */
  messages(chatId: number): StoredMessage[] {
    return [...(this.chats.get(chatId) ?? [])];
  }

  message(chatId: number, messageId: number): StoredMessage | undefined {
    return this.chats.get(chatId)?.find((m) => m.message.message_id === messageId);
  }

  /** Every ephemeral message sent, in order. */
  ephemeralMessages() {
    return structuredClone(this.ephemerals);
  }

  /** All answerCallbackQuery calls. */
  answers(): RecordedAnswer[] {
    return [...this.answered];
  }

  /** Resolves with the answer to `queryId` once the bot has sent it. */
  async waitForAnswer(queryId: string, timeoutMs = 15_000): Promise<RecordedAnswer> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const hit = this.answered.find((a) => a.callback_query_id === queryId);
      if (hit) return hit;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no answerCallbackQuery for ${queryId}`);
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          this.answerWaiters.delete(done);
          resolve();
        };
        const timer = setTimeout(done, left);
        this.answerWaiters.add(done);
      });
    }
  }

  webhookInfo(): { url: string; pending_update_count: number; allowed_updates?: string[] } {
    return {
      url: this.webhook?.url ?? '',
      pending_update_count: this.pending.length,
      ...(this.webhook?.allowed_updates ? { allowed_updates: this.webhook.allowed_updates } : {}),
    };
  }

  webhookSecret(): string | undefined {
    return this.webhook?.secret_token;
  }

  protected shutdown(): void {
    for (const wake of this.pollWaiters) wake();
    for (const wake of [...this.answerWaiters]) wake();
  }

  /** Chats that are channels (posts there have no author). */
  private readonly channels = new Set<number>();

  /** Makes `chatId` a channel. */
  markChannel(chatId: number): void {
    this.channels.add(chatId);
  }

  protected chatOf(chatId: number): Chat {
    if (this.channels.has(chatId))
      return { id: chatId, type: 'channel', title: 'Test channel' } as Chat;
    return chatId < 0
      ? ({ id: chatId, type: 'supergroup', title: 'Test group' } as Chat)
      : ({ id: chatId, type: 'private', first_name: 'Test' } as Chat);
  }

  protected nextMessageId(chatId: number): number {
    const id = (this.lastMessageId.get(chatId) ?? 0) + 1;
    this.lastMessageId.set(chatId, id);
    return id;
  }
}
