/**
 * Expiry warnings (policy/expiry-warning.ts has the rules): when a threshold before a case's
 * expires_at is reached and nobody has decided, every card of the case gets one short reply naming
 * the time left, the history a row, the agent an `expiring` notify event (written with the record,
 * notify/deliveries.ts), and the per-person channels (cases/attention.ts) a call. The warning is
 * recorded in the case (compare-and-set) before anything is sent, so a restart or a second replica
 * never sends a threshold twice; a failed send is recorded, not repeated.
 */

import type { PersonAlerts } from '../cases/attention.ts';
import type { CardRenderer } from '../cases/card-render.ts';
import { formatTime } from '../cases/render-case.ts';
import type { CaseRepository } from '../cases/repository.ts';
import { dueWarnings, durationWords, nextWarning, warnable } from '../policy/expiry-warning.ts';
import { type Strings, t } from '../render/templates.ts';
import type { StoredCase } from '../store/types.ts';
import { type CardNoticeDeps, noticeEveryCard, shorten } from './card-notices.ts';

const MAX_PROMPT = 200;

/** What expiry warnings touch. */
export interface ExpiryWarningsDeps extends CardNoticeDeps {
  cases: Pick<CaseRepository, 'mutate' | 'history'>;
  render: Pick<CardRenderer, 'detailsUrl'>;
  strings: Strings;
  now: () => number;
  /** Per-person channels (a phone's push), told after the chats; none by default. */
  alerts?: PersonAlerts | undefined;
}

/** Sends expiry warnings and says when the next one is due. */
export class ExpiryWarnings {
  constructor(private readonly deps: ExpiryWarningsDeps) {}

  /** When the case's next warning is due (ms), or undefined. */
  next(c: StoredCase): number | undefined {
    return nextWarning(c);
  }

  /**
   * Sends the warnings that are due: several thresholds reached at once (the relay was down) are
   * recorded together and make one reply, with the time that is really left. True when sent.
   */
  async sendDue(seen: StoredCase): Promise<boolean> {
    const d = this.deps;
    if (!dueWarnings(seen, d.now()).length) return false;
    let fresh: number[] = [];
    const c = await d.cases.mutate(seen.id, (x) => {
      const now = d.now();
      fresh = dueWarnings(x, now);
      if (!fresh.length || !x.doc.expiry_warnings) return false;
      x.doc.expiry_warnings.sent.push(...fresh.map((before_s) => ({ before_s, at: now })));
      return true;
    });
    if (!c || !warnable(c)) return false;
    const expiresAt = c.doc.hitl.expires_at;
    const left = Math.max(0, Math.round((Date.parse(expiresAt) - d.now()) / 1000));
    const text = t(d.strings, 'expiry_warning', {
      left: durationWords(roundLeft(left)),
      expires: formatTime(expiresAt),
      prompt: shorten(c.doc.hitl.prompt, MAX_PROMPT),
    });
    const url = d.render.detailsUrl(c);
    const link = url ? { label: t(d.strings, 'link'), url } : null;
    const targets = await noticeEveryCard(d, c.id, text, link, 'expiry_warning_failed');
    await d.cases.history(c.id, 'expiry_warning', {
      before_s: fresh,
      expires_at: expiresAt,
      targets,
    });
    const smallest = Math.min(...fresh);
    await d.alerts
      ?.expiring(c, { before_s: smallest, expires_at: expiresAt })
      .catch((err) => d.log.warn({ case: c.id, err: String(err) }, 'a person alert failed'));
    return true;
  }
}

/** Time left as people say it: whole minutes from 2 minutes on, seconds below. */
function roundLeft(seconds: number): number {
  return seconds >= 120 ? Math.round(seconds / 60) * 60 : seconds;
}
