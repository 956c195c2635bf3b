/**
 * A submit whose outcome is unknown: it was sent and no answer came (a timeout, a reset), so the
 * service may have recorded the decision. Nothing is sent again and the buttons stay hidden until
 * poll_url, the source of truth (spec 8.5), tells: completed → the final card; still open → the
 * buttons come back with a line saying nothing was recorded; unreadable → the card keeps saying
 * "checking" and the watcher looks again at once.
 */

import type { Dispatcher } from 'undici';
import type { CaseRepository } from '../cases/repository.ts';
import type { StatusApplier } from '../cases/status.ts';
import type { Logger } from '../log.ts';
import { isTerminal } from '../protocol/types.ts';
import { type Strings, t } from '../render/templates.ts';
import type { Sealer } from '../store/sealer.ts';
import type { Store } from '../store/store.ts';
import type { CaseDoc, StoredCase } from '../store/types.ts';
import { type PollResult, pollCase } from './poll.ts';

/** What settling an unknown submit touches. */
export interface UnknownSubmitDeps {
  store: Pick<Store, 'getCase' | 'updateWatch'>;
  cases: Pick<CaseRepository, 'mutate' | 'patchDoc' | 'history'>;
  status: Pick<StatusApplier, 'apply'>;
  strings: Strings;
  log: Logger;
  now: () => number;
  /** For the poll that settles it. */
  dispatcher: Dispatcher;
  sealer: Pick<Sealer, 'open'>;
}

/** What a check found: the service recorded this submit, closed the case otherwise, did not record it, or cannot be read. */
export type UnknownSubmitCheck = 'recorded' | 'closed' | 'not_recorded' | 'unknown';

/** The mark a case carries while its submit's outcome is unknown. */
export type SubmitUnknownMark = NonNullable<CaseDoc['submit_unknown']>;

/** The view of the texts about an unknown submit ({{seconds}} when the deadline ran out). */
export function unknownView(mark: SubmitUnknownMark | undefined): Record<string, unknown> {
  return mark?.timeout_s ? { seconds: mark.timeout_s } : {};
}

/** Marks the case: the card says the decision may have been recorded and hides its buttons. */
export function markSubmitUnknown(
  d: Pick<UnknownSubmitDeps, 'cases' | 'strings'>,
  id: string,
  mark: SubmitUnknownMark,
): Promise<StoredCase | undefined> {
  return d.cases.patchDoc(id, {
    submit_unknown: mark,
    notice: t(d.strings, 'notice.submit_unknown', unknownView(mark)),
  });
}

/**
 * Settles an unknown submit by what poll_url says (`read`: a poll already made, e.g. by the
 * watcher; otherwise one is made now). Only the call that clears the mark writes the history row.
 */
export async function checkUnknownSubmit(
  d: UnknownSubmitDeps,
  c: StoredCase,
  read?: PollResult,
): Promise<{ check: UnknownSubmitCheck; case: StoredCase | undefined }> {
  const mark = c.doc.submit_unknown;
  if (!mark) return { check: isTerminal(c.status) ? 'closed' : 'not_recorded', case: c };
  const r = read ?? (await pollCase(d, c, null));
  if (r.kind === 'status') await d.status.apply(c.id, r.update, 'poll');
  const now = await d.store.getCase(c.id);
  if (!now) return { check: 'unknown', case: undefined };
  if (!isTerminal(now.status) && r.kind === 'error') return { check: 'unknown', case: now };
  // The service answered this action: the person whose submit got no answer submitted it (the
  // same rule as for an accepted submit: a second answer would have been refused with 409).
  const recorded =
    now.status === 'completed' && now.doc.result?.action === mark.action && !now.doc.submitted_by;
  const check: UnknownSubmitCheck = isTerminal(now.status)
    ? recorded || now.doc.submitted_by?.platform_user_id === mark.submitted_by.platform_user_id
      ? 'recorded'
      : 'closed'
    : 'not_recorded';
  const updated = await d.cases.mutate(c.id, (x) => {
    if (!x.doc.submit_unknown) return false;
    delete x.doc.submit_unknown;
    if (check === 'recorded' && !x.doc.submitted_by) x.doc.submitted_by = mark.submitted_by;
    if (check === 'not_recorded')
      x.doc.notice = t(d.strings, 'notice.submit_not_recorded', unknownView(mark));
    return true;
  });
  if (updated) {
    await d.cases.history(c.id, 'submit_checked', {
      action: mark.action,
      outcome: check,
      status: now.status,
    });
    d.log.info(
      { case: c.id, action: mark.action, outcome: check, status: now.status },
      'unknown submit outcome settled by a poll',
    );
  }
  return { check, case: updated ?? (await d.store.getCase(c.id)) };
}

/** Asks the watcher to look at the case at once (its next poll settles the unknown submit). */
export async function checkSoon(
  d: Pick<UnknownSubmitDeps, 'store' | 'now'>,
  c: StoredCase,
): Promise<void> {
  const at = d.now();
  if (c.next_check_at !== null && c.next_check_at <= at) return;
  await d.store.updateWatch(c.id, {
    next_check_at: at,
    etag: c.etag,
    poll_failures: c.poll_failures,
  });
}
