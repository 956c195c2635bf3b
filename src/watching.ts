/**
 * Everything that watches a case besides the poll loop, wired together: the SSE client, the
 * callback receiver and reminders, plus the hooks through which the poll loop consults them.
 */
import type { HttpRoute } from './adapter.ts';
import { type EscalationHost, escalateDue } from './cases/escalate.ts';
import { nextEscalation } from './policy/escalation.ts';
import { confirmByPoll } from './service-client/confirm-by-poll.ts';
import type { StoredCase } from './store/types.ts';
import { type FinalAnswerDeps, finalAnswerDue } from './tap/final-answer.ts';
import { type CallbackDeps, callbackRoute } from './watch/callback-receiver.ts';
import { ExpiryWarnings, type ExpiryWarningsDeps } from './watch/expiry-warnings.ts';
import { Reminders, type RemindersDeps } from './watch/reminders.ts';
import { type EventStreamOptions, EventStreams, type EventStreamsDeps } from './watch/sse.ts';
import type { WatchHooks } from './watch/watcher.ts';

/** What watching touches: what each of its parts does. */
export type WatchingDeps = RemindersDeps &
  ExpiryWarningsDeps &
  EventStreamsDeps &
  CallbackDeps &
  EscalationHost &
  FinalAnswerDeps;

/** The watching parts of a relay. */
export interface Watching {
  streams: EventStreams;
  reminders: Reminders;
  warnings: ExpiryWarnings;
  /** `POST <callbackPath>`. */
  callbackRoute: HttpRoute;
  /** What the poll loop asks after each look at a case. */
  hooks: WatchHooks;
  start(): void;
  stop(): Promise<void>;
}

/** Creates the SSE client, the callback receiver, reminders and expiry warnings for `deps`. */
export function createWatching(
  deps: WatchingDeps,
  options: EventStreamOptions = {},
  closeOwnAsk?: FinalAnswerDeps['closeOwnAsk'],
): Watching {
  const finalDeps: FinalAnswerDeps = { ...pickFinal(deps), ...(closeOwnAsk && { closeOwnAsk }) };
  const reminders = new Reminders(deps);
  const warnings = new ExpiryWarnings(deps);
  const streams = new EventStreams(deps, reminders, options);
  const confirm = confirmer(deps);
  const route = callbackRoute(deps, (c, e) => {
    if (e.kind === 'reminder') {
      void reminders.fromEvent(c.id, e).catch(() => {});
      return;
    }
    // An event name the spec does not have: nothing to look at.
    if (e.kind === 'unknown') return;
    confirm(c.id);
  });
  const onIngested = (c: StoredCase) => {
    void reminders
      .scheduleFirst(c, earliest(nextEscalation(c), warnings.next(c)))
      .catch((err) =>
        deps.log.warn({ case: c.id, err: String(err) }, 'scheduling a reminder failed'),
      );
    // A new round names its earlier one: only that case's service can say it was revised (its
    // poll naming this case as next_case_id), so it is asked now, final or not.
    if (c.doc.previous_id) confirm(c.doc.previous_id);
  };
  return {
    streams,
    reminders,
    warnings,
    callbackRoute: route,
    hooks: {
      async afterCheck(c) {
        await reminders.sendDue(c);
        await warnings.sendDue(c);
        await escalateDue(deps, c);
        await finalAnswerDue(finalDeps, c);
        await streams.consider(c);
      },
      streaming: (c) => streams.healthy(c),
      wakeAt: (c) => earliest(earliest(reminders.next(c), nextEscalation(c)), warnings.next(c)),
    },
    start() {
      deps.cases.events.on('ingested', onIngested);
      streams.start();
    },
    async stop() {
      deps.cases.events.off('ingested', onIngested);
      await streams.stop();
    },
  };
}

/** Starts a confirming poll of a case: one per case at a time, however many pushes ask for it. */
function confirmer(deps: WatchingDeps): (id: string) => void {
  const confirming = new Set<string>();
  return (id) => {
    if (confirming.has(id)) return;
    confirming.add(id);
    void confirmByPoll(deps, id)
      .catch((err) => deps.log.warn({ case: id, err: String(err) }, 'confirming poll failed'))
      .finally(() => confirming.delete(id));
  };
}

function pickFinal(d: WatchingDeps): FinalAnswerDeps {
  return { store: d.store, cases: d.cases, log: d.log, now: d.now };
}

function earliest(a: number | undefined, b: number | undefined): number | undefined {
  return a === undefined ? b : b === undefined ? a : Math.min(a, b);
}
