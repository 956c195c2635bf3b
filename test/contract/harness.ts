/** What a platform's test harness gives the shared adapter contract suite. */
import type { MessageRef, PlatformAdapter, TapUser } from '../../src/adapter.ts';

/** A message as the fake platform holds it. */
export interface SeenMessage {
  /** The message text as the platform would show it (markup included). */
  text: string;
  /** Protocol action names of the inline (non-link) buttons, in order. */
  actions: string[];
  /** The URL of the Details link button, or null. */
  link: string | null;
}

/**
 * How the world can change under a card, each through the fake platform answering with the
 * platform's own errors afterwards.
 */
export interface WorldControls {
  /** A person deletes the message at `ref`. */
  deleteMessage(ref: MessageRef): void;
  /** The bot is removed from the harness target's chat (kicked, uninstalled). */
  removeBot(): void;
  /** The target's channel is archived (platforms that have archiving). */
  archive?(): void;
  /** The target's chat moves to a new id (Telegram: a group becomes a supergroup); returns it. */
  migrate?(): string;
}

/** One platform, faked, with its real adapter pointed at the fake. */
export interface AdapterHarness {
  /** The adapter under test, configured against the fake platform server. */
  adapter: PlatformAdapter;
  /** A full target string for cases, e.g. "telegram:-100123". */
  target: string;
  /** A person on the target's allowlist and one who is not, in the platform's id format. */
  users: { allowed: TapUser; stranger: TapUser };
  /**
   * The platform's window for the first answer to a tap, in ms (Slack's ack and Discord's
   * interaction response: 3 s); absent when the platform has none to assert.
   */
  answerWindowMs?: number;
  /** True when the platform shows a native confirm dialog, so one tap on an irreversible action arrives confirmed. */
  nativeConfirm: boolean;
  /**
   * False for a platform whose sent messages cannot be edited (WhatsApp). The contract then holds
   * it to the follow-up rule instead of "the card ends with no buttons": a case's end is one reply
   * quoting the card that states the outcome, and a later tap on the card is answered "already
   * decided" with nothing submitted. Absent: cards are edited in place.
   */
  edits?: false;
  /** With `edits: false`: the messages that reply to (quote) the card at `ref`, in posting order. */
  replies?(ref: MessageRef): Promise<SeenMessage[]>;
  /** Present when the fake can change the world under a card. */
  world?: WorldControls;
  /** Reads back the message at `ref` from the fake platform. */
  read(ref: MessageRef): Promise<SeenMessage>;
  /** Every message (ref) the fake holds for `address`, in posting order. */
  messages(address: string): Promise<MessageRef[]>;
  /**
   * Delivers a tap on the button for `action` of the message at `ref`, exactly as the platform
   * would (a real update / signed request, to the relay at `relayUrl` for webhook modes).
   * Resolves when the platform would have finished delivering it; returns what the person was shown
   * (toast, ephemeral message), or null.
   */
  tap(args: { ref: MessageRef; action: string; user: TapUser; relayUrl: string }): Promise<{
    notice: string | null;
    /**
     * For platforms with an answer window (Slack's 3 s ack, Discord's 3 s interaction response):
     * how long the platform waited for the relay's first answer, in ms.
     */
    answerMs?: number;
  }>;
  /**
   * Called once the relay listens, before any case is sent (a harness may install the bot here,
   * e.g. Teams' conversationUpdate, or learn where the relay is).
   */
  attach?(relayUrl: string): Promise<void>;
  /** Raw bodies of every request the fake platform received (for secret scans). */
  requests(): string[];
  close(): Promise<void>;
}

/** Builds a fresh harness (fake server started, adapter created but not started). */
export type MakeHarness = () => Promise<AdapterHarness>;
