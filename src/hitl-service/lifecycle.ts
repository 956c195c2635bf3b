/** The case lifecycle: every status change goes through here, is stored with its event, then published. */
import type { Logger } from '../log.ts';
import type { Progress } from '../protocol/types.ts';
import type { CallbackSender } from './callback-sender.ts';
import type { EventHub } from './hub.ts';
import {
  dueAt,
  type NewEvent,
  reminderTimes,
  type ServiceStore,
  type StoredReview,
} from './service-store.ts';
import type {
  DefaultAction,
  ReviewCase,
  ReviewResult,
  StoredEvent,
  SubmissionContext,
} from './types.ts';
import { TERMINAL_STATUSES } from './types.ts';

/** Why a transition did not happen. */
export type TransitionFailure = 'not_found' | 'terminal' | 'not_allowed';

/** The outcome of a transition. */
export type TransitionOutcome =
  | { ok: true; kase: ReviewCase }
  | { ok: false; reason: TransitionFailure; kase?: ReviewCase };

/** The longest the scheduler sleeps, so a clock that jumps (or an injected one) is noticed soon. */
const MAX_TIMER_MS = 1_000;

/** Compare-and-set retries before a transition gives up (each loss means another writer won). */
const MAX_ATTEMPTS = 20;

type Pending = NewEvent[];

/** Changes a case in place and lists its events; false when nothing is to change. */
type Apply = (kase: ReviewCase, events: Pending) => boolean;

/**
 * Owns transitions, the expiry/reminder scheduler and event publication. Every change is a
 * compare-and-set on the case's version, so replicas sharing one store never both win: the loser
 * reads the case again and sees it changed (or final).
 */
export class CaseLifecycle {
  private timer: NodeJS.Timeout | undefined;
  /** When the armed timer fires (ms). */
  private firesAt = Number.POSITIVE_INFINITY;
  private stopped = false;

  constructor(
    private readonly deps: {
      store: ServiceStore;
      hub: EventHub;
      callbacks: CallbackSender;
      now: () => number;
      log: Logger;
      /** Upper bound of one scheduler sleep; tests with a hand-moved clock use a short one. */
      maxTimerMs?: number;
    },
  ) {}

  /** The current time as ISO 8601. */
  nowIso(): string {
    return new Date(this.deps.now()).toISOString();
  }

  /** Stores a new case and wakes the scheduler for its expiry and reminders. */
  async insert(kase: ReviewCase, reviewHash: Buffer, submitHash: Buffer | null): Promise<void> {
    await this.deps.store.insert(kase, reviewHash, submitHash);
    // A new case only adds a due moment: no store read, the timer moves only if it comes sooner.
    this.arm(dueAt(kase));
  }

