/**
 * The lifecycle log and the event metrics, fed from one place: every case event the services record
 * in a case's history (plus polls, edits and claim takeovers) becomes one log line and a counter.
 * Failures that their own code already logs at warn are only counted here.
 */
import type { CaseRepository } from './cases/repository.ts';
import type { Logger } from './log.ts';
import { isTerminal } from './protocol/types.ts';
import type { Metrics } from './server/metrics.ts';

type Detail = Record<string, unknown>;

/** Kinds whose warn line is written where they happen (card delivery, notify worker, reminders, give-up). */
const WARNED_ELSEWHERE = new Set([
  'post_failed',
  'notify_failed',
  'hitl_callback_failed',
  'reminder_failed',
  'expiry_warning_failed',
  'delivery_failed',
  'fanout',
  'sse_fallback',
]);
/** Kinds too frequent or too minor for info. */
const DEBUG_ONLY = new Set(['sse_event', 'callback', 'details_opened', 'tap_confirm_asked']);

const STATUS_CLASS: Record<string, string> = {
  accepted: '2xx',
  unauthorized: '4xx',
  forbidden: '4xx',
  rate_limited: '4xx',
};

/** The platform of a target ("telegram:-100…" → "telegram"). */
const platformOf = (target: unknown) =>
  typeof target === 'string' && target.includes(':')
    ? target.slice(0, target.indexOf(':'))
    : 'unknown';

/** What observing reads: the log to write and the case events to hear. */
export interface ObserveDeps {
  log: Logger;
  cases: Pick<CaseRepository, 'events'>;
}

/** A submit's log line and counter (by outcome and HTTP status class). */
function onSubmit(log: Logger, metrics: Metrics, base: Detail, d: Detail): void {
  const outcome = String(d.outcome);
  const status = typeof d.status === 'number' ? d.status : undefined;
  const statusClass = status ? `${Math.floor(status / 100)}xx` : (STATUS_CLASS[outcome] ?? 'none');
  metrics.submits.inc({ outcome, status_class: statusClass });
  const line = { ...base, target: d.target, action: d.action, outcome, status: status ?? null };
  if (outcome === 'accepted') log.info(line, 'submit accepted');
  else log.warn(line, `submit ${outcome}`);
}

/** Counts the kinds that have a counter; true when `kind` was one of them and is done. */
function counted(log: Logger, metrics: Metrics, base: Detail, kind: string, d: Detail): boolean {
  switch (kind) {
    case 'posted':
      metrics.posts.inc({ platform: platformOf(d.target), outcome: 'posted' });
      log.info({ ...base, target: d.target, outcome: 'posted' }, 'card posted');
      return true;
    case 'post_failed': {
      const platform = platformOf(d.target);
      metrics.posts.inc({ platform, outcome: d.will_retry ? 'retry' : 'failed' });
      if (/\(rate_limited\)/.test(String(d.error))) metrics.rateLimited.inc({ platform });
      return true;
    }
    case 'submit':
      onSubmit(log, metrics, base, d);
      return true;
    case 'notify_delivered':
      metrics.notifies.inc({ outcome: 'delivered' });
      log.info(
        { ...base, notify_event: d.event, attempts: d.attempts, outcome: 'delivered' },
        'notify delivered',
      );
      return true;
    case 'notify_failed':
      metrics.notifies.inc({ outcome: d.will_retry ? 'retry' : 'failed' });
      return true;
    case 'delivery_failed':
      metrics.notDelivered.inc({ when: 'after_intake' });
      return true;
    default:
      return false;
  }
}

/** One history row as a log line (and a counter where it has one). */
function onHistory(log: Logger, metrics: Metrics, id: string, kind: string, d: Detail): void {
  const base = { case: id, event: kind };
  if (counted(log, metrics, base, kind, d)) return;
  switch (kind) {
    case 'ingested':
      log.info({ ...base, target: d.target, case_id: d.case_id }, 'case ingested');
      return;
    case 'tap':
      log.info({ ...base, target: d.target, user: d.user, action: d.action }, 'tap');
      return;
    case 'tap_refused':
      log.info({ ...base, target: d.target, user: d.user, reason: d.reason }, 'tap refused');
      return;
    case 'status': {
      const to = String(d.to);
      const line = { ...base, from: d.from, to, source: d.source, action: d.action ?? null };
      log.info(line, isTerminal(to as never) ? `case final: ${to}` : `status ${d.from} -> ${to}`);
      return;
    }
    default:
      if (WARNED_ELSEWHERE.has(kind)) return;
      if (DEBUG_ONLY.has(kind)) log.debug(base, kind);
      else log.info(base, kind.replace(/_/g, ' '));
  }
}

/** Subscribes the lifecycle log and the metrics to the case events. */
export function observe(deps: ObserveDeps, metrics: Metrics): void {
  const { log } = deps;
  const events = deps.cases.events;
  events.on('history', (id: string, kind: string, d: Detail) =>
    onHistory(log, metrics, id, kind, d),
  );
  events.on('poll', (outcome: string) => metrics.polls.inc({ outcome }));
  events.on('edit', (platform: string, outcome: string, error?: string) => {
    metrics.edits.inc({ platform, outcome });
    if (error && /\(rate_limited\)/.test(error)) metrics.rateLimited.inc({ platform });
  });
  events.on('takeover', (kind: string) => metrics.takeovers.inc({ kind }));
}
