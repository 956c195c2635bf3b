/**
 * Reminders (spec 6 `reminder_at`, spec 8.5 `review.reminder`): while a case is pending or opened,
 * each reminder time brings it back to attention with a short reply in the thread of every card,
 * mentioning nobody and linking Details. A reminder is recorded in the case (compare-and-set) before
 * it is sent, so a restart or a second replica never sends it twice; a failed send is not repeated.
 */
import type { PlatformAdapter } from '../adapter.ts';
import type { CardRenderer } from '../cases/card-render.ts';
import { formatTime } from '../cases/render-case.ts';
import type { CaseRepository } from '../cases/repository.ts';
import type { Logger } from '../log.ts';
import type { CaseStatus } from '../protocol/types.ts';
import { type Strings, t } from '../render/templates.ts';
import type { Store } from '../store/store.ts';
import type { StoredCase } from '../store/types.ts';
import { noticeEveryCard, shorten } from './card-notices.ts';

/** Reminders go out only in these states (spec 6, 8.5). */
const REMINDABLE: ReadonlySet<CaseStatus> = new Set(['pending', 'opened']);

const MAX_PROMPT = 200;
const MAX_MESSAGE = 200;

/** The key a reminder is recorded under: its time as a normalised ISO string. */
export function reminderKey(at: string | number): string {
  const d = new Date(at);
  return Number.isNaN(d.getTime()) ? String(at) : d.toISOString();
}

/** The case's reminder_at times (one or a list), in ms, sorted; invalid entries are dropped. */
export function reminderTimes(c: StoredCase): number[] {
  const raw = c.doc.hitl.reminder_at;
  const list = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  return list
    .map((x) => Date.parse(x))
    .filter((x) => Number.isFinite(x))
    .sort((a, b) => a - b);
}

/** What reminders touch. */
export interface RemindersDeps {
  store: Pick<Store, 'updateWatch' | 'listMessages'>;
  cases: Pick<CaseRepository, 'mutate' | 'history'>;
  render: Pick<CardRenderer, 'detailsUrl'>;
  adapters: ReadonlyMap<string, PlatformAdapter>;
  strings: Strings;
  log: Logger;
  now: () => number;
}

/** Sends reminders and says when the next one is due. */
export class Reminders {
  constructor(private readonly deps: RemindersDeps) {}

  /** The next unsent reminder time of an open, remindable case, or undefined. */
  next(c: StoredCase): number | undefined {
    if (!REMINDABLE.has(c.status)) return undefined;
    const sent = new Set(c.doc.reminders_sent);
    return reminderTimes(c).find((at) => !sent.has(reminderKey(at)));
  }

  /** Sends one reminder for every reminder_at time that has come (several due at once make one message). */
  async sendDue(c: StoredCase): Promise<boolean> {
    if (!REMINDABLE.has(c.status)) return false;
    const now = this.deps.now();
    const sent = new Set(c.doc.reminders_sent);
    const due = reminderTimes(c)
      .filter((at) => at <= now)
      .map(reminderKey)
      .filter((k) => !sent.has(k));
    return due.length ? this.send(c.id, due, undefined) : false;
  }

  /** A `review.reminder` event (SSE or callback); the same reminder_at as a known time is sent once. */
  fromEvent(
    id: string,
    e: { reminder_at?: string | undefined; message?: string | undefined },
    eventId?: string,
  ): Promise<boolean> {
    const key = e.reminder_at
      ? reminderKey(e.reminder_at)
      : `event:${eventId ?? reminderKey(this.deps.now())}`;
    return this.send(id, [key], e.message);
  }

  /** Brings a new case's first look forward to its first reminder (or `alsoAt`) when that comes sooner. */
  async scheduleFirst(c: StoredCase, alsoAt?: number): Promise<void> {
    const reminder = this.next(c);
    const at =
      reminder === undefined
        ? alsoAt
        : alsoAt === undefined
          ? reminder
          : Math.min(reminder, alsoAt);
    if (at === undefined || c.next_check_at === null || at >= c.next_check_at) return;
    await this.deps.store.updateWatch(c.id, {
      next_check_at: Math.max(at, this.deps.now()),
      etag: c.etag,
      poll_failures: c.poll_failures,
    });
  }

  /** Records `keys` as sent (only while remindable and not sent before), then notifies every card. */
  private async send(id: string, keys: string[], message: string | undefined): Promise<boolean> {
    const e = this.deps;
    let fresh: string[] = [];
    const c = await e.cases.mutate(id, (x) => {
      if (!REMINDABLE.has(x.status)) return false;
      fresh = keys.filter((k) => !x.doc.reminders_sent.includes(k));
      if (!fresh.length) return false;
      x.doc.reminders_sent.push(...fresh);
      return true;
    });
    if (!c) return false;
    await e.cases.history(id, 'reminder', { at: fresh });
    const text = t(e.strings, 'reminder', {
      prompt: shorten(c.doc.hitl.prompt, MAX_PROMPT),
      message: message ? shorten(message, MAX_MESSAGE) : '',
      expires: formatTime(c.doc.hitl.expires_at),
    });
    const url = e.render.detailsUrl(c);
    const link = url ? { label: t(e.strings, 'link'), url } : null;
    await noticeEveryCard(e, id, text, link, 'reminder_failed');
    return true;
  }
}
