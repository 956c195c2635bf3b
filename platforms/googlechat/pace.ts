/**
 * Google Chat's write pace: the shared scheduler (src/pace.ts) with the Chat API's published quotas
 * (developers.google.com/workspace/chat/limits): 60 writes a minute per space (shared by every app
 * in it), 3,000 message writes a minute per project; a lane is one space. Writes are spread to at
 * most one a second per space so a burst does not trip the backend's shorter-window checks, and
 * counted from the platform's answer (`fromAnswer`). A 429 holds the space (or everything).
 */
import { type PaceRules, SendPace } from '../../src/pace.ts';

/** The quotas; tests and the bench pass smaller windows so nothing waits for real. */
export interface GooglechatPaceOptions {
  /** Writes per space within spaceWindowMs. */
  spaceLimit: number;
  spaceWindowMs: number;
  /** Least time between two writes to one space. */
  spaceIntervalMs: number;
  /** Message writes per project within projectWindowMs. */
  projectLimit: number;
  projectWindowMs: number;
}

export const GOOGLECHAT_DEFAULT_PACE: GooglechatPaceOptions = {
  spaceLimit: 60,
  spaceWindowMs: 60_000,
  spaceIntervalMs: 1_000,
  projectLimit: 3_000,
  projectWindowMs: 60_000,
};

/** The pace rules for the Chat API's quotas. */
export function googlechatPaceRules(options: Partial<GooglechatPaceOptions> = {}): PaceRules {
  const o = { ...GOOGLECHAT_DEFAULT_PACE, ...options };
  return {
    lane: [
      { limit: 1, windowMs: o.spaceIntervalMs },
      { limit: o.spaceLimit, windowMs: o.spaceWindowMs },
    ],
    global: [{ limit: o.projectLimit, windowMs: o.projectWindowMs }],
    fromAnswer: true,
    // Progress edits fill at most three quarters of a space's minute: a new card always has room.
    lowShare: 0.75,
  };
}

/** Hands out write slots per space. */
export class GooglechatPace extends SendPace {
  readonly options: GooglechatPaceOptions;
  constructor(options: Partial<GooglechatPaceOptions> = {}, now: () => number = Date.now) {
    super(googlechatPaceRules(options), now, 'google chat write pace');
    this.options = { ...GOOGLECHAT_DEFAULT_PACE, ...options };
  }
}
