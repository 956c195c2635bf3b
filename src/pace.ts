/**
 * One send scheduler for every adapter whose platform limits how fast a bot may send: each send
 * waits for its slot under per-lane windows (a chat, a channel, a conversation), optional windows
 * for some lanes only (Telegram groups), and windows over all lanes together. Lanes do not block
 * each other and each keeps its own order; while a shared window binds, the send that has waited
 * longest goes first. A 429's Retry-After holds a lane (or everything) for that long. The pace is
 * per process: replicas each keep their own, and the adapters' 429 handling covers the rest.
 * Each platform configures it from its published limits (see /work/shared/PLATFORMS.md).
 *
 * A platform counts a send when it arrives, somewhere between our grant and its answer. Counted from
 * the grant, two sends spaced exactly one window apart can arrive closer than that when the first
 * one is delayed on the way (a busy event loop, a slow connection), and the platform answers 429.
 * With `fromAnswer`, a lane's send holds its slot until the platform answered and counts from then,
 * so the platform never sees a lane's sends closer than its windows, whatever the delays.
 *
 * Sends have a priority: `high` (a new card, a final edit) goes before `low` (progress, notices) in
 * its lane, and with `lowShare` low sends may only fill that share of each window, so a chat busy
 * with progress always has room for a new card. A send with a `key` (one message) replaces the
 * send of that key still waiting: only the latest edit of a message is sent.
 */

/** At most `limit` sends within any `windowMs`. */
export interface PaceWindow {
  limit: number;
  windowMs: number;
}

/** Which windows apply where. */
export interface PaceRules {
  /** Windows each lane keeps on its own. */
  lane: readonly PaceWindow[];
  /** More windows for the lanes `applies` picks (e.g. Telegram groups: 20 a minute). */
  group?: { windows: readonly PaceWindow[]; applies: (lane: string) => boolean };
  /** Windows over every lane together (e.g. Telegram's 30 a second per bot). */
  global?: readonly PaceWindow[];
  /**
   * Count each lane's send from the platform's answer instead of the grant (see above). The sender
   * must then call the release `acquire` resolves to once the platform answered or the send failed.
   */
  fromAnswer?: boolean;
  /** The share of each window (0..1) low-priority sends may fill; default 1 (no room kept). */
  lowShare?: number;
}

/** How urgent a send is: new cards and final edits are high, progress and notices low. */
export type PacePriority = 'high' | 'low';

/** What `slot` is asked for. */
export interface SlotRequest {
  priority?: PacePriority;
  /** The message the send edits: a later request with this key replaces this one while it waits. */
  key?: string;
}

/** Called once the platform answered a send (or the send failed); frees its slot in `fromAnswer` paces. */
export type PaceRelease = () => void;

const NOTHING_TO_RELEASE: PaceRelease = () => {};

/** A lane's send still out in a `fromAnswer` pace: its slot is taken until the answer. */
const OUT = Number.POSITIVE_INFINITY;

interface Waiter {
  seq: number;
  low: boolean;
  key: string | undefined;
  /** `false`: the send was replaced by a later one of its key (nothing to send). */
  resolve: (go: boolean) => void;
  reject: (err: Error) => void;
}

interface Lane {
  /** Waiting sends, high before low, oldest first; `seq` orders them across lanes. */
  waiters: Waiter[];
  /** Recent send times, oldest first (OUT for sends not answered yet, always last). */
  sends: number[];
  /** No send before this time (set after a 429). */
  holdUntil: number;
  windows: readonly PaceWindow[];
  /** The same windows with the limits low-priority sends may fill. */
  lowWindows: readonly PaceWindow[];
}

/** The windows low-priority sends may fill: `share` of each limit (a limit of 1 stays 1). */
function lowWindowsOf(windows: readonly PaceWindow[], share: number): PaceWindow[] {
  return windows.map((w) => ({
    limit: w.limit <= 1 ? w.limit : Math.max(1, Math.floor(w.limit * share)),
    windowMs: w.windowMs,
  }));
}

/** The earliest time one more send fits `windows`, given past `sends` (oldest first). */
function fitsAt(sends: readonly number[], windows: readonly PaceWindow[]): number {
  let at = Number.NEGATIVE_INFINITY;
  for (const { limit, windowMs } of windows) {
    if (sends.length < limit) continue;
    const oldest = sends[sends.length - limit];
    if (oldest !== undefined) at = Math.max(at, oldest + windowMs);
  }
  return at;
}

function longest(windows: readonly PaceWindow[]): number {
  return Math.max(0, ...windows.map((w) => w.windowMs));
}

/** Puts a waiter in line: high before low, each by its sequence number. */
function insertWaiter(waiters: Waiter[], w: Waiter): void {
  let i = waiters.length;
  while (i > 0 && order(waiters[i - 1]) > order(w)) i--;
  waiters.splice(i, 0, w);
}

/** The order of a waiter in line (high sends before every low one). */
function order(w: Waiter | undefined): number {
  if (!w) return 0;
  return w.low ? w.seq + Number.MAX_SAFE_INTEGER / 2 : w.seq;
}

/** Hands out send slots; `acquire` resolves when the caller may send. */
export class SendPace {
  private readonly lanes = new Map<string, Lane>();
  private readonly globalSends: number[] = [];
  private readonly globalWindows: readonly PaceWindow[];
  private readonly globalLowWindows: readonly PaceWindow[];
  private globalHoldUntil = 0;
  private timer: NodeJS.Timeout | undefined;
  private timerAt = Number.POSITIVE_INFINITY;
  private closed = false;
  private seq = 0;