  /** Applies any expiry or reminder that is due, then returns the case as it now stands. */
  async refresh(caseId: string): Promise<StoredReview | undefined> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const stored = await this.deps.store.get(caseId);
      if (!stored || TERMINAL_STATUSES.has(stored.kase.status)) return stored;
      const events: Pending = [];
      if (!applyDue(stored.kase, this.deps.now(), events)) return stored;
      const written = await this.deps.store.commit(stored.kase, stored.version, events);
      if (written) {
        this.published(stored.kase, written);
        return { ...stored, version: stored.version + 1 };
      }
    }
    throw new Error(`case ${caseId} kept changing under the scheduler`);
  }

  /** pending -> opened (the review page was loaded). */
  open(caseId: string): Promise<TransitionOutcome> {
    return this.transition(caseId, (kase, events) => {
      if (kase.status !== 'pending') return true;
      openCase(kase, this.nowIso(), events);
      return true;
    });
  }

  /** -> in_progress, recording form progress. */
  progress(caseId: string, progress: Progress | undefined): Promise<TransitionOutcome> {
    return this.transition(caseId, (kase, events) => {
      if (kase.status === 'pending') openCase(kase, this.nowIso(), events);
      kase.status = 'in_progress';
      if (progress && Object.keys(progress).length > 0) kase.progress = progress;
      const data: Record<string, unknown> = { case_id: kase.case_id, opened_at: kase.opened_at };
      if (kase.progress) data.progress = kase.progress;
      events.push({ event: 'review.in_progress', data });
      return true;
    });
  }

  /** -> completed with the human's answer. */
  complete(caseId: string, answer: RecordedAnswer): Promise<TransitionOutcome> {
    return this.transition(caseId, (kase, events) => {
      completeCase(kase, answer, this.nowIso(), events);
      return true;
    });
  }

  /** -> cancelled (the human gave up on the review). */
  cancel(caseId: string, reason: string): Promise<TransitionOutcome> {
    return this.transition(caseId, (kase, events) => {
      kase.status = 'cancelled';
      kase.cancelled_at = this.nowIso();
      kase.reason = reason;
      events.push({
        event: 'review.cancelled',
        data: { case_id: kase.case_id, cancelled_at: kase.cancelled_at, reason },
      });
      return true;
    });
  }

  /**
   * -> expired now, ahead of expires_at (test controls; an ask's escalation ladder ending), with
   * `defaultAction` as the timeout policy's answer when given.
   */
  expireNow(caseId: string, defaultAction?: DefaultAction): Promise<TransitionOutcome> {
    return this.transition(caseId, (kase, events) => {
      if (defaultAction) kase.default_action = defaultAction;
      expireCase(kase, this.nowIso(), events);
      return true;
    });
  }

  /** Emits a reminder now (test controls); only while pending or opened. */
  remindNow(caseId: string): Promise<TransitionOutcome> {
    return this.transition(caseId, (kase, events) => {
      if (kase.status !== 'pending' && kase.status !== 'opened') return false;
      const now = this.deps.now();
      remind(kase, now, now, events);
      return true;
    });
  }

  /** Records a link to a later case in the chain (no event: the case itself did not change state). */
  async linkNext(caseId: string, nextCaseId: string): Promise<void> {
    // A follow-up may be linked after the case ended (an agent-created next round).
    await this.change(
      caseId,
      (kase) => {
        if (kase.next_case_id) return false;
        kase.next_case_id = nextCaseId;
        return true;
      },
      true,
    );
  }

  /** Stops the scheduler. */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** (Re)arms the one timer for the earliest expiry or reminder (another replica's too). */
  schedule(): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.deps.store.nextDue().then(
      (next) => this.arm(next),
      (error: Error) => {
        if (this.stopped) return;
        this.deps.log.error({ err: error.message }, 'demo scheduler could not read its store');
        this.arm(this.deps.now() + (this.deps.maxTimerMs ?? MAX_TIMER_MS));
      },
    );
  }

  /** Arms the timer for `next` unless it is armed to fire sooner already. */
  private arm(next: number | null): void {
    if (this.stopped || next === null) return;
    const now = this.deps.now();
    const delay = Math.min(Math.max(next - now, 0), this.deps.maxTimerMs ?? MAX_TIMER_MS);
    if (this.timer && this.firesAt <= now + delay) return;
    if (this.timer) clearTimeout(this.timer);
    this.firesAt = now + delay;
    this.timer = setTimeout(() => void this.sweep(), delay);
    this.timer.unref();
  }

  private async sweep(): Promise<void> {
    this.timer = undefined;
    try {
      // Every replica sweeps; the compare-and-set picks one winner per due case, which publishes.
      for (const id of await this.deps.store.dueCases(this.deps.now())) await this.refresh(id);
    } catch (error) {
      // A store closed by a shutdown under a running sweep is no failure.
      if (!this.stopped)
        this.deps.log.error({ err: (error as Error).message }, 'demo scheduler sweep failed');
    }
    this.schedule();
  }

  /** A transition from a non-terminal state; refuses terminal cases. */
  private async transition(caseId: string, apply: Apply): Promise<TransitionOutcome> {
    if (!(await this.refresh(caseId))) return { ok: false, reason: 'not_found' };
    return this.change(caseId, apply);
  }

  /** Reads, changes and compare-and-sets the case with its events until it wins, then publishes. */
  private async change(caseId: string, apply: Apply, terminalToo = false) {
    const { store } = this.deps;
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const stored = await store.get(caseId);
      if (!stored) return { ok: false, reason: 'not_found' } as const;
      if (!terminalToo && TERMINAL_STATUSES.has(stored.kase.status))
        return { ok: false, reason: 'terminal', kase: stored.kase } as const;
      const before = JSON.stringify(stored.kase);
      const events: Pending = [];
      if (!apply(stored.kase, events))
        return {
          ok: false,
          reason: 'not_allowed',
          kase: JSON.parse(before) as ReviewCase,
        } as const;
      // Nothing changed (opening an opened case): no write, so no version for others to lose to.
      if (events.length === 0 && JSON.stringify(stored.kase) === before)
        return { ok: true, kase: stored.kase } as const;
      const written = await store.commit(stored.kase, stored.version, events);
      if (written) {
        this.published(stored.kase, written);
        return { ok: true, kase: stored.kase } as const;
      }
    }
    throw new Error(`case ${caseId} kept changing; giving up after ${MAX_ATTEMPTS} attempts`);
  }

  /** After a won commit: the events go out (SSE, callbacks) and the scheduler looks again. */
  private published(kase: ReviewCase, written: StoredEvent[]): void {
    for (const event of written) this.publish(kase, event);
    this.schedule();
  }

  private publish(kase: ReviewCase, event: StoredEvent): void {
    this.deps.log.info({ case_id: kase.case_id, event: event.event }, 'demo case event');
    this.deps.hub.wake(kase.case_id);
    const terminal =
      event.event === 'review.completed' ||
      event.event === 'review.expired' ||
      event.event === 'review.cancelled';
    // Only the commit's winner gets here, so each terminal callback is sent by one replica.
    if (terminal && kase.callback_url) this.deps.callbacks.send(kase.callback_url, event);
  }
}

