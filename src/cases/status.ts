/** The status applier: a status update from a poll, an event, a callback or a submit, through the state machine. */
import type { Logger } from '../log.ts';
import { jsonLimitIssue } from '../protocol/json-limits.ts';
import { canTransition } from '../protocol/state.ts';
import type { StatusUpdate } from '../protocol/status.ts';
import { isTerminal } from '../protocol/types.ts';
import { reviewUrlDropAt } from '../store/retention.ts';
import type { Sealer } from '../store/sealer.ts';
import type { Store } from '../store/store.ts';
import type { StoredCase } from '../store/types.ts';
import type { CaseRepository, MutateOptions } from './repository.ts';
import { chainAfter } from './rounds.ts';

/** What applying a status touches. */
export interface StatusApplierDeps {
  store: Pick<Store, 'findCase' | 'getCase'>;
  sealer: Sealer;
  log: Logger;
  now: () => number;
  cases: Pick<CaseRepository, 'mutate' | 'patchDoc' | 'stash' | 'events'>;
}

/** Whether `c` belongs to the service whose review page is at `reviewUrl` (poll origin aside). */
export function sameService(
  sealer: Pick<Sealer, 'open'>,
  c: StoredCase,
  reviewUrl: string,
): boolean {
  // A case whose review_url was dropped keeps the URL's origin in its doc.
  const own = c.doc.review_url_retired_at ? c.doc.review_origin : sealer.open(c.secrets).review_url;
  return !!own && originOf(own) !== undefined && originOf(own) === originOf(reviewUrl);
}

/** The origin of a URL; undefined when it is not one. */
function originOf(url: string): string | undefined {
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
}

/** The update with the service's data left out when it breaks the JSON limits (said in the log). */
function bounded(log: Logger, id: string, u: StatusUpdate, source: string): StatusUpdate {
  const tooDeep = jsonLimitIssue(u, source);
  if (!tooDeep) return u;
  log.warn(
    { case: id, source, path: tooDeep.path.slice(0, 200) },
    `a status update ${tooDeep.message}; its data is left out`,
  );
  const { result, progress: _p, submission_context: _s, responded_by: _r, ...rest } = u;
  return result ? { ...rest, result: { action: String(result.action).slice(0, 64) } } : rest;
}

/** Applies status updates to stored cases. */
export class StatusApplier {
  constructor(private readonly d: StatusApplierDeps) {}

  /** Applies a status update; the state machine decides. Returns the case when it changed. */
  async apply(
    id: string,
    update: StatusUpdate,
    source: string,
    extra: (c: StoredCase) => void = () => {},
    options: MutateOptions = {},
  ): Promise<StoredCase | undefined> {
    const u = bounded(this.d.log, id, update, source);
    let from: string | undefined;
    const changed = await this.d.cases.mutate(
      id,
      (c) => {
        if (!this.changes(c, u)) return false;
        from = c.status;
        this.write(c, u);
        extra(c);
        // One history row per status change, not per progress update (a stream may send
        // thousands), written in the same commit as the change.
        if (from !== u.status || u.next_case_id)
          this.d.cases.stash(c, [
            {
              at: this.d.now(),
              kind: 'status',
              detail: { from, to: u.status, source, action: u.result?.action ?? null },
            },
          ]);
        return true;
      },
      options,
    );
    if (changed && (from !== u.status || u.next_case_id)) {
      // After its history row, so listeners (receipts) see the row that records the change.
      this.d.cases.events.emit('status', changed);
      if (u.next_case_id) await this.linkNext(changed, u.next_case_id);
    } else if (u.next_case_id) {
      // A final case (or one already at this status) whose service names its next round now:
      // nothing else changes, but the round is linked (its card marked revised).
      const c = await this.d.store.getCase(id);
      if (c && !c.doc.next_id) await this.linkNext(c, u.next_case_id);
    }
    return changed;
  }

  /** Whether `u` changes `c` at all (a repeated status with the same progress does not). */
  private changes(c: StoredCase, u: StatusUpdate): boolean {
    if (!canTransition(c.status, u.status)) return false;
    return (
      c.status !== u.status ||
      JSON.stringify(c.doc.progress ?? null) !== JSON.stringify(u.progress ?? null) ||
      !!u.next_case_id
    );
  }

  /** Writes `u` into the copy `c` being changed. */
  private write(c: StoredCase, u: StatusUpdate): void {
    const same = c.status === u.status;
    c.status = u.status;
    const d = c.doc;
    if (u.result) d.result = u.result;
    if (u.responded_by) d.responded_by = u.responded_by;
    if (u.submission_context) d.submission_context = u.submission_context;
    if (u.verification_result) d.verification_result = u.verification_result;
    if (u.progress) d.progress = u.progress;
    if (u.next_case_id) d.next_case_id = u.next_case_id;
    if (u.default_action) d.default_action = u.default_action;
    if (u.reason) d.reason = u.reason;
    if (!same) d.status_at = u.at ?? new Date(this.d.now()).toISOString();
    // The person opened Details (the service says so): a notice pointing there has been followed.
    if (!same && (u.status === 'opened' || u.status === 'in_progress')) delete d.notice;
    if (isTerminal(u.status)) {
      c.next_check_at = null;
      delete d.notice;
      // Nothing is submitted or watched any more: the submit token and the service credentials
      // go at once; the review URL stays for the final card's Details link until it is due to be
      // dropped (store/retention.ts), its origin kept apart for matching later rounds.
      const reviewUrl = this.d.sealer.open(c.secrets).review_url;
      c.secrets = this.d.sealer.seal({ submit_token: null, review_url: reviewUrl });
      if (!d.review_url_retired_at) {
        d.review_url_drop_at ??= reviewUrlDropAt(d.hitl.expires_at, this.d.now());
        d.review_origin ??= originOf(reviewUrl);
      }
    }
  }

  /** Links a case to the next round the service named (both ways), within one service. */
  async linkNext(c: StoredCase, nextCaseId: string): Promise<void> {
    const found = await this.d.store.findCase(c.origin, nextCaseId);
    const reviewUrl = this.d.sealer.open(c.secrets).review_url;
    const next = found && sameService(this.d.sealer, found, reviewUrl) ? found : undefined;
    if (next && !c.doc.next_id) {
      await this.d.cases.patchDoc(c.id, { next_id: next.id });
      if (!next.doc.previous_id)
        await this.d.cases.patchDoc(next.id, {
          previous_id: c.id,
          chain: await chainAfter(this.d.store, c),
        });
    }
  }
}