  constructor(
    private readonly rules: PaceRules,
    private readonly now: () => number = Date.now,
    /** Names the pace in the error a closed pace rejects with. */
    private readonly name = 'send pace',
  ) {
    this.globalWindows = rules.global ?? [];
    this.globalLowWindows = lowWindowsOf(this.globalWindows, rules.lowShare ?? 1);
  }

  /**
   * Waits for the next slot of `lane`; rejects once the pace is closed. Resolves to the release to
   * call when the platform answered (a no-op unless the pace counts `fromAnswer`).
   */
  async acquire(lane: string, priority: PacePriority = 'high'): Promise<PaceRelease> {
    return (await this.slot(lane, { priority })) ?? NOTHING_TO_RELEASE;
  }

  /**
   * As `acquire`, with a priority and a key: resolves to null when a later request of the same key
   * replaced this one while it waited (it then takes this one's place in the line).
   */
  slot(lane: string, request: SlotRequest = {}): Promise<PaceRelease | null> {
    if (this.closed) return Promise.reject(new Error(`${this.name} is closed`));
    const state = this.lane(lane);
    const low = request.priority === 'low';
    const replaced = request.key ? state.waiters.findIndex((w) => w.key === request.key) : -1;
    const old = replaced >= 0 ? state.waiters.splice(replaced, 1)[0] : undefined;
    const seq = old ? old.seq : this.seq++;
    const done = new Promise<boolean>((resolve, reject) =>
      insertWaiter(state.waiters, { seq, low, key: request.key, resolve, reject }),
    );
    old?.resolve(false);
    this.dispatch();
    return done.then((go) => {
      if (!go) return null;
      if (!this.rules.fromAnswer) return NOTHING_TO_RELEASE;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        this.answered(lane);
      };
    });
  }

  /** Runs `send` in `lane`'s order once its slot comes (and releases the slot when it settles). */
  async run<T>(lane: string, send: () => Promise<T>): Promise<T> {
    const release = await this.acquire(lane);
    try {
      return await send();
    } finally {
      release();
    }
  }

  /** Keeps `lane` quiet for `ms` (the platform answered 429 with Retry-After). */
  hold(lane: string, ms: number): void {
    const state = this.lane(lane);
    state.holdUntil = Math.max(state.holdUntil, this.now() + ms);
  }

  /** Keeps every lane quiet for `ms` (a 429 that covers the whole bot or method). */
  holdAll(ms: number): void {
    this.globalHoldUntil = Math.max(this.globalHoldUntil, this.now() + ms);
  }

  /** Rejects every waiting send and stops the timer. */
  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    for (const lane of this.lanes.values()) {
      for (const waiter of lane.waiters.splice(0)) {
        waiter.reject(new Error(`${this.name} is closed`));
      }
    }
    this.lanes.clear();
  }

  /** A send of `key` was answered: its slot counts from now, and the lane may move on. */
  private answered(key: string): void {
    const lane = this.lanes.get(key);
    const out = lane ? lane.sends.indexOf(OUT) : -1;
    if (!lane || out < 0) return;
    lane.sends.splice(out, 1);
    // Every other time is a grant or an answer before now: now goes right before the sends still out.
    const now = this.now();
    const at = lane.sends.indexOf(OUT);
    lane.sends.splice(at < 0 ? lane.sends.length : at, 0, now);
    this.dispatch();
  }

  private lane(key: string): Lane {
    let lane = this.lanes.get(key);
    if (!lane) {
      const group = this.rules.group?.applies(key) ? this.rules.group.windows : [];
      const windows = [...this.rules.lane, ...group];
      const lowWindows = lowWindowsOf(windows, this.rules.lowShare ?? 1);
      lane = { waiters: [], sends: [], holdUntil: 0, windows, lowWindows };
      this.lanes.set(key, lane);
    }
    return lane;
  }

  /** The earliest time `lane`'s next waiting send may go, ignoring the global windows. */
  private readyAt(lane: Lane): number {
    const low = lane.waiters[0]?.low ?? false;
    return Math.max(lane.holdUntil, fitsAt(lane.sends, low ? lane.lowWindows : lane.windows));
  }

  private globalReadyAt(now: number, low: boolean): number {
    const keep = longest(this.globalWindows);
    while (this.globalSends.length > 0 && (this.globalSends[0] as number) + keep <= now) {
      this.globalSends.shift();
    }
    const windows = low ? this.globalLowWindows : this.globalWindows;
    return Math.max(now, this.globalHoldUntil, fitsAt(this.globalSends, windows));
  }

  private dispatch(): void {
    if (this.closed) return;
    const now = this.now();
    let next = Number.POSITIVE_INFINITY;
    const waiting: Lane[] = [];
    for (const [key, lane] of this.lanes) {
      const keep = longest(lane.windows);
      while (lane.sends.length > 0 && (lane.sends[0] as number) + keep <= now) lane.sends.shift();
      if (lane.waiters.length > 0) waiting.push(lane);
      else if (lane.sends.length === 0 && lane.holdUntil <= now) this.lanes.delete(key);
    }
    // While a global window binds, high sends first, then the lane whose oldest send has waited
    // longest; otherwise the first lanes in the map would take every freed slot and starve the rest.
    waiting.sort((a, b) => order(a.waiters[0]) - order(b.waiters[0]));
    const readyAt = (lane: Lane) =>
      Math.max(this.readyAt(lane), this.globalReadyAt(now, lane.waiters[0]?.low ?? false));
    for (const lane of waiting) {
      const at = readyAt(lane);
      if (at > now) {
        next = Math.min(next, at);
        continue;
      }
      lane.sends.push(this.rules.fromAnswer ? OUT : now);
      this.globalSends.push(now);
      lane.waiters.shift()?.resolve(true);
      if (lane.waiters.length > 0) next = Math.min(next, readyAt(lane));
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
