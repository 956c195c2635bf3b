/** The case lifecycle: every status change goes through here, is stored with its event, then published. */
import type { Logger } from '../log.ts';
import type { CallbackSender } from './callbacks.ts';
import type { EventHub } from './hub.ts';
import { type DemoStore, reminderTimes, type StoredCase } from './store.ts';
import type {
  DemoCase,
  Progress,
  ReviewEvent,
  ReviewEventName,
  ReviewResult,
  SubmissionContext,
} from './types.ts';
import { TERMINAL_STATUSES } from './types.ts';

/** Why a transition did not happen. */
export type TransitionFailure = 'not_found' | 'terminal' | 'not_allowed';

/** The outcome of a transition. */
export type TransitionOutcome =
  | { ok: true; kase: DemoCase }
  | { ok: false; reason: TransitionFailure; kase?: DemoCase };

/** The longest the scheduler sleeps, so a clock that jumps (or an injected one) is noticed soon. */
const MAX_TIMER_MS = 1_000;

type Pending = Array<{ event: ReviewEventName; data: Record<string, unknown> }>;

/** Owns transitions, the expiry/reminder scheduler and event publication. */
export class DemoEngine {
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    private readonly deps: {
      store: DemoStore;
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
  insert(kase: DemoCase, reviewHash: Buffer, submitHash: Buffer | null): void {
    this.deps.store.insert(kase, reviewHash, submitHash);
    this.schedule();
  }

  /** Applies any expiry or reminder that is due, then returns the case as it now stands. */
  refresh(caseId: string): StoredCase | undefined {
    const stored = this.deps.store.get(caseId);
    if (!stored || TERMINAL_STATUSES.has(stored.kase.status)) return stored;
    const now = this.deps.now();
    const expires = Date.parse(stored.kase.expires_at);
    const times = reminderTimes(stored.kase);
    const reminderDue = (times[stored.kase.reminders_done] ?? Number.POSITIVE_INFINITY) <= now;
    if (now < expires && !reminderDue) return stored;
    this.mutate(caseId, (kase, events) => {
      if (now >= expires) {
        // The case expired when its time ran out, not when somebody happened to look.
        expireCase(kase, kase.expires_at, events);
        return true;
      }
      while ((times[kase.reminders_done] ?? Number.POSITIVE_INFINITY) <= now) {
        const at = times[kase.reminders_done]!;
        kase.reminders_done += 1;
        // Spec 8.5: reminders only while nobody has started on the review.
        if (kase.status === 'pending' || kase.status === 'opened') remind(kase, at, now, events);
      }
      return true;
    });
    return this.deps.store.get(caseId);
  }

  /** pending -> opened (the review page was loaded). */
  open(caseId: string): TransitionOutcome {
    return this.transition(caseId, (kase, events) => {
      if (kase.status !== 'pending') return true;
      openCase(kase, this.nowIso(), events);
      return true;
    });
  }

  /** -> in_progress, recording form progress. */
  progress(caseId: string, progress: Progress | undefined): TransitionOutcome {
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
  complete(
    caseId: string,
    answer: {
      result: ReviewResult;
      responded_by?: { name?: string; email?: string };
      submission_context: SubmissionContext;
      next_case_id?: string;
    },
  ): TransitionOutcome {
    return this.transition(caseId, (kase, events) => {
      kase.status = 'completed';
      kase.completed_at = this.nowIso();
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
      return true;
    });
  }

  /** -> cancelled (the human gave up on the review). */
  cancel(caseId: string, reason: string): TransitionOutcome {
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

  /** -> expired now, ahead of expires_at (test controls). */
  expireNow(caseId: string): TransitionOutcome {
    return this.transition(caseId, (kase, events) => {
      expireCase(kase, this.nowIso(), events);
      return true;
    });
  }

  /** Emits a reminder now (test controls); only while pending or opened. */
  remindNow(caseId: string): TransitionOutcome {
    return this.transition(caseId, (kase, events) => {
      if (kase.status !== 'pending' && kase.status !== 'opened') return false;
      const now = this.deps.now();
      remind(kase, now, now, events);
      return true;
    });
  }

  /** Records a link to a later case in the chain (no event: the case itself did not change state). */
  linkNext(caseId: string, nextCaseId: string): void {
    const stored = this.deps.store.get(caseId);
    if (!stored || stored.kase.next_case_id) return;
    stored.kase.next_case_id = nextCaseId;
    this.deps.store.update(stored.kase);
  }

  /** Stops the scheduler. */
  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** (Re)arms the one timer for the earliest expiry or reminder. */
  schedule(): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const next = this.deps.store.nextDue();
    if (next === null) return;
    const delay = Math.min(
      Math.max(next - this.deps.now(), 0),
      this.deps.maxTimerMs ?? MAX_TIMER_MS,
    );
    this.timer = setTimeout(() => this.sweep(), delay);
    this.timer.unref();
  }

  private sweep(): void {
    this.timer = undefined;
    try {
      for (const id of this.deps.store.dueCases(this.deps.now())) this.refresh(id);
    } catch (error) {
      this.deps.log.error({ err: (error as Error).message }, 'demo scheduler sweep failed');
    }
    this.schedule();
  }

  /** A transition from a non-terminal state; refuses terminal cases. */
  private transition(
    caseId: string,
    apply: (kase: DemoCase, events: Pending) => boolean,
  ): TransitionOutcome {
    const stored = this.refresh(caseId);
    if (!stored) return { ok: false, reason: 'not_found' };
    if (TERMINAL_STATUSES.has(stored.kase.status)) {
      return { ok: false, reason: 'terminal', kase: stored.kase };
    }
    const kase = this.mutate(caseId, apply);
    if (!kase) return { ok: false, reason: 'not_allowed', kase: stored.kase };
    return { ok: true, kase };
  }

  /** Loads, changes, stores the case and its events in one transaction, then publishes them. */
  private mutate(
    caseId: string,
    apply: (kase: DemoCase, events: Pending) => boolean,
  ): DemoCase | undefined {
    const { store } = this.deps;
    const saved = store.transaction(() => {
      const stored = store.get(caseId);
      if (!stored) return undefined;
      const events: Pending = [];
      if (!apply(stored.kase, events)) return undefined;
      store.update(stored.kase);
      const written = events.map((e) => store.appendEvent(caseId, e.event, e.data));
      return { kase: stored.kase, written };
    });
    if (!saved) return undefined;
    for (const event of saved.written) this.publish(saved.kase, event);
    this.schedule();
    return saved.kase;
  }

  private publish(kase: DemoCase, event: ReviewEvent): void {
    this.deps.log.info({ case_id: kase.case_id, event: event.event }, 'demo case event');
    this.deps.hub.publish(event);
    const terminal =
      event.event === 'review.completed' ||
      event.event === 'review.expired' ||
      event.event === 'review.cancelled';
    if (terminal && kase.callback_url) this.deps.callbacks.send(kase.callback_url, event);
  }
}

function openCase(kase: DemoCase, at: string, events: Pending): void {
  kase.status = 'opened';
  kase.opened_at = at;
  events.push({ event: 'review.opened', data: { case_id: kase.case_id, opened_at: at } });
}

function expireCase(kase: DemoCase, at: string, events: Pending): void {
  kase.status = 'expired';
  kase.expired_at = at;
  events.push({
    event: 'review.expired',
    data: { case_id: kase.case_id, expired_at: at, default_action: kase.default_action },
  });
}

function remind(kase: DemoCase, atMs: number, nowMs: number, events: Pending): void {
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
