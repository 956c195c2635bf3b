/**
 * Step 6 of a tap: what the service's answer to a submit means for the case, the card and the
 * person (spec 7.5, 7.6): the service's own result on 200 (confirmed by a poll), and for every
 * refusal the truth about what happened and what the person can do.
 */
import type { Tap, TapReply } from '../adapter.ts';
import type { CarriedWrites } from '../cases/repository.ts';
import type { SubmitRequest } from '../protocol/actions.ts';
import type { StatusUpdate } from '../protocol/status.ts';
import { isTerminal } from '../protocol/types.ts';
import { t } from '../render/templates.ts';
import { pollCase } from '../service-client/poll.ts';
import type { SubmitOutcome } from '../service-client/submit-outcome.ts';
import type { StoredCase } from '../store/types.ts';
import type { TapDeps } from './deps.ts';
import type { Reply } from './reply.ts';
import { settleNotice } from './settle-notices.ts';
import { settleClosed, settleUnknown } from './settle-poll.ts';
import type { Settling } from './settling.ts';

/** Settles a submit's outcome; the carried writes go with the first change it makes. */
export async function settleSubmit(
  d: TapDeps,
  c: StoredCase,
  tap: Tap,
  body: SubmitRequest,
  outcome: SubmitOutcome,
  reply: Reply,
  carry: CarriedWrites,
): Promise<TapReply> {
  const s: Settling = {
    d,
    c,
    tap,
    body,
    reply,
    carry,
    w: { known: c, carry },
    done: t(d.strings, `done.${tap.action}`),
    label: t(d.strings, `action.${tap.action}`),
  };
  switch (outcome.kind) {
    case 'accepted':
      return settleAccepted(s, outcome);
    case 'unconfirmed':
      return settleUnconfirmed(s);
    case 'closed':
      return settleClosed(s, outcome);
    case 'unknown':
      return settleUnknown(s, outcome);
    case 'queue_full':
      // Nothing was sent: say so plainly, the card stays as it is.
      return reply('service_busy');
    default:
      return settleNotice(s, outcome);
  }
}

/**
 * The service took the answer. Its result is the result: read the case (poll_url is the source of
 * truth) and fall back to what the 200 body said when the poll cannot tell. The service took this
 * person's answer (a second answer gets 409): they submitted it. It is recorded in the same write
 * as the completion (one version, one card edit), or on its own when a concurrent poll applied the
 * completion first.
 */
async function settleAccepted(
  s: Settling,
  outcome: Extract<SubmitOutcome, { kind: 'accepted' }>,
): Promise<TapReply> {
  const { d, c, tap, body } = s;
  const ours = (x: StoredCase) =>
    !x.doc.submitted_by && !(isTerminal(x.status) && x.doc.result?.action !== tap.action);
  const record = (x: StoredCase) => {
    if (ours(x)) x.doc.submitted_by = body.submitted_by;
  };
  const polled = await pollCase(d, c, null);
  let updated: StoredCase | undefined;
  if (polled.kind === 'status' && isTerminal(polled.update.status))
    updated = await d.status.apply(c.id, polled.update, 'submit_confirmed', record, s.w);
  else {
    const a = outcome.answer;
    const u: StatusUpdate =
      a.update?.status === 'completed'
        ? a.update
        : {
            status: 'completed',
            case_id: c.case_id,
            // The service confirmed this action and gave no data: none is invented.
            result: { action: tap.action },
            ...(outcome.completed_at ? { at: outcome.completed_at } : {}),
          };
    updated = await d.status.apply(c.id, u, 'submit', record, s.w);
  }
  if (!updated)
    updated = await d.cases.mutate(
      c.id,
      (x) => {
        if (!ours(x)) return false;
        x.doc.submitted_by = body.submitted_by;
        return true;
      },
      { carry: s.carry },
    );
  const current = updated ?? (await d.store.getCase(c.id));
  if (current?.status === 'completed' && current.doc.result?.action !== tap.action)
    return s.reply('closed', { status: current.status }, current);
  return s.reply('submitted', { done: s.done }, current);
}

/** 2xx, but not what an accepted submit answers (an HTML page, a cut body): ask the poll. */
async function settleUnconfirmed(s: Settling): Promise<TapReply> {
  const { d, c, tap } = s;
  const read = await pollCase(d, c, null);
  const applied =
    read.kind === 'status'
      ? await d.status.apply(c.id, read.update, 'poll', undefined, s.w)
      : undefined;
  const current = applied ?? (await d.store.getCase(c.id));
  if (current && isTerminal(current.status))
    return current.status === 'completed' && current.doc.result?.action === tap.action
      ? s.reply('submitted', { done: s.done }, current)
      : s.reply('closed', { status: current.status }, current);
  const notice = t(
    d.strings,
    read.kind === 'error' ? 'notice.unconfirmed_unknown' : 'notice.unconfirmed_open',
  );
  const updated = await d.cases.patchDoc(c.id, { notice }, { known: current, carry: s.carry });
  return s.reply('unconfirmed', {}, updated);
}
