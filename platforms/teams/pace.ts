/**
 * A small per-conversation send scheduler. Teams throttles each bot per conversation (7 in 1 s,
 * 8 in 2 s, 60 in 30 s, 1800 an hour) and answers 429 beyond that; pacing our own sends keeps a
 * burst of cards and edits inside those windows instead of collecting 429s. Conversations do not
 * block each other, and each keeps its own order. The pace is per process: replicas each keep
 * their own (the backoff in transport.ts covers the rest).
 */

/** At most `limit` sends within any `windowMs`. */
export interface PaceWindow {
  limit: number;
  windowMs: number;
}

/** Per bot per conversation, from Microsoft's "Rate limiting for bots in Teams". */
export const TEAMS_CONVERSATION_PACE: readonly PaceWindow[] = [
  { limit: 7, windowMs: 1000 },
  { limit: 8, windowMs: 2000 },
  { limit: 60, windowMs: 30_000 },
  { limit: 1800, windowMs: 3_600_000 },
];

/** Clock and sleep, injectable so that tests can see the waits without waiting. */
export interface PaceClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

const realClock: PaceClock = {
  now: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

interface Lane {
  /** Recent send times, oldest first (kept for the longest window). */
  sends: number[];
  /** The tail of this conversation's queue. */
  tail: Promise<void>;
}

/** Hands out send slots per conversation; `run` waits for a slot, then calls `send`. */
export class ConversationPace {
  private readonly lanes = new Map<string, Lane>();
  private readonly longest: number;

  constructor(
    private readonly windows: readonly PaceWindow[] = TEAMS_CONVERSATION_PACE,
    private readonly clock: PaceClock = realClock,
  ) {
    this.longest = Math.max(0, ...windows.map((w) => w.windowMs));
  }

  /** Runs `send` in `conversation`'s order once every window has room. */
  run<T>(conversation: string, send: () => Promise<T>): Promise<T> {
    const lane = this.lane(conversation);
    const turn = lane.tail.then(() => this.waitForSlot(lane));
    // The next caller waits for this slot to be taken, not for this send to finish.
    lane.tail = turn.catch(() => undefined);
    return turn.then(send);
  }

  private lane(conversation: string): Lane {
    let lane = this.lanes.get(conversation);
    if (!lane) {
      lane = { sends: [], tail: Promise.resolve() };
      this.lanes.set(conversation, lane);
    }
    return lane;
  }

  private async waitForSlot(lane: Lane): Promise<void> {
    for (;;) {
      const now = this.clock.now();
      while (lane.sends.length && (lane.sends[0] ?? 0) <= now - this.longest) lane.sends.shift();
      const wait = this.delayFor(lane.sends, now);
      if (wait <= 0) {
        lane.sends.push(now);
        return;
      }
      await this.clock.sleep(wait);
    }
  }

  /** How long until every window admits one more send at `now`. */
  private delayFor(sends: number[], now: number): number {
    let wait = 0;
    for (const { limit, windowMs } of this.windows) {
      const inWindow = sends.filter((t) => t > now - windowMs);
      if (inWindow.length >= limit) {
        // The send that must leave the window before there is room again.
        const oldest = inWindow[inWindow.length - limit] ?? now;
        wait = Math.max(wait, oldest + windowMs - now);
      }
    }
    return wait;
  }
}
