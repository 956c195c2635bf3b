/**
 * A small send scheduler that keeps a burst of cards under Telegram's flood limits: about one
 * message a second per chat, 20 a minute per group, 30 a second overall (edits count too). Each
 * send waits for its slot; chats do not block each other, and each chat keeps its own order.
 */

/** The rates; tests pass tiny values so nothing waits. */
export interface PaceOptions {
  /** Least time between two sends to one chat. */
  perChatIntervalMs: number;
  /** Most sends to one group (negative chat id) within groupWindowMs. */
  groupLimit: number;
  groupWindowMs: number;
  /** Most sends overall within globalWindowMs. */
  globalLimit: number;
  globalWindowMs: number;
}

/** Telegram's published guidance (core.telegram.org/bots/faq#my-bot-is-hitting-limits-how-do-i-avoid-this). */
export const TELEGRAM_DEFAULT_PACE: PaceOptions = {
  perChatIntervalMs: 1000,
  groupLimit: 20,
  groupWindowMs: 60_000,
  globalLimit: 30,
  globalWindowMs: 1000,
};

interface ChatState {
  /** Waiting sends, oldest first; `seq` orders them across chats. */
  waiters: Array<{ seq: number; resolve: () => void; reject: (err: Error) => void }>;
  /** Recent send times, oldest first. */
  sends: number[];
  /** No send before this time (set after a 429). */
  holdUntil: number;
}

/** Hands out send slots per chat; `acquire` resolves when the caller may send. */
export class SendPace {
  private readonly opts: PaceOptions;
  private readonly chats = new Map<string, ChatState>();
  private readonly globalSends: number[] = [];
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Number.POSITIVE_INFINITY;
  private closed = false;
  private seq = 0;

  constructor(
    options: Partial<PaceOptions> = {},
    private readonly now: () => number = Date.now,
  ) {
    this.opts = { ...TELEGRAM_DEFAULT_PACE, ...options };
  }

  /** Waits for the next slot of `chatId`; rejects once the pace is closed. */
  acquire(chatId: string): Promise<void> {
    if (this.closed) return Promise.reject(new Error('telegram send pace is closed'));
    const chat = this.chat(chatId);
    const seq = this.seq++;
    const done = new Promise<void>((resolve, reject) =>
      chat.waiters.push({ seq, resolve, reject }),
    );
    this.dispatch();
    return done;
  }

  /** Keeps `chatId` quiet for `ms` (Telegram answered 429 with retry_after). */
  hold(chatId: string, ms: number): void {
    const chat = this.chat(chatId);
    chat.holdUntil = Math.max(chat.holdUntil, this.now() + ms);
  }

  /** Rejects every waiting send and stops the timer. */
  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    for (const chat of this.chats.values()) {
      for (const waiter of chat.waiters.splice(0)) {
        waiter.reject(new Error('telegram send pace is closed'));
      }
    }
    this.chats.clear();
  }

  private chat(chatId: string): ChatState {
    let chat = this.chats.get(chatId);
    if (!chat) {
      chat = { waiters: [], sends: [], holdUntil: 0 };
      this.chats.set(chatId, chat);
    }
    return chat;
  }

  /** The earliest time this chat may send again, ignoring the global limit. */
  private readyAt(chatId: string, chat: ChatState): number {
    let at = chat.holdUntil;
    const last = chat.sends[chat.sends.length - 1];
    if (last !== undefined) at = Math.max(at, last + this.opts.perChatIntervalMs);
    // Negative ids are groups and channels, where the per-minute limit applies.
    if (chatId.startsWith('-') && chat.sends.length >= this.opts.groupLimit) {
      const oldest = chat.sends[chat.sends.length - this.opts.groupLimit];
      if (oldest !== undefined) at = Math.max(at, oldest + this.opts.groupWindowMs);
    }
    return at;
  }

  private globalReadyAt(now: number): number {
    while (
      this.globalSends.length > 0 &&
      (this.globalSends[0] as number) + this.opts.globalWindowMs <= now
    ) {
      this.globalSends.shift();
    }
    if (this.globalSends.length < this.opts.globalLimit) return now;
    const oldest = this.globalSends[this.globalSends.length - this.opts.globalLimit] as number;
    return oldest + this.opts.globalWindowMs;
  }

  private dispatch(): void {
    if (this.closed) return;
    const now = this.now();
    let next = Number.POSITIVE_INFINITY;
    const keep = Math.max(this.opts.groupWindowMs, this.opts.perChatIntervalMs);
    const waiting: Array<[string, ChatState]> = [];
    for (const [chatId, chat] of this.chats) {
      while (chat.sends.length > 0 && (chat.sends[0] as number) + keep <= now) chat.sends.shift();
      if (chat.waiters.length > 0) waiting.push([chatId, chat]);
      else if (chat.sends.length === 0 && chat.holdUntil <= now) this.chats.delete(chatId);
    }
    // While the global limit binds, the chat whose oldest send has waited longest goes first;
    // otherwise the first chats in the map would take every freed slot and starve the rest.
    waiting.sort((a, b) => (a[1].waiters[0]?.seq ?? 0) - (b[1].waiters[0]?.seq ?? 0));
    for (const [chatId, chat] of waiting) {
      const at = Math.max(this.readyAt(chatId, chat), this.globalReadyAt(now));
      if (at > now) {
        next = Math.min(next, at);
        continue;
      }
      chat.sends.push(now);
      this.globalSends.push(now);
      chat.waiters.shift()?.resolve();
      if (chat.waiters.length > 0) {
        next = Math.min(next, Math.max(this.readyAt(chatId, chat), this.globalReadyAt(now)));
      }
    }
    this.schedule(next);
  }

  private schedule(at: number): void {
    if (at === Number.POSITIVE_INFINITY || at >= this.timerAt) return;
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(
      () => {
        this.timer = undefined;
        this.timerAt = Number.POSITIVE_INFINITY;
        this.dispatch();
      },
      Math.max(0, at - this.now()),
    );
  }
}
