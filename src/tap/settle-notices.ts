/** Settling the outcomes that only change what the card says (and whether it keeps its buttons). */
import type { TapOutcome, TapReply } from '../adapter.ts';
import { formatTime } from '../cases/render-case.ts';
import { t } from '../render/templates.ts';
import type { SubmitOutcome } from '../service-client/submit-outcome.ts';
import type { CaseDoc } from '../store/types.ts';
import type { Settling } from './settling.ts';

type NoticeOutcome = Exclude<
  SubmitOutcome,
  { kind: 'accepted' | 'unconfirmed' | 'closed' | 'unknown' | 'queue_full' }
>;

/** The doc patch, the reply and its view for an outcome that changes only the card's notice. */
function noticeOf(
  s: Settling,
  outcome: NoticeOutcome,
): { patch: Partial<CaseDoc>; reply: TapOutcome; view: Record<string, unknown> } {
  const str = s.d.strings;
  switch (outcome.kind) {
    case 'refused': {
      // The service refused the request itself: the same tap would be refused again.
      const view = { status: outcome.status, message: outcome.message ?? '' };
      return {
        patch: { inline_unavailable: true, notice: t(str, 'notice.refused', view) },
        reply: 'refused',
        view,
      };
    }
    case 'unauthorized':
      return {
        patch: { inline_unavailable: true, notice: t(str, 'notice.inline_unavailable') },
        reply: 'inline_unavailable',
        view: {},
      };
    case 'forbidden':
      return forbidden(s, outcome);
    case 'rate_limited':
      return rateLimited(s, outcome);
    case 'redirected':
    case 'service_failed': {
      const view = { status: outcome.status };
      return {
        patch: { notice: t(str, `notice.${outcome.kind}`, view) },
        reply: outcome.kind,
        view,
      };
    }
    default:
      return { patch: { notice: t(str, 'notice.failed') }, reply: 'failed', view: {} };
  }
}

/**
 * Verification errors mean no inline path will work for this case (spec 7.6: fall back to
 * review_url, do not retry inline); action_not_inline is about this action only.
 */
function forbidden(s: Settling, outcome: Extract<SubmitOutcome, { kind: 'forbidden' }>) {
  const str = s.d.strings;
  if (outcome.error === 'action_not_inline') {
    const refused = [...new Set([...(s.c.doc.inline_refused ?? []), s.tap.action])];
    return {
      patch: {
        inline_refused: refused,
        notice: t(str, 'notice.action_not_inline', { label: s.label }),
      },
      reply: 'use_review_url' as const,
      view: {},
    };
  }
  const notice = outcome.error.startsWith('verification')
    ? 'notice.verification'
    : 'notice.use_review_url';
  return {
    patch: { inline_unavailable: true, notice: t(str, notice) },
    reply: 'use_review_url' as const,
    view: {},
  };
}

/** 429: with Retry-After, no submit before then (the card says until when); else "in a moment". */
function rateLimited(s: Settling, outcome: Extract<SubmitOutcome, { kind: 'rate_limited' }>) {
  const str = s.d.strings;
  if (outcome.retryAfterMs === undefined)
    return {
      patch: { notice: t(str, 'notice.rate_limited_now') },
      reply: 'rate_limited_now' as const,
      view: {},
    };
  const until = s.d.now() + outcome.retryAfterMs;
  const view = { seconds: Math.ceil(outcome.retryAfterMs / 1000), at: formatTime(until) };
  return {
    patch: { retry_after_until: until, notice: t(str, 'notice.rate_limited', view) },
    reply: 'rate_limited' as const,
    view,
  };
}

/** Writes the notice (with the carried writes) and replies. */
export async function settleNotice(s: Settling, outcome: NoticeOutcome): Promise<TapReply> {
  const n = noticeOf(s, outcome);
  const updated = await s.d.cases.patchDoc(s.c.id, n.patch, s.w);
  return s.reply(n.reply, n.view, updated);
}
