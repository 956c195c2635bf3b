/**
 * Teams' send pace: the shared scheduler (src/pace.ts) with Teams' per-conversation limits. Teams
 * throttles each bot per conversation (7 in 1 s, 8 in 2 s, 60 in 30 s, 1800 an hour) and answers
 * 429 beyond that; pacing our own sends keeps a burst of cards and edits inside those windows
 * instead of collecting 429s (the backoff in transport.ts covers the rest).
 */
import { type PaceWindow, SendPace } from '../../src/pace.ts';

export type { PaceWindow } from '../../src/pace.ts';

/** Per bot per conversation, from Microsoft's "Rate limiting for bots in Teams". */
export const TEAMS_CONVERSATION_PACE: readonly PaceWindow[] = [
  { limit: 7, windowMs: 1000 },
  { limit: 8, windowMs: 2000 },
  { limit: 60, windowMs: 30_000 },
  { limit: 1800, windowMs: 3_600_000 },
];

/** Clock and sleep, injectable so that tests can see the retry waits without waiting. */
export interface PaceClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

/** Hands out send slots per conversation; `run` waits for a slot, then calls `send`. */
export class ConversationPace {
  private readonly pace: SendPace;

  constructor(
    windows: readonly PaceWindow[] = TEAMS_CONVERSATION_PACE,
    clock: Pick<PaceClock, 'now'> = { now: Date.now },
  ) {
    this.pace = new SendPace({ lane: windows }, () => clock.now(), 'teams send pace');
  }

  /** Runs `send` in `conversation`'s order once every window has room. */
  run<T>(conversation: string, send: () => Promise<T>): Promise<T> {
    return this.pace.run(conversation, send);
  }
}