/** The human's answer as complete() records it. */
export interface RecordedAnswer {
  result: ReviewResult;
  responded_by?: { name?: string; email?: string };
  submission_context: SubmissionContext;
  next_case_id?: string;
}

/** Applies an expiry or the reminders due at `now`; false when nothing is due. */
function applyDue(kase: ReviewCase, now: number, events: Pending): boolean {
  const expires = Date.parse(kase.expires_at);
  const times = reminderTimes(kase);
  const next = () => times[kase.reminders_done] ?? Number.POSITIVE_INFINITY;
  if (now < expires && next() > now) return false;
  if (now >= expires) {
    // The case expired when its time ran out, not when somebody happened to look.
    expireCase(kase, kase.expires_at, events);
    return true;
  }
  while (next() <= now) {
    const at = next();
    kase.reminders_done += 1;
    // Spec 8.5: reminders only while nobody has started on the review.
    if (kase.status === 'pending' || kase.status === 'opened') remind(kase, at, now, events);
  }
  return true;
}

function completeCase(kase: ReviewCase, answer: RecordedAnswer, at: string, events: Pending): void {
  kase.status = 'completed';
  kase.completed_at = at;
  kase.result = answer.result;
  if (answer.responded_by) kase.responded_by = answer.responded_by;
  kase.submission_context = answer.submission_context;
  if (answer.next_case_id) kase.next_case_id = answer.next_case_id;
  const data: Record<string, unknown> = {
    case_id: kase.case_id,
    completed_at: kase.completed_at,
    result: kase.result,
  };
  if (kase.next_case_id) data.next_case_id = kase.next_case_id;
  events.push({ event: 'review.completed', data });
}

function openCase(kase: ReviewCase, at: string, events: Pending): void {
  kase.status = 'opened';
  kase.opened_at = at;
  events.push({ event: 'review.opened', data: { case_id: kase.case_id, opened_at: at } });
}

function expireCase(kase: ReviewCase, at: string, events: Pending): void {
  kase.status = 'expired';
  kase.expired_at = at;
  events.push({
    event: 'review.expired',
    data: { case_id: kase.case_id, expired_at: at, default_action: kase.default_action },
  });
}

function remind(kase: ReviewCase, atMs: number, nowMs: number, events: Pending): void {
  kase.reminder_sent_at = new Date(nowMs).toISOString();
  const left = Math.max(0, Date.parse(kase.expires_at) - nowMs);
  events.push({
    event: 'review.reminder',
    data: {
      case_id: kase.case_id,
      reminder_at: new Date(atMs).toISOString(),
      message: `Review expires in ${describeDuration(left)}`,
    },
  });
}

/** "12 hours", "5 minutes", "30 seconds": the coarsest unit that fits. */
export function describeDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  const [n, unit] =
    s >= 86_400 && s % 86_400 === 0
      ? [s / 86_400, 'day']
      : s >= 3_600
        ? [Math.round(s / 3_600), 'hour']
        : s >= 60
          ? [Math.round(s / 60), 'minute']
          : [s, 'second'];
  return `${n} ${unit}${n === 1 ? '' : 's'}`;
}
