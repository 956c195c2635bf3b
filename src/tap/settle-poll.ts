/** Settling the outcomes a poll must decide: the case closed (409/410), or no answer at all. */
import type { TapReply } from '../adapter.ts';
import { isTerminal } from '../protocol/types.ts';
import { t } from '../render/templates.ts';
import { settleByPoll } from '../service-client/confirm-by-poll.ts';
import type { SubmitOutcome } from '../service-client/submit-outcome.ts';
import {
  checkSoon,
  checkUnknownSubmit,
  markSubmitUnknown,
  unknownView,
} from '../service-client/unknown-submit.ts';
import type { Settling } from './settling.ts';

/** 409 or 410: the case was answered elsewhere or expired; its final state is read first. */
export async function settleClosed(
  s: Settling,
  outcome: Extract<SubmitOutcome, { kind: 'closed' }>,
): Promise<TapReply> {
  const { d, c } = s;
  const settled = await settleByPoll(d, c.id, s.w);
  if (settled && isTerminal(settled.status))
    return s.reply('closed', { status: settled.status }, settled);
  const current = await d.store.getCase(c.id);
  if (current && isTerminal(current.status))
    return s.reply('closed', { status: current.status }, current);
  if (outcome.status === 410) {
    // 410 is the service saying the case expired (spec 7.5).
    const expired = await d.status.apply(
      c.id,
      { status: 'expired', case_id: c.case_id },
      'submit_410',
      undefined,
      { known: current, carry: s.carry },
    );
    return s.reply('closed', { status: 'expired' }, expired);
  }
  // 409: answered already, somewhere else; its final state cannot be read right now.
  const updated = await d.cases.patchDoc(
    c.id,
    { inline_unavailable: true, notice: t(d.strings, 'notice.decided_elsewhere') },
    s.w,
  );
  return s.reply('closed', { status: t(d.strings, 'closed_elsewhere') }, updated);
}

/**
 * Sent, and no answer: the service may have recorded it. Say so at once (the card hides its
 * buttons), then ask poll_url; never offer a blind second submit.
 */
export async function settleUnknown(
  s: Settling,
  outcome: Extract<SubmitOutcome, { kind: 'unknown' }>,
): Promise<TapReply> {
  const { d, c, tap, body } = s;
  const mark = {
    action: tap.action,
    at: d.now(),
    submitted_by: body.submitted_by,
    ...(outcome.timeoutS ? { timeout_s: outcome.timeoutS } : {}),
  };
  const marked = (await markSubmitUnknown(d, c.id, mark)) ?? c;
  const checked = await checkUnknownSubmit(d, marked);
  const current = checked.case ?? marked;
  const view = unknownView(mark);
  if (checked.check === 'recorded') return s.reply('submitted', { done: s.done }, current);
  if (checked.check === 'closed') return s.reply('closed', { status: current.status }, current);
  if (checked.check === 'not_recorded') return s.reply('submit_not_recorded', view, current);
  await checkSoon(d, current);
  return s.reply('submit_unknown', view, current);
}
